"""Chaos (docs/reliability.md, section 5): the real `d2 worker` under faults, over a mixed
backlog (valid, malformed, outside every polygon, invalid coordinates, duplicated
demanda_id).

Scenarios: (a) SIGKILL the worker at random moments and restart it; (b) restart
PostgreSQL under a running worker; (c) pg_terminate_backend its connections; (d) an idle
transaction on the event log, longer than the poll interval; (e) publishing fails for a
while (a trigger raises on INSERT of demanda.georreferenciada, later dropped); (f) the
geocoder stopped and the worker killed; (g) hostile citizen drawings (self-crossing
stars, stacks of rotated squares, drawings at the vertex cap) in the backlog among GPS
demands: the demands still resolve within seconds.

After each one the invariant checker (tests/support/invariants.py) runs, and a row goes to the
chaos report: repetitions, events, lost, duplicated (an event in two terminal states, or a
demanda published twice), and the recovery time (fault lifted → cursor moving again).
"""

from __future__ import annotations

import functools
import math
import random
import time
import uuid
from pathlib import Path

import psycopg
import pytest
from psycopg.rows import dict_row

from d2 import embedded
from d2.importers import sample
from tests.chaos.conftest import FULL, Linha, Relatorio
from tests.chaos.processes import ProcessoWorker, esperar, lag
from tests.conftest import Server
from tests.support import Conn, backlog, invariants, nominatim_fixtures, semear_cursor
from tests.support.events import inserir_evento, payload_normalizada, submeter_drawing
from tests.support.territorio import Territorio

pytestmark = pytest.mark.slow

# (short form, full form)
BACKLOG = 400 if not FULL else 3000
REPETICOES = {
    "sigkill": 6 if not FULL else 32,
    "pg_restart": 2 if not FULL else 8,
    "pg_terminate_backend": 6 if not FULL else 12,
    "idle_transaction": 3 if not FULL else 9,
    "publish_failure": 1 if not FULL else 3,
    "hostile_drawing": 3 if not FULL else 9,
}
POR_REPETICAO = 40 if not FULL else 120
RECUPERACAO_MAX_S = 10.0
CONCLUIR_S = 240 if not FULL else 900


def conectar(db_url: str) -> Conn:
    return psycopg.connect(db_url, autocommit=True, row_factory=dict_row)


def cursor(conn: Conn) -> int:
    row = conn.execute(
        "SELECT last_sequence FROM d2.consumer_offset WHERE tipo_evento = 'demanda.normalizada'"
    ).fetchone()
    return -1 if row is None else int(row["last_sequence"])


def avancou(conn: Conn, antes: int) -> bool:
    return cursor(conn) > antes


def medir_recuperacao(db_url: str, inicio: float, timeout_s: float = 60) -> float:
    """Seconds from inicio until the cursor moves again. A marker event is published so
    that there is always something to move it."""
    with conectar(db_url) as conn:
        antes = cursor(conn)
        inserir_evento(conn, payload_normalizada(-27.0, -49.0))
        esperar(lambda: cursor(conn) > antes, timeout_s=timeout_s, passo_s=0.02)
    return time.monotonic() - inicio


