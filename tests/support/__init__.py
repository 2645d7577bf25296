"""The tests' shared harness, loaded as a pytest plugin by tests/conftest.py: the
connection type, the test territory, the demand worker's cursor, a drain, a free port and
a worker's /healthz and /metrics. Fixtures here
are available to every test; the functions are imported (`from tests.support import …`).

The database fixtures themselves (a throw-away cluster, one migrated clone per test) are
tests/conftest.py's; the cluster comes from d2.embedded.temporario, as the benchmarks'."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import random
import socket
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.rows import dict_row

from d2 import config, db
from d2.handler import handler
from d2.worker import loop
from tests.support.events import inserir_evento, payload_normalizada
from tests.support.territorio import Territorio, TerritorioDrawings

Conn = db.Connection
"""An autocommit connection with dict rows, as the `conn` fixture gives."""

TIPO_DEMANDA = handler.TIPO_ENTRADA


def porta_livre() -> int:
    """A TCP port of the loopback no one listens on now (for a metrics port, a server)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def healthz(porta: int) -> tuple[int, dict[str, Any]]:
    """A worker's /healthz on that port: (status, body); (0, {}) while nothing answers."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{porta}/healthz", timeout=5) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())
    except OSError:
        return 0, {}


def metric(porta: int, nome: str) -> float | None:
    """The value of an unlabelled metric on a worker's /metrics, None when absent."""
    with urllib.request.urlopen(f"http://127.0.0.1:{porta}/metrics", timeout=5) as r:
        for linha in r.read().decode().splitlines():
            if linha.startswith(nome + " "):
                return float(linha.split()[1])
    return None


def esperar(condicao: Callable[[], bool], timeout_s: float = 30.0) -> bool:
    """Whether condicao() holds within timeout_s, asked every 50 ms (a worker running on
    a thread of the test, a port it serves)."""
    limite = time.monotonic() + timeout_s
    while not condicao() and time.monotonic() < limite:
        time.sleep(0.05)
    return condicao()


def semear_cursor(
    conn: Conn, tipo: str = TIPO_DEMANDA, apos: int = 0, *, mover: bool = False
) -> None:
    """The consumer's cursor at sequence `apos` (0: the whole log is to be read), as a
    worker that booted before the events were published would have it. A cursor that
    exists already is left alone, unless mover (a restart that lost or rewound it)."""
    conn.execute(
        "INSERT INTO d2.consumer_offset (tipo_evento, last_sequence) VALUES (%(t)s, %(s)s) "
        "ON CONFLICT (tipo_evento) DO UPDATE SET last_sequence = EXCLUDED.last_sequence "
        "WHERE %(mover)s",
        {"t": tipo, "s": apos, "mover": mover},
    )


def drenar(
    db_url: str, settings: config.Settings | None = None, batch_size: int = 50
) -> handler.Result:
    """Everything pending through the real worker loop (`d2 worker --drain`), in process."""
    runner = loop.Worker(settings or config.load(), url=db_url, batch_size=batch_size)
    return runner.executar(drain=True)


def publicar_endereco(conn: Conn, entidades: dict[str, Any] | None, gps: Any = None) -> uuid.UUID:
    """A demanda.normalizada whose place is an address (entidades_extraidas), with gps as
    its coordenadas_validadas (None: no position)."""
    payload = payload_normalizada(entidades_extraidas=entidades or {})
    payload["coordenadas_validadas"] = gps
    return inserir_evento(conn, payload)


def resposta_endereco(conn: Conn, event_id: uuid.UUID) -> dict[str, Any]:
    """How an address demand ended: its resolution (método, confiança, município code,
    the UC's name), what the geocoding stage recorded (passo, precisão, searches, motivo),
    and whether it waits for the geocoder or for a review."""
    row = conn.execute(
        """
        SELECT r.metodo_resolucao, r.confianca_geo, g.passo, g.precisao, g.consultas, g.motivo,
               (SELECT u.metadados ->> 'codigo_municipio' FROM core.uc_polygons u
                WHERE u.unidade_civica_id = ANY(r.cadeia_ucs) AND u.nivel = 4 LIMIT 1)
                   AS municipio,
               (SELECT u.nome FROM core.uc_polygons u
                WHERE u.unidade_civica_id = r.unidade_civica_id LIMIT 1) AS uc_nome,
               EXISTS (SELECT 1 FROM d2.geocodificacoes_pendentes p WHERE p.event_id = %(id)s)
                   AS parada,
               EXISTS (SELECT 1 FROM d2.revisoes_geo_pendentes v WHERE v.event_id = %(id)s)
                   AS em_revisao
        FROM (SELECT %(id)s::uuid AS event_id) e
        LEFT JOIN d2.resolucoes_geo r ON r.event_id = e.event_id
        LEFT JOIN d2.geocodificacoes g ON g.event_id = e.event_id
        """,
        {"id": event_id},
    ).fetchone()
    assert row is not None
    return dict(row)


