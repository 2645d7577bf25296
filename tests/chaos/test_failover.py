"""D-2 on a replicated PostgreSQL: a primary and a synchronous streaming hot standby
(tests/chaos/replication.py), the real `d2 worker` (as a d2_worker login) and producers
on one multi-host URL; the primary's postmaster SIGKILLed under load, the standby
promoted by `pg_ctl promote` after a failover manager's detection delay; then judged on
the new primary: every acknowledged event in the log and in exactly one terminal state
(tests/support/invariants.py), nothing published twice, and the first answer after the promote
within 5 s of it, however long the manager took to decide.

Two cases: the standby promoted at once, and late. Late is, in CI, right after the
worker's fifth failed reconnect (about 8 s after the kill: a backoff alone would then
keep the worker away 8-10 s more); with D2_CHAOS_FULL=1, 30 s after the kill (a failover
manager's usual detection delay), or D2_FAILOVER_DETECTION_S seconds. Each failover is a
row of the chaos report: its recovery is the time from the promote to the first
demanda.georreferenciada published on the new primary.

Reads on a standby: `d2 resolve`, `d2 status` and psql's d2.resolver_territorio answer
there, and a command that would apply waiting changes of the mirror says, in one line,
that the connection is read-only.

With D2_FAILOVER_ASYNC=1 (or D2_CHAOS_FULL=1), what asynchronous replication costs: a
standby 1 s behind when the primary dies; acknowledged events the log lost, and outputs a
downstream reader saw twice, are the report's lost and duplicated.

Every session of the worker ended at once (as a failover ends them): no traceback, and
one line per stage saying it lost its connection and reconnects.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import psycopg.conninfo
import pytest
from psycopg.rows import dict_row

from d2 import embedded, errors, migrations
from tests.chaos import replication
from tests.chaos.conftest import FULL, Linha, Relatorio
from tests.chaos.processes import D2, ProcessoWorker, esperar, lag, publicacoes_repetidas
from tests.support import Conn, invariants, semear_cursor
from tests.support.events import inserir_evento, payload_normalizada
from tests.support.territorio import Territorio, inserir_uc, poligono, quadrado

pytestmark = pytest.mark.slow

_DETECCAO = os.environ.get("D2_FAILOVER_DETECTION_S", "30" if FULL else "")
DETECCAO_S = float(_DETECCAO) if _DETECCAO else None
"""The delayed case's detection delay; None: promote right after the worker's fifth failed
reconnect (about 8 s after the kill), when a backoff alone would keep it away longest."""
RECONEXOES_FALHAS = 5
# Acknowledged events before the kill, and after the promote (short form, full form).
ANTES, DEPOIS = (600, 300) if not FULL else (2000, 1000)
PRODUTORES = 4
PRIMEIRA_RESPOSTA_MAX_S = 5.0
SENHA = "S3nha-d0-w0rker"
WORKER = "d2_worker_app"
COLONIA = "colonia_app"


class Produtores:
    """Producers of demanda.normalizada, each on its own connection through the
    multi-host URL: one INSERT per commit, reconnecting after a failure. An event counts
    as acknowledged once its commit returned; one whose commit failed may or may not be
    in the log (either is allowed, never twice)."""

    def __init__(self, url: str, n: int, seed: int) -> None:
        self.url = url
        self.confirmados: set[uuid.UUID] = set()
        self.falhas = 0
        self._lock = threading.Lock()
        self._parar = threading.Event()
        self._threads = [
            threading.Thread(target=self._produzir, args=(random.Random(seed + i),), daemon=True)
            for i in range(n)
        ]

    def __enter__(self) -> Produtores:
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._parar.set()
        for t in self._threads:
            t.join(timeout=30)

    def total(self) -> int:
        with self._lock:
            return len(self.confirmados)

    def _produzir(self, rng: random.Random) -> None:
        while not self._parar.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True, connect_timeout=2) as conn:
                    while not self._parar.is_set():
                        event_id = inserir_evento(conn, _payload(rng))
                        with self._lock:
                            self.confirmados.add(event_id)
                        self._parar.wait(rng.uniform(0.005, 0.02))
            except psycopg.Error:
                with self._lock:
                    self.falhas += 1
                self._parar.wait(0.1)


def _payload(rng: random.Random) -> dict[str, Any]:
    """Mostly points in the test territory; some outside every polygon (a review), some
    without coordinates (a discard)."""
    sorteio = rng.random()
    if sorteio < 0.05:
        return payload_normalizada(coordenadas_validadas=None)
    if sorteio < 0.15:
        return payload_normalizada(rng.uniform(0, 5), rng.uniform(0, 5))
    return payload_normalizada(rng.uniform(-30, -25), rng.uniform(-50, -40))


def _preparar_primario(url: str) -> Territorio:
    """Migrated, with the test territory, the demand cursor, the worker's login (d2_worker
    only) and a colony's login that may only INSERT into the log."""
    migrations.upgrade(url)
    with psycopg.connect(url, autocommit=True, row_factory=dict_row) as conn:
        territorio = Territorio(conn)
        semear_cursor(conn)
        conn.execute(f"CREATE ROLE {WORKER} LOGIN PASSWORD '{SENHA}' IN ROLE d2_worker")
        serial = conn.execute(
            "SELECT pg_get_serial_sequence('core.event_log', 'sequence_number') AS s"
        ).fetchone()
        assert serial is not None
        conn.execute(f"CREATE ROLE {COLONIA} LOGIN PASSWORD '{SENHA}'")
        conn.execute(f"GRANT USAGE ON SCHEMA core TO {COLONIA}")
        conn.execute(f"GRANT INSERT ON core.event_log TO {COLONIA}")
        conn.execute(f"GRANT USAGE ON SEQUENCE {serial['s']} TO {COLONIA}")
    return territorio