def contar(conn: Conn) -> tuple[int, int, int]:
    """(events, lost, duplicated) without asserting, for the report."""
    row = conn.execute(
        """
        WITH estados AS (
            SELECT e.event_id,
                   r.event_id IS NOT NULL AS resolvido,
                   p.event_id IS NOT NULL AS revisao,
                   EXISTS (SELECT 1 FROM core.dead_letter_queue d
                           WHERE d.event_id = e.event_id AND d.status = 'pendente') AS morto,
                   EXISTS (SELECT 1 FROM d2.eventos_processados x
                           WHERE x.event_id = e.event_id) AS processado,
                   -- The same demanda_id with another place: a conflict.
                   EXISTS (SELECT 1 FROM d2.conflitos_demanda c
                           WHERE c.event_id = e.event_id) AS conflito
            FROM core.event_log e
            LEFT JOIN d2.resolucoes_geo r ON r.event_id = e.event_id
            LEFT JOIN d2.revisoes_geo_pendentes p ON p.event_id = e.event_id
            WHERE e.tipo = 'demanda.normalizada'
        ), n AS (
            SELECT resolvido::int + revisao::int + morto::int
                   + (conflito AND NOT resolvido AND NOT revisao)::int
                   + (processado AND NOT resolvido AND NOT revisao AND NOT conflito)::int AS n
            FROM estados
        )
        SELECT count(*) AS eventos,
               count(*) FILTER (WHERE n = 0) AS perdidos,
               count(*) FILTER (WHERE n > 1) AS duplicados,
               (SELECT coalesce(sum(k - 1), 0) FROM (
                    SELECT count(*) AS k FROM core.event_log
                    WHERE tipo = 'demanda.georreferenciada'
                    GROUP BY payload ->> 'demanda_id') g) AS publicacoes_extra
        FROM n
        """
    ).fetchone()
    assert row is not None
    return (
        int(row["eventos"]),
        int(row["perdidos"]),
        int(row["duplicados"]) + int(row["publicacoes_extra"]),
    )


def concluir(
    db_url: str,
    relatorio: Relatorio,
    cenario: str,
    recuperacoes: list[float],
    worker: ProcessoWorker,
) -> None:
    """Let the worker finish (a new one if it was killed), stop it cleanly, report, then
    assert the invariants."""
    with conectar(db_url) as conn:
        if not worker.vivo():
            worker = ProcessoWorker(db_url, worker.log.with_name("final.log")).iniciar()
            # SIGTERM before it installed its handlers would kill it (-15), not stop it.
            esperar(worker.lider, timeout_s=30)
        try:
            esperar(lambda: lag(conn) == 0, timeout_s=CONCLUIR_S, passo_s=0.1)
        finally:
            codigo = worker.terminar()
        eventos, perdidos, duplicados = contar(conn)
        relatorio.adicionar(
            Linha(cenario, REPETICOES[cenario], eventos, perdidos, duplicados, recuperacoes)
        )
        assert codigo == 0, worker.cauda()
        invariants.verificar(conn)
        assert (perdidos, duplicados) == (0, 0)
    assert max(recuperacoes) < RECUPERACAO_MAX_S, recuperacoes


@pytest.fixture
def preparado(conn: Conn) -> Conn:
    Territorio(conn)
    semear_cursor(conn)
    backlog(conn, BACKLOG, seed=1)
    return conn


def test_chaos__sigkill_worker_at_random_moments_then_restart(
    preparado: Conn, db_url: str, tmp_path: Path, relatorio: Relatorio
) -> None:
    rng = random.Random(7)
    log = tmp_path / "worker.log"
    recuperacoes: list[float] = []
    worker = ProcessoWorker(db_url, log)
    for rep in range(REPETICOES["sigkill"]):
        backlog(preparado, POR_REPETICAO, seed=100 + rep)
        batch = rng.choice(["1", "7", "50"])
        inicio = time.monotonic()
        worker = ProcessoWorker(db_url, log, "--batch-size", batch).iniciar()
        recuperacoes.append(medir_recuperacao(db_url, inicio))
        time.sleep(rng.uniform(0.0, 1.0))
        worker.matar()
    concluir(db_url, relatorio, "sigkill", recuperacoes, worker)


def test_chaos__postgres_restarted_under_a_running_worker(
    preparado: Conn, db_url: str, tmp_path: Path, relatorio: Relatorio, pg_server: Server
) -> None:
    if pg_server.home is None:
        pytest.skip("external server: cannot restart it")
    rng = random.Random(8)
    worker = ProcessoWorker(db_url, tmp_path / "worker.log", "--batch-size", "5").iniciar()
    recuperacoes: list[float] = []
    for rep in range(REPETICOES["pg_restart"]):
        with conectar(db_url) as conn:
            backlog(conn, POR_REPETICAO, seed=200 + rep)
        time.sleep(rng.uniform(0.3, 1.5))
        embedded.restart(Path(pg_server.home))
        recuperacoes.append(medir_recuperacao(db_url, time.monotonic()))
    concluir(db_url, relatorio, "pg_restart", recuperacoes, worker)