def backlog(conn: Conn, n: int, seed: int = 1) -> None:
    """A mixed backlog of n demands in one transaction, the same for the same seed: valid
    (most), outside every polygon, invalid coordinates, without coordinates, malformed
    (dead letter) and duplicated demanda_id. Seed the cursor first (semear_cursor)."""
    rng = random.Random(seed)
    repetidas = [str(uuid.uuid4()) for _ in range(max(1, n // 100))]
    with conn.transaction():
        for _ in range(n):
            sorteio = rng.random()
            payload: Any
            if sorteio < 0.05:
                payload = {"demanda_id": "não-é-uuid"}
            elif sorteio < 0.10:
                payload = payload_normalizada(rng.uniform(0, 5), rng.uniform(0, 5))
            elif sorteio < 0.13:
                payload = payload_normalizada(123.0, 0.0)
            elif sorteio < 0.15:
                payload = payload_normalizada(coordenadas_validadas=None)
            elif sorteio < 0.20:
                payload = payload_normalizada(
                    rng.uniform(-30, -25), rng.uniform(-50, -40), demanda_id=rng.choice(repetidas)
                )
            else:
                payload = payload_normalizada(rng.uniform(-30, -25), rng.uniform(-50, -40))
            inserir_evento(
                conn, payload, correlacao_id=uuid.uuid4() if rng.random() < 0.3 else None
            )


@contextlib.contextmanager
def papel_de_login(
    conn: Conn, servidor: Any, prefixo: str, *, senha: str = "x", membro_de: str | None = None
) -> Iterator[tuple[str, str]]:
    """A new LOGIN role (in membro_de, if given) and its URL to conn's database, on
    servidor (tests/conftest.py's Server); on exit its sessions are ended and the role
    dropped with whatever it owned or was granted."""
    nome = f"{prefixo}_{uuid.uuid4().hex[:10]}"
    criar = sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(
        sql.Identifier(nome), sql.Literal(senha)
    )
    if membro_de is not None:
        criar += sql.SQL(" IN ROLE {}").format(sql.Identifier(membro_de))
    conn.execute(criar)
    banco = conn.execute("SELECT current_database() AS d").fetchone()
    assert banco is not None
    try:
        yield nome, dataclasses.replace(servidor, user=nome, password=senha).url(banco["d"])
    finally:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %(n)s",
            {"n": nome},
        )
        conn.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(nome)))
        conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(nome)))


@pytest.fixture
def colonia(conn: Conn, pg_server: Any) -> Iterator[Conn]:
    """Another colony's login, as the monolith gives one: INSERT on core.event_log (and
    the USAGE a plain INSERT needs on its schema and numbering sequence), nothing else;
    an autocommit connection as it."""
    with papel_de_login(conn, pg_server, "colonia") as (nome, url):
        papel = sql.Identifier(nome)
        serial = conn.execute(
            "SELECT pg_get_serial_sequence('core.event_log', 'sequence_number') AS s"
        ).fetchone()
        assert serial is not None and serial["s"]
        conn.execute(sql.SQL("GRANT USAGE ON SCHEMA core TO {}").format(papel))
        conn.execute(sql.SQL("GRANT INSERT ON core.event_log TO {}").format(papel))
        conn.execute(
            sql.SQL("GRANT USAGE ON SEQUENCE {} TO {}").format(sql.SQL(serial["s"]), papel)
        )
        with psycopg.connect(url, autocommit=True, row_factory=dict_row) as c:
            yield c


@pytest.fixture(autouse=True)
def _d2_logs_restored() -> Iterator[None]:
    """A command run in process sends d2's logs to a handler of its own and stops their
    propagation (logs.configure): put the logger back, so a later test's caplog sees them."""
    registrador = logging.getLogger("d2")
    handlers, nivel, propaga = registrador.handlers[:], registrador.level, registrador.propagate
    yield
    registrador.handlers[:] = handlers
    registrador.setLevel(nivel)
    registrador.propagate = propaga


@pytest.fixture
def settings() -> config.Settings:
    """The settings from this test's environment (monkeypatch D2_* before asking)."""
    return config.load()


@pytest.fixture
def territorio(conn: Conn) -> Territorio:
    """The small test territory of tests/support/territorio.py, in this test's database."""
    return Territorio(conn)


@pytest.fixture
def territorio_drawings(conn: Conn) -> TerritorioDrawings:
    """Where the tests draw citizens' polygons (tests/support/territorio.py), all of it IBGE."""
    return TerritorioDrawings(conn)


# --- the worker's login: a LOGIN role holding d2_worker and nothing else ----------------

SENHA_WORKER = "S3nha-Sup3r-Secreta-d2"


@pytest.fixture
def login_url(db_url: str, pg_server: Any, conn: Conn) -> Iterator[str]:
    """A LOGIN role (with a password) that holds d2_worker and nothing else, as the
    worker runs in a shared database; its URL on this test's database."""
    with papel_de_login(conn, pg_server, "d2_app", senha=SENHA_WORKER, membro_de="d2_worker") as (
        _,
        url,
    ):
        yield url


@pytest.fixture
def como_worker(login_url: str) -> Iterator[Conn]:
    """A connection as that login, autocommit."""
    with psycopg.connect(login_url, autocommit=True, row_factory=dict_row) as c:
        yield c


def planos_aninhados(conn: Conn, consulta: str, parametros: dict[str, Any]) -> list[Any]:
    """The plans (EXPLAIN's JSON) of every statement a query runs, those inside the
    PL/pgSQL functions it calls included (auto_explain's nested-statement report), run
    once in a transaction of their own with sequential scans off: a function keeps one
    generic plan for the session, which EXPLAIN of the call does not show."""
    planos: list[Any] = []

    def guardar(diag: psycopg.errors.Diagnostic) -> None:
        texto = diag.message_primary or ""
        if "plan:" in texto:
            planos.append(json.loads(texto.split("plan:", 1)[1]))

    conn.add_notice_handler(guardar)
    try:
        with conn.transaction():
            conn.execute("LOAD 'auto_explain'")
            conn.execute("SET LOCAL auto_explain.log_min_duration = 0")
            conn.execute("SET LOCAL auto_explain.log_nested_statements = on")
            conn.execute("SET LOCAL auto_explain.log_format = 'json'")
            conn.execute("SET LOCAL client_min_messages = log")
            conn.execute("SET LOCAL enable_seqscan = off")
            conn.execute(consulta, parametros).fetchall()
    finally:
        conn.remove_notice_handler(guardar)
    return planos