@pytest.fixture
def grupo() -> Iterator[replication.Grupo]:
    try:
        embedded.bindir()
    except errors.EmbeddedClusterError as exc:
        pytest.skip(f"no PostgreSQL server binaries to build a primary and a standby: {exc}")
    with replication.grupo() as g:
        yield g


def _respostas(conn: Conn) -> int:
    row = conn.execute(
        "SELECT count(*) AS n FROM core.event_log WHERE tipo = 'demanda.georreferenciada'"
    ).fetchone()
    return int(row["n"]) if row else 0


def _primeira_resposta_apos(conn: Conn, instante: float) -> float | None:
    row = conn.execute(
        "SELECT extract(epoch FROM min(publicado_em)) AS t FROM core.event_log "
        "WHERE tipo = 'demanda.georreferenciada' AND publicado_em >= to_timestamp(%(t)s)",
        {"t": instante},
    ).fetchone()
    return None if row is None or row["t"] is None else float(row["t"]) - instante


def _reconexoes_falhas(worker: ProcessoWorker, antes: int) -> int:
    linhas = worker.texto().splitlines()[antes:]
    return sum('"logger": "d2.worker.loop"' in x and "reconectando" in x for x in linhas)


@pytest.mark.parametrize("tardia", [False, True], ids=["detection-0s", "detection-late"])
def test_failover__primary_killed_under_load_and_standby_promoted_loses_nothing(
    grupo: replication.Grupo, tmp_path: Path, relatorio: Relatorio, tardia: bool
) -> None:
    primario = grupo.primario()
    _preparar_primario(primario.url(embedded.DBNAME))
    standby = grupo.standby(primario)
    worker = ProcessoWorker(
        grupo.url(embedded.DBNAME, WORKER, SENHA), tmp_path / "worker.log", "--batch-size", "20"
    ).iniciar()
    esperar(worker.lider, timeout_s=60)
    with (
        psycopg.connect(primario.url(embedded.DBNAME), autocommit=True, row_factory=dict_row) as p,
        Produtores(grupo.url(embedded.DBNAME, COLONIA, SENHA), PRODUTORES, seed=37) as prod,
    ):
        # Under load: the worker is answering while producers keep publishing.
        esperar(lambda: prod.total() >= ANTES and _respostas(p) > 0, timeout_s=120)
        morto_em = time.time()
        linhas = len(worker.texto().splitlines())
        primario.matar()
        if tardia and DETECCAO_S is not None:
            time.sleep(DETECCAO_S)
        elif tardia:
            esperar(lambda: _reconexoes_falhas(worker, linhas) >= RECONEXOES_FALHAS, timeout_s=60)
        promovido_em = time.time()
        standby.promover()
        depois = prod.total() + DEPOIS
        esperar(lambda: prod.total() >= depois, timeout_s=120, passo_s=0.05)
    with psycopg.connect(
        standby.url(embedded.DBNAME), autocommit=True, row_factory=dict_row
    ) as conn:
        try:
            esperar(lambda: lag(conn) == 0, timeout_s=120, passo_s=0.1)
        finally:
            codigo = worker.terminar()
        presentes = {
            r["event_id"]
            for r in conn.execute(
                "SELECT event_id FROM core.event_log WHERE event_id = ANY(%(ids)s)",
                {"ids": list(prod.confirmados)},
            )
        }
        perdidos_no_log = len(prod.confirmados - presentes)
        primeira = _primeira_resposta_apos(conn, promovido_em)
        contagens = invariants.verificar(conn)
        repetidas = publicacoes_repetidas(conn)
    nome = f"failover (detection {promovido_em - morto_em:.1f} s)"
    relatorio.adicionar(
        Linha(
            nome, 1, contagens["eventos"], perdidos_no_log + contagens["perdidos"],
            contagens["duplicados"] + repetidas, [primeira] if primeira is not None else [],
        )
    )  # fmt: skip
    texto = worker.texto()
    assert codigo == 0, worker.cauda()
    assert "Traceback" not in texto, worker.cauda(6000)
    assert (perdidos_no_log, repetidas) == (0, 0)
    assert primeira is not None and primeira < PRIMEIRA_RESPOSTA_MAX_S, (primeira, worker.cauda())


