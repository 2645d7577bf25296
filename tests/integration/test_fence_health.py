"""The event log's fence held by any login.

Readers take only events below the oldest transaction with an id still running in the
cluster (docs/reliability.md, section 7), so `BEGIN; SELECT pg_current_xact_id();` left
open, by a login with no grants, from another database of the cluster, holds every
demand committed after it. D-2 cannot stop that; it names it: past
D2_FENCE_MAX_SECONDS /healthz turns 503 with the session (pid, role, database,
application) in its body, the worker logs a WARNING naming it, the metric
d2_event_log_cerca_pid carries its pid, and `d2 status` names it too.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg.rows import dict_row

from d2.eventlog import bus
from d2.handler import handler
from d2.ops import status
from tests.chaos.processes import ProcessoWorker, esperar, matar_restantes
from tests.conftest import Server
from tests.support import Conn, healthz, metric, papel_de_login, porta_livre, semear_cursor
from tests.support.events import inserir_evento, payload_normalizada
from tests.support.territorio import Territorio


@pytest.fixture
def fence_presa(conn: Conn, pg_server: Server) -> Iterator[Conn]:
    """A login with no grants, connected to another database of the cluster, in an open
    transaction that took an id: the oldest in the cluster, so the readers' fence."""
    with papel_de_login(conn, pg_server, "atacante", senha="x") as (nome, _):
        c = psycopg.connect(
            dataclasses.replace(pg_server, user=nome, password="x").url("postgres"),
            autocommit=True,
            row_factory=dict_row,
            application_name="cerca-presa",
        )
        try:
            c.execute("BEGIN")
            c.execute("SELECT pg_current_xact_id()")
            yield c
        finally:
            c.close()  # no commit: a test may have ended the session already


def _tratado(conn: Conn) -> bool:
    return conn.execute("SELECT count(*) AS n FROM d2.eventos_processados").fetchone() == {"n": 1}


def test_healthz__a_transaction_in_another_database_holding_the_fence_is_named(
    conn: Conn, db_url: str, tmp_path: Path, fence_presa: Conn
) -> None:
    Territorio(conn)
    semear_cursor(conn)
    pid = int(fence_presa.info.backend_pid)
    porta = porta_livre()
    worker = ProcessoWorker(
        db_url, tmp_path / "w.log", D2_METRICS_PORT=str(porta), D2_FENCE_MAX_SECONDS="1"
    ).iniciar()
    try:
        esperar(lambda: healthz(porta)[0] == 200, timeout_s=30)
        inserir_evento(conn, payload_normalizada(-27.0, -49.0))  # committed, and held

        esperar(lambda: healthz(porta)[0] == 503, timeout_s=20)
        codigo, corpo = healthz(porta)
        assert codigo == 503 and corpo["status"] == "degraded", corpo
        sessao = corpo["cerca"]["sessao"]
        assert (sessao["pid"], sessao["banco"], sessao["aplicacao"]) == (
            pid,
            "postgres",
            "cerca-presa",
        )
        assert sessao["usuario"] == fence_presa.info.user
        assert corpo["cerca"]["retidos"] == 1 and corpo["cerca"]["retidos_s"] >= 1  # rounded
        assert f"pid {pid} " in corpo["motivo"] and "pg_terminate_backend" in corpo["motivo"]
        assert metric(porta, "d2_event_log_cerca_pid") == pid
        esperar(lambda: "Cerca do log de eventos retida" in worker.texto(), timeout_s=5)
        linha = next(json.loads(x) for x in worker.texto().splitlines() if "Cerca do log" in x)
        assert linha["level"] == "warning" and linha["sessao"]["pid"] == pid
        # d2 status names it too (as the owner here; as d2_worker the same, see below).
        texto = status.formatar_status(status.status(conn))
        assert f"pid {pid} " in texto and "'cerca-presa'" in texto
        assert not _tratado(conn)

        # The session ends: the demand goes through, /healthz is 200 again.
        conn.execute("SELECT pg_terminate_backend(%s)", [pid])
        esperar(lambda: _tratado(conn), timeout_s=20)
        esperar(lambda: healthz(porta)[0] == 200, timeout_s=10)
        assert metric(porta, "d2_event_log_cerca_pid") == 0
    finally:
        worker.terminar()
        matar_restantes()


def test_fence_holder__the_worker_role_sees_who_holds_the_fence(
    conn: Conn, como_worker: Conn, fence_presa: Conn
) -> None:
    """What d2_worker sees of another role's session in another database, with no
    pg_read_all_stats: pid, role, database, application (not how long it has been open),
    enough to name it; so the worker needs no privilege beyond its own."""
    semear_cursor(conn)
    inserir_evento(conn, payload_normalizada(-27.0, -49.0))
    assert bus.fence(como_worker, handler.TIPO_ENTRADA).retidos == 1
    sessao = bus.fence_holder(como_worker)
    assert sessao is not None
    assert sessao["pid"] == fence_presa.info.backend_pid
    assert (sessao["usuario"], sessao["banco"]) == (fence_presa.info.user, "postgres")
    assert sessao["aplicacao"] == "cerca-presa" and sessao["transacao_s"] is None