def test_chaos__worker_connections_terminated_by_pg_terminate_backend(
    preparado: Conn, db_url: str, tmp_path: Path, relatorio: Relatorio
) -> None:
    rng = random.Random(9)
    worker = ProcessoWorker(db_url, tmp_path / "worker.log", "--batch-size", "5").iniciar()
    esperar(lambda: cursor(preparado) > 0, timeout_s=30)
    recuperacoes: list[float] = []
    for rep in range(REPETICOES["pg_terminate_backend"]):
        backlog(preparado, POR_REPETICAO, seed=300 + rep)
        time.sleep(rng.uniform(0.2, 1.0))
        mortos = preparado.execute(
            """
            SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) AS n
            FROM pg_stat_activity
            WHERE datname = current_database()
              AND application_name IN ('d2-worker', 'd2-listener')
            """
        ).fetchone()
        inicio = time.monotonic()
        assert mortos is not None and mortos["n"] >= 1
        recuperacoes.append(medir_recuperacao(db_url, inicio))
    concluir(db_url, relatorio, "pg_terminate_backend", recuperacoes, worker)


def test_chaos__idle_transaction_on_the_event_log_longer_than_the_poll_interval(
    preparado: Conn, db_url: str, tmp_path: Path, relatorio: Relatorio
) -> None:
    """A producer inserts an event and sits idle in its transaction (then commits, rolls
    back, or had run SET CONSTRAINTS ALL IMMEDIATE, which once forced D-2's numbering
    early and is now just a producer's habit)."""
    worker = ProcessoWorker(db_url, tmp_path / "worker.log", "--batch-size", "10").iniciar()
    segurar_s = 1.0 if not FULL else 3.0
    variantes = ["commit", "rollback", "immediate"]
    recuperacoes: list[float] = []
    segurados: dict[uuid.UUID, str] = {}
    for rep in range(REPETICOES["idle_transaction"]):
        variante = variantes[rep % len(variantes)]
        with psycopg.connect(db_url, row_factory=dict_row) as ocioso:
            segurado = inserir_evento(ocioso, payload_normalizada(-27.5, -48.0))
            segurados[segurado] = variante
            if variante == "immediate":
                ocioso.execute("SET CONSTRAINTS ALL IMMEDIATE")
                time.sleep(segurar_s)
            else:
                # Others commit after it while it sits idle: the readers' fence holds
                # them back until it ends, then the worker goes past all of them.
                antes = cursor(preparado)
                backlog(preparado, POR_REPETICAO, seed=400 + rep)
                time.sleep(segurar_s)
            if variante == "rollback":
                ocioso.rollback()
            else:
                ocioso.commit()
            if variante != "immediate":
                esperar(functools.partial(avancou, preparado, antes), timeout_s=30)
        recuperacoes.append(medir_recuperacao(db_url, time.monotonic()))
    concluir(db_url, relatorio, "idle_transaction", recuperacoes, worker)
    # The held events that committed were handled once; the rolled-back ones never existed.
    tratados = {
        r["event_id"]
        for r in preparado.execute(
            "SELECT event_id FROM d2.eventos_processados WHERE event_id = ANY(%(ids)s)",
            {"ids": list(segurados)},
        )
    }
    assert tratados == {e for e, v in segurados.items() if v != "rollback"}


FALHA_PUBLICAR = """
CREATE FUNCTION public.caos_recusar_publicacao() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'chaos: event log refuses demanda.georreferenciada';
END
$$;
CREATE TRIGGER caos_recusar_publicacao BEFORE INSERT ON core.event_log
FOR EACH ROW WHEN (NEW.tipo = 'demanda.georreferenciada')
EXECUTE FUNCTION public.caos_recusar_publicacao();
"""

FIM_DA_FALHA = """
DROP TRIGGER caos_recusar_publicacao ON core.event_log;
DROP FUNCTION public.caos_recusar_publicacao();
"""