ASSINCRONO = FULL or os.environ.get("D2_FAILOVER_ASYNC", "") not in ("", "0")
ATRASO_S = 1.0


class Leitor:
    """Downstream: a consumer of demanda.georreferenciada reading whichever server is the
    primary (the multi-host URL), as it would across a failover; it keeps every output it
    saw, by event_id, for each demanda_id."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.vistos: dict[str, set[str]] = {}
        self._parar = threading.Event()
        self._thread = threading.Thread(target=self._ler, daemon=True)

    def __enter__(self) -> Leitor:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._parar.set()
        self._thread.join(timeout=30)

    def repetidas(self) -> int:
        """Demands it saw answered by more than one demanda.georreferenciada."""
        return sum(len(v) > 1 for v in self.vistos.values())

    def _ler(self) -> None:
        while not self._parar.wait(0.05):
            try:
                with psycopg.connect(self.url, autocommit=True, connect_timeout=2) as conn:
                    while not self._parar.wait(0.05):
                        for event_id, demanda_id in conn.execute(
                            "SELECT event_id::text, payload ->> 'demanda_id' FROM core.event_log "
                            "WHERE tipo = 'demanda.georreferenciada'"
                        ):
                            self.vistos.setdefault(demanda_id, set()).add(event_id)
            except psycopg.Error:
                continue


@pytest.mark.skipif(not ASSINCRONO, reason="D2_FAILOVER_ASYNC=1 or D2_CHAOS_FULL=1 runs it")
def test_failover__asynchronous_standby_behind__what_it_costs_and_d2_stays_consistent(
    grupo: replication.Grupo, tmp_path: Path, relatorio: Relatorio
) -> None:
    """An asynchronous standby ATRASO_S behind (its WAL receiver stopped) when the primary
    dies: the log loses acknowledged events, D-2's answers to them vanish with them, and
    outputs published on the dying primary are published again on the new one. D-2 is
    consistent on the new primary all the same. The figures are the report's row."""
    primario = grupo.primario()
    _preparar_primario(primario.url(embedded.DBNAME))
    standby = grupo.standby(primario, sincrono=False)
    worker = ProcessoWorker(
        grupo.url(embedded.DBNAME, WORKER, SENHA), tmp_path / "worker.log", "--batch-size", "20"
    ).iniciar()
    esperar(worker.lider, timeout_s=60)
    with (
        psycopg.connect(primario.url(embedded.DBNAME), autocommit=True, row_factory=dict_row) as p,
        Leitor(grupo.url(embedded.DBNAME)) as leitor,
    ):
        with Produtores(grupo.url(embedded.DBNAME, COLONIA, SENHA), PRODUTORES, seed=38) as prod:
            esperar(lambda: prod.total() >= ANTES and _respostas(p) > 0, timeout_s=120)
            receptor = standby.walreceiver()
            os.kill(receptor, signal.SIGSTOP)
            try:
                time.sleep(ATRASO_S)
                primario.matar()
            finally:
                os.kill(receptor, signal.SIGCONT)
            standby.promover()
            depois = prod.total() + DEPOIS
            esperar(lambda: prod.total() >= depois, timeout_s=120, passo_s=0.05)
        with psycopg.connect(
            standby.url(embedded.DBNAME), autocommit=True, row_factory=dict_row
        ) as conn:
            try:
                esperar(lambda: lag(conn) == 0, timeout_s=120, passo_s=0.1)
                time.sleep(0.5)  # the reader's last look
            finally:
                codigo = worker.terminar()
    with psycopg.connect(
        standby.url(embedded.DBNAME), autocommit=True, row_factory=dict_row
    ) as conn:
        presentes = {
            r["event_id"]
            for r in conn.execute(
                "SELECT event_id FROM core.event_log WHERE event_id = ANY(%(ids)s)",
                {"ids": list(prod.confirmados)},
            )
        }
        perdidos_no_log = len(prod.confirmados - presentes)
        contagens = invariants.verificar(conn)
    relatorio.adicionar(
        Linha(
            f"failover, asynchronous ({ATRASO_S:g} s behind)", 1, contagens["eventos"],
            perdidos_no_log, leitor.repetidas(), [],
        )
    )  # fmt: skip
    assert codigo == 0, worker.cauda()
    assert "Traceback" not in worker.texto(), worker.cauda(6000)
    assert perdidos_no_log > 0  # the standby was behind: what synchronous replication avoids


def _d2(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*D2, *args],
        env=os.environ | {"DATABASE_URL": url},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_every_session_of_the_worker_ended_at_once__one_line_per_stage_and_no_traceback(
    conn: Conn, login_url: str, tmp_path: Path
) -> None:
    """A failover ends all of the worker's sessions at once (here pg_terminate_backend
    of every one of its login's sessions), also that of a stage resting between rounds
    while the loop already tells it to stop: each stage says in one JSON line that it
    lost its connection and reconnects, and nothing prints a traceback."""
    Territorio(conn)
    semear_cursor(conn)
    usuario = psycopg.conninfo.conninfo_to_dict(login_url)["user"]
    # Rounds of the geometry stage far apart: it rests, idle, when its session ends.
    worker = ProcessoWorker(
        login_url, tmp_path / "worker.log", "--batch-size", "10", D2_POLL_INTERVAL="2"
    ).iniciar()
    esperar(worker.lider, timeout_s=60)
    for _ in range(3):
        esperar(lambda: _sessoes(conn, "d2-territorio") > 0, timeout_s=60)
        inserir_evento(conn, payload_normalizada(-27.0, -49.0))
        esperar(lambda: lag(conn) == 0, timeout_s=60)
        time.sleep(0.3)
        mortas = conn.execute(
            "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) AS n "
            "FROM pg_stat_activity WHERE usename = %(u)s",
            {"u": usuario},
        ).fetchone()
        assert mortas is not None and mortas["n"] >= 4
        esperar(lambda: _sessoes(conn, "d2-worker") > 0, timeout_s=60)
    inserir_evento(conn, payload_normalizada(-27.0, -49.0))
    esperar(lambda: lag(conn) == 0, timeout_s=60)
    assert worker.terminar() == 0, worker.cauda()
    texto = worker.texto()
    assert "Traceback" not in texto, worker.cauda(6000)
    perdidas = [
        linha
        for linha in map(json.loads, texto.splitlines())
        if linha["msg"] == "Conexão perdida; reconectando"
    ]
    assert {"worker", "territorio"} <= {linha["estagio"] for linha in perdidas}, worker.cauda()
    invariants.verificar(conn)