def test_chaos__publishing_fails_for_a_while_then_recovers(
    preparado: Conn, db_url: str, tmp_path: Path, relatorio: Relatorio
) -> None:
    """Spec T9 / docs/design.md, decision 5: the resolution stays stored, the cursor is held, and
    the next pass publishes it. Never a dead letter for an event that was resolved."""
    worker = ProcessoWorker(db_url, tmp_path / "worker.log", "--batch-size", "10").iniciar()
    esperar(lambda: cursor(preparado) > 0, timeout_s=30)
    falha_s = 2.0 if not FULL else 5.0
    recuperacoes: list[float] = []
    for rep in range(REPETICOES["publish_failure"]):
        preparado.execute(FALHA_PUBLICAR)
        backlog(preparado, POR_REPETICAO, seed=500 + rep)
        time.sleep(falha_s)
        preparado.execute(FIM_DA_FALHA)
        recuperacoes.append(medir_recuperacao(db_url, time.monotonic(), timeout_s=90))
    concluir(db_url, relatorio, "publish_failure", recuperacoes, worker)


ENDERECOS = [
    {"endereco": "Rua das Palmeiras, 123, Vila Aurora"},
    {"endereco": "Jardim das Flores, Vila Aurora"},
    {"endereco": "Serra Clara - BO"},
    {"endereco": "Centro"},
    {"cep": "78300-200"},
    {"endereco": "Avenida Brasil, Porto Sereno"},
]


def _backlog_com_enderecos(conn: Conn, n: int, seed: int) -> None:
    """n events over the sample territory: a third carry only an address."""
    rng = random.Random(seed)
    for i, (lat, lng) in enumerate(sample.sample_points(n, seed=seed)):
        if i % 3 == 0:
            payload = payload_normalizada(entidades_extraidas=rng.choice(ENDERECOS))
            payload["coordenadas_validadas"] = None
        else:
            payload = payload_normalizada(lat, lng)
        inserir_evento(conn, payload)


def test_chaos__geocoder_stopped_and_worker_killed_then_both_back(
    conn: Conn,
    db_url: str,
    tmp_path: Path,
    relatorio: Relatorio,
    pg_server: Server,
    nominatim_amostra: nominatim_fixtures.NominatimAmostra,
) -> None:
    """Address demands: the geocoder goes down and up while the worker is SIGKILLed and
    restarted. GPS demands never wait for it; address demands wait parked and end once."""
    sample.load_sample(db_url)
    semear_cursor(conn)
    ambiente = {
        "D2_NOMINATIM_DSN": nominatim_amostra.dsn,
        "D2_HOME": str(tmp_path / "home"),
        "D2_GEOCODER_RETRY_MAX": "1",
        "D2_GEOCODER_TIMEOUT": "2",
    }
    rng = random.Random(14)
    log = tmp_path / "worker.log"
    repeticoes = 4 if not FULL else 16
    worker = ProcessoWorker(db_url, log, "--batch-size", "20", **ambiente)
    with psycopg.connect(pg_server.url("postgres"), autocommit=True) as admin:
        try:
            for rep in range(repeticoes):
                ligado = rep % 2 == 1
                nominatim_fixtures.ligar_nominatim(admin, nominatim_amostra, ligado)
                _backlog_com_enderecos(conn, POR_REPETICAO, seed=600 + rep)
                worker = ProcessoWorker(db_url, log, "--batch-size", "20", **ambiente).iniciar()
                # GPS demands go through while the geocoder is down.
                esperar(lambda: lag(conn) == 0, timeout_s=60, passo_s=0.05)
                time.sleep(rng.uniform(0.0, 0.5))
                worker.matar()
        finally:
            nominatim_fixtures.ligar_nominatim(admin, nominatim_amostra, True)
    inicio = time.monotonic()
    worker = ProcessoWorker(db_url, log.with_name("final.log"), **ambiente).iniciar()
    esperar(worker.lider, timeout_s=30)
    try:
        esperar(
            lambda: (
                lag(conn) == 0
                and conn.execute(
                    "SELECT count(*) AS n FROM d2.geocodificacoes_pendentes"
                ).fetchone()
                == {"n": 0}
            ),
            timeout_s=CONCLUIR_S,
            passo_s=0.1,
        )
    finally:
        codigo = worker.terminar()
    recuperacao = time.monotonic() - inicio
    eventos, perdidos, duplicados = contar(conn)
    relatorio.adicionar(
        Linha("geocoder_stopped", repeticoes, eventos, perdidos, duplicados, [recuperacao])
    )
    assert codigo == 0, worker.cauda()
    contagens = invariants.verificar(conn)
    assert contagens["geocodificacoes_pendentes"] == 0
    assert (perdidos, duplicados) == (0, 0)
    metodos = {
        r["metodo_resolucao"]
        for r in conn.execute("SELECT DISTINCT metodo_resolucao FROM d2.resolucoes_geo")
    }
    assert metodos == {"gps", "endereco", "inferencia"}