def _sessoes(conn: Conn, aplicacao: str) -> int:
    row = conn.execute(
        "SELECT count(*) AS n FROM pg_stat_activity "
        "WHERE datname = current_database() AND application_name = %(a)s",
        {"a": aplicacao},
    ).fetchone()
    return int(row["n"]) if row else 0


def test_standby__reads_answer_and_a_command_that_would_apply_says_read_only(
    grupo: replication.Grupo,
) -> None:
    """On a hot standby `d2 resolve`, psql's d2.resolver_territorio and `d2 status` answer
    as on the primary; `d2 resolve`, which applies waiting changes of the mirror first,
    cannot there, and says in one line that the connection is read-only."""
    primario = grupo.primario()
    territorio = _preparar_primario(primario.url(embedded.DBNAME))
    standby = grupo.standby(primario)
    with psycopg.connect(primario.url(embedded.DBNAME), autocommit=True) as conn:
        # A change written to core.uc_polygons that no worker has applied yet.
        inserir_uc(
            conn, 2, "Bairro B1", poligono(quadrado(-45, -30, -42.5, -25)), territorio.mun_b,
            sincronizar=False,
        )  # fmt: skip
    url = standby.url(embedded.DBNAME)
    with psycopg.connect(url, autocommit=True) as conn:
        esperar(
            lambda: conn.execute("SELECT count(*) FROM d2.mirror_mudancas").fetchone() != (0,),
            timeout_s=30,
        )
    resolvido = _d2(url, "resolve", "-27.0", "-49.0")
    assert resolvido.returncode == 0, resolvido.stderr
    assert json.loads(resolvido.stdout)["unidade_civica_id"] == str(territorio.bairro_a1)
    linhas = resolvido.stderr.splitlines()
    assert len(linhas) == 1 and "this connection is read-only (a hot standby)" in linhas[0], (
        resolvido.stderr
    )
    psql = subprocess.run(
        [str(embedded.bindir() / "psql"), url, "-XAtq", "-c",
         "SELECT unidade_civica_id FROM d2.resolver_territorio(-27.0, -49.0)"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert psql.returncode == 0 and psql.stdout.strip() == str(territorio.bairro_a1), psql.stderr
    # psql's user is told the same, not sent to a `d2 mirror sync` a standby cannot run.
    assert "this server is a hot standby" in psql.stderr, psql.stderr
    assert "d2 mirror sync" not in psql.stderr, psql.stderr
    # A command that must write there fails in one line that says why.
    for comando in (["revisoes", "reprocessar"], ["worker", "--drain"]):
        recusado = _d2(url, *comando)
        assert recusado.returncode != 0 and "Traceback" not in recusado.stderr, recusado.stderr
        assert "this connection is read-only" in recusado.stderr.splitlines()[-1], recusado.stderr
    status = _d2(url, "status", "--json")
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["mirror"]
    # The primary, where the same command applies the change first, answers the same.
    assert _d2(primario.url(embedded.DBNAME), "resolve", "-27.0", "-49.0").stdout == (
        resolvido.stdout
    )