def _estrela(n: int, cx: float, cy: float) -> dict[str, object]:
    passo = n // 2
    angulos = [2 * math.pi * i * passo / n for i in range(n)]
    pontos = [[cx + 0.004 * math.cos(a), cy + 0.004 * math.sin(a)] for a in angulos]
    return {"type": "Polygon", "coordinates": [[*pontos, pontos[0]]]}


def _quadrados(n: int, cx: float, cy: float) -> dict[str, object]:
    partes = []
    for i in range(n):
        a = math.pi / 2 * i / n
        anel = [[cx + 0.004 * math.cos(a + k * math.pi / 2),
                 cy + 0.004 * math.sin(a + k * math.pi / 2)] for k in range(4)]  # fmt: skip
        partes.append([[*anel, anel[0]]])
    return {"type": "MultiPolygon", "coordinates": partes}


def _no_limite(n: int, cx: float, cy: float) -> dict[str, object]:
    angulos = [2 * math.pi * i / n for i in range(n)]
    anel = [[cx + 0.004 * math.cos(a), cy + 0.004 * math.sin(a)] for a in angulos]
    return {"type": "Polygon", "coordinates": [[*anel, anel[0]]]}


def test_chaos__hostile_drawings_in_the_backlog_never_hold_gps_demands_back(
    preparado: Conn, db_url: str, tmp_path: Path, relatorio: Relatorio
) -> None:
    """Hostile drawings: a 4.3 kB star once held a GPS demand back 42.6 s. Drawings are now
    evaluated on the geometry stage's own thread and connection, repaired only when
    small: a GPS demand published right after a burst of hostile drawings is resolved
    within seconds, and every drawing ends in one terminal state too."""
    worker = ProcessoWorker(db_url, tmp_path / "worker.log", "--batch-size", "10").iniciar()
    esperar(lambda: cursor(preparado) > 0, timeout_s=30)
    recuperacoes: list[float] = []
    drawings: list[uuid.UUID] = []
    for rep in range(REPETICOES["hostile_drawing"]):
        cx, cy = -42.5 + 0.02 * rep, -27.5
        for geometria in (_estrela(401, cx, cy), _estrela(201, cx, cy), _quadrados(100, cx, cy),
                          _no_limite(2000, cx, cy), _estrela(99, cx, cy)):  # fmt: skip
            drawings.append(submeter_drawing(preparado, geometria))
        backlog(preparado, POR_REPETICAO, seed=700 + rep)
        recuperacoes.append(medir_recuperacao(db_url, time.monotonic()))
    esperar(
        lambda: _drawings_terminados(preparado, drawings) == len(drawings), timeout_s=CONCLUIR_S
    )
    concluir(db_url, relatorio, "hostile_drawing", recuperacoes, worker)


def _drawings_terminados(conn: Conn, eventos: list[uuid.UUID]) -> int:
    row = conn.execute(
        "SELECT (SELECT count(*) FROM d2.territorio_submissoes WHERE event_id = ANY(%(e)s))"
        " + (SELECT count(*) FROM core.dead_letter_queue WHERE event_id = ANY(%(e)s)) AS n",
        {"e": eventos},
    ).fetchone()
    return int(row["n"]) if row else 0
