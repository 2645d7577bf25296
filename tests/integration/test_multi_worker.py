"""Several `d2 worker` processes on one database (docs/reliability.md, section 2).

One leader at a time (a lock on d2.worker_lideranca only d2_worker may take, held on a
connection of its own: sql/functions/lideranca_tentar.sql): the others wait as standbys.
Nothing is handled twice, the cursor never races, and when the leader is SIGKILLed (or
only its lock's connection ends) a standby takes over within seconds. A role that is not
d2_worker cannot take the leadership.
"""

from __future__ import annotations

import functools
import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from d2 import db
from tests.chaos.processes import (
    STANDBY,
    ProcessoWorker,
    esperar,
    lag,
    matar_restantes,
    publicacoes_repetidas,
)
from tests.conftest import Server
from tests.support import (
    Conn,
    backlog,
    healthz,
    invariants,
    papel_de_login,
    porta_livre,
    semear_cursor,
)
from tests.support.events import inserir_evento, payload_normalizada
from tests.support.territorio import Territorio

TAKEOVER_MAX_S = 10.0


@pytest.fixture(autouse=True)
def sem_workers_orfaos() -> Iterator[None]:
    yield
    matar_restantes()


def _event_ids_tratados(worker: ProcessoWorker) -> list[str]:
    """Events this process logged a handler outcome for (one line per event it handled)."""
    tratados = []
    for linha in worker.texto().splitlines():
        if not linha.startswith("{"):
            continue
        registro = json.loads(linha)
        if registro.get("logger") == "d2.handler" and registro.get("event_id"):
            tratados.append(registro["event_id"])
    return tratados


def test_multi_worker__three_workers_handle_each_event_exactly_once(
    conn: Conn, db_url: str, tmp_path: Path
) -> None:
    Territorio(conn)
    semear_cursor(conn)
    backlog(conn, 600, seed=11)
    workers = [
        ProcessoWorker(db_url, tmp_path / f"w{i}.log", "--batch-size", "7").iniciar()
        for i in range(3)
    ]
    try:
        # More events arrive while they run.
        for vez in range(5):
            backlog(conn, 40, seed=100 + vez)
            time.sleep(0.2)
        esperar(lambda: lag(conn) == 0, timeout_s=120)
    finally:
        codigos = terminar_todos(workers)
    assert codigos == [0, 0, 0]
    assert sum(w.lider() for w in workers) == 1, "exactly one worker ever led"
    por_worker = [_event_ids_tratados(w) for w in workers]
    todos = [e for lista in por_worker for e in lista]
    assert len(todos) == len(set(todos)), "an event handled twice"
    contagens = invariants.verificar(conn)
    assert contagens["eventos"] == 800 and len(set(todos)) == 800
    assert publicacoes_repetidas(conn) == 0


def test_multi_worker__standby_takes_over_within_seconds_after_sigkill(
    conn: Conn, db_url: str, tmp_path: Path
) -> None:
    Territorio(conn)
    semear_cursor(conn)
    vivos = [
        ProcessoWorker(db_url, tmp_path / f"w{i}.log", "--batch-size", "5").iniciar()
        for i in range(2)
    ]
    tempos: list[float] = []
    try:
        for ciclo in range(3):
            backlog(conn, 100, seed=20 + ciclo)
            esperar(lambda: lag(conn) == 0, timeout_s=60)
            lider = _o_lider(vivos)
            lider.matar()
            vivos.remove(lider)
            inicio = time.monotonic()
            # Published right after the kill: handled once a standby has taken over.
            novo = inserir_evento(conn, payload_normalizada(-27.0, -49.0))
            esperar(functools.partial(_tratado, conn, novo), timeout_s=TAKEOVER_MAX_S + 20)
            tempos.append(time.monotonic() - inicio)
            vivos.append(
                ProcessoWorker(db_url, tmp_path / f"novo{ciclo}.log", "--batch-size", "5").iniciar()
            )
        # Once more in the middle of a backlog: nothing lost, nothing published twice.
        backlog(conn, 400, seed=99)
        time.sleep(0.5)
        _o_lider(vivos).matar()
        esperar(lambda: lag(conn) == 0, timeout_s=120)
    finally:
        codigos = terminar_todos([w for w in vivos if w.vivo()])
    assert set(codigos) == {0}
    print(f"\ntakeover after SIGKILL (s): {', '.join(f'{t:.2f}' for t in tempos)}")
    assert max(tempos) < TAKEOVER_MAX_S, tempos
    contagens = invariants.verificar(conn)
    assert contagens["perdidos"] == 0 and contagens["duplicados"] == 0
    assert publicacoes_repetidas(conn) == 0


def _o_lider(workers: list[ProcessoWorker]) -> ProcessoWorker:
    """The one live worker that leads (waits for a standby to take over if needed)."""
    esperar(lambda: sum(w.lider() for w in workers if w.vivo()) == 1, timeout_s=30)
    [lider] = [w for w in workers if w.vivo() and w.lider()]
    return lider


def terminar_todos(workers: list[ProcessoWorker]) -> list[int]:
    """SIGTERM the standbys first, then the leader, so no standby takes over on the way.
    Each one is first seen leading or standing by: a SIGTERM before a worker installed its
    handlers (a slow start on a loaded machine) would kill it (-15), not stop it."""
    for w in workers:
        esperar(lambda w=w: w.lider() or STANDBY in w.texto(), timeout_s=60)
    ordem = sorted(workers, key=lambda w: w.lider())
    return [w.terminar() for w in ordem]


def _tratado(conn: Conn, event_id: uuid.UUID) -> bool:
    row = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM d2.eventos_processados WHERE event_id = %(id)s) AS ok",
        {"id": event_id},
    ).fetchone()
    return bool(row and row["ok"])


# --- leadership only workers can take ----------------------------------------------------

_SEGURA_O_LOCK = """
SELECT l.pid FROM pg_locks l
WHERE l.locktype = 'relation' AND l.relation = 'd2.worker_lideranca'::regclass
  AND l.mode = 'ExclusiveLock' AND l.granted
"""


def _nome_do_banco(conn: Conn) -> str:
    row = conn.execute("SELECT current_database() AS d").fetchone()
    assert row is not None
    return str(row["d"])


@pytest.fixture
def intruso(conn: Conn, pg_server: Server) -> Iterator[str]:
    """A LOGIN role that is not d2_worker, given the most an outsider might be given on the
    lock's table (USAGE on d2, SELECT on it); its URL."""
    with papel_de_login(conn, pg_server, "intruso") as (nome, url):
        conn.execute(
            sql.SQL(
                "GRANT USAGE ON SCHEMA d2 TO {0}; GRANT SELECT ON d2.worker_lideranca TO {0}"
            ).format(sql.Identifier(nome))
        )
        yield url


def test_leadership__an_ordinary_role_cannot_keep_the_workers_in_standby(
    conn: Conn, db_url: str, tmp_path: Path, intruso: str
) -> None:
    Territorio(conn)
    semear_cursor(conn)
    with psycopg.connect(intruso) as c:
        # The old leadership key, and every lock the role may try on the new one.
        c.execute("SELECT pg_advisory_lock(hashtext('d2.worker.demanda.normalizada')::bigint)")
        c.execute("LOCK TABLE d2.worker_lideranca IN ACCESS SHARE MODE")  # allowed: harmless
        for ataque in (
            "LOCK TABLE d2.worker_lideranca IN EXCLUSIVE MODE NOWAIT",
            "LOCK TABLE d2.worker_lideranca IN SHARE ROW EXCLUSIVE MODE NOWAIT",
            "SELECT * FROM d2.worker_lideranca FOR UPDATE",
            "SELECT d2.lideranca_tentar()",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege), c.transaction():
                c.execute(ataque)
        # The role sits there, its transaction and session open, while a worker starts.
        worker = ProcessoWorker(db_url, tmp_path / "w.log").iniciar()
        novo = inserir_evento(conn, payload_normalizada(-27.0, -49.0))
        esperar(functools.partial(_tratado, conn, novo), timeout_s=TAKEOVER_MAX_S + 20)
        assert worker.lider()
    assert worker.terminar() == 0


def test_leadership__a_cursor_moved_by_a_leader_that_lost_its_lock_is_refused(
    conn: Conn, db_url: str
) -> None:
    """The fence: the writing connection names the session that holds the lock; once that
    session is gone, moving the cursor fails the batch (transient: back to standby)."""
    semear_cursor(conn)
    with psycopg.connect(db_url) as lock:
        assert lock.execute("SELECT d2.lideranca_tentar()").fetchone() == (True,)
        pid = lock.info.backend_pid
        with psycopg.connect(db_url) as outro:
            assert outro.execute("SELECT d2.lideranca_tentar()").fetchone() == (False,)
        with psycopg.connect(db_url, autocommit=True) as escrita:
            escrita.execute("SELECT set_config('d2.lideranca_pid', %s, false)", [str(pid)])
            escrita.execute("UPDATE d2.consumer_offset SET last_sequence = 1")
    with psycopg.connect(db_url, autocommit=True) as escrita:
        escrita.execute("SELECT set_config('d2.lideranca_pid', %s, false)", [str(pid)])
        with pytest.raises(psycopg.Error, match="liderança perdida") as recusa:
            escrita.execute("UPDATE d2.consumer_offset SET last_sequence = 2")
    assert recusa.value.sqlstate == db.LEADERSHIP_LOST  # transient, never dead-lettered
    assert db.is_transient(recusa.value) and db.leadership_lost(recusa.value)
    assert conn.execute("SELECT last_sequence FROM d2.consumer_offset").fetchone() == {
        "last_sequence": 1
    }


def test_leadership__terminated_lock_connection_hands_over_without_duplicates(
    conn: Conn, db_url: str, tmp_path: Path
) -> None:
    """Only the lock's connection dies (the leader process and its writing connection
    live on, mid-backlog): a standby takes over, the old leader goes back to standby,
    nothing is lost or published twice."""
    Territorio(conn)
    semear_cursor(conn)
    workers = [
        ProcessoWorker(db_url, tmp_path / f"w{i}.log", "--batch-size", "5").iniciar()
        for i in range(2)
    ]
    try:
        lider = _o_lider(workers)
        [outro] = [w for w in workers if w is not lider]
        backlog(conn, 400, seed=31)
        esperar(lambda: 0 < lag(conn) < 380, timeout_s=60)
        [segura] = conn.execute(_SEGURA_O_LOCK).fetchall()
        inicio = time.monotonic()
        conn.execute("SELECT pg_terminate_backend(%(pid)s)", {"pid": segura["pid"]})
        esperar(outro.lider, timeout_s=TAKEOVER_MAX_S)
        print(
            f"\ntakeover after the lock's connection was terminated: "
            f"{time.monotonic() - inicio:.2f} s"
        )
        esperar(lambda: lag(conn) == 0, timeout_s=120)
        assert lider.vivo() and outro.vivo()
    finally:
        codigos = terminar_todos([w for w in workers if w.vivo()])
    assert codigos == [0, 0]
    contagens = invariants.verificar(conn)
    assert contagens["perdidos"] == 0 and contagens["duplicados"] == 0
    assert publicacoes_repetidas(conn) == 0


def test_leadership__idle_leader_outlives_idle_in_transaction_timeout_holding_no_xmin(
    conn: Conn, db_url: str, tmp_path: Path
) -> None:
    """The lock's transaction stays open for as long as the worker leads: a database-wide
    idle_in_transaction_session_timeout must not end it, and it must not hold back
    VACUUM (no transaction id, no snapshot)."""
    Territorio(conn)
    semear_cursor(conn)
    conn.execute(
        sql.SQL("ALTER DATABASE {} SET idle_in_transaction_session_timeout = '300ms'").format(
            sql.Identifier(_nome_do_banco(conn))
        )
    )
    worker = ProcessoWorker(db_url, tmp_path / "w.log").iniciar()
    try:
        esperar(worker.lider, timeout_s=20)
        time.sleep(1.5)

        def ocioso_sem_xmin() -> bool:
            row = conn.execute(
                "SELECT a.state, a.backend_xid, a.backend_xmin FROM pg_stat_activity a "
                "WHERE a.pid IN (" + _SEGURA_O_LOCK + ")"
            ).fetchone()
            return row == {
                "state": "idle in transaction",
                "backend_xid": None,
                "backend_xmin": None,
            }

        esperar(ocioso_sem_xmin, timeout_s=5)
        novo = inserir_evento(conn, payload_normalizada(-27.0, -49.0))
        esperar(functools.partial(_tratado, conn, novo), timeout_s=20)
        assert worker.texto().count(LIDER_LINHA) == 1, worker.cauda()
    finally:
        assert worker.terminar() == 0


LIDER_LINHA = "Worker ativo (liderança obtida)"


def test_healthz__standby_beyond_d2_standby_max_seconds_is_unhealthy(
    conn: Conn, db_url: str, tmp_path: Path
) -> None:
    Territorio(conn)
    semear_cursor(conn)
    lider = ProcessoWorker(db_url, tmp_path / "a.log").iniciar()
    esperar(lider.lider, timeout_s=20)
    porta = porta_livre()
    standby = ProcessoWorker(
        db_url, tmp_path / "b.log", D2_METRICS_PORT=str(porta), D2_STANDBY_MAX_SECONDS="1"
    ).iniciar()
    try:
        esperar(lambda: STANDBY in standby.texto(), timeout_s=20)
        esperar(lambda: healthz(porta)[0] == 503, timeout_s=10)
        codigo, corpo = healthz(porta)
        assert codigo == 503 and corpo["motivo"] == "standby beyond D2_STANDBY_MAX_SECONDS"
        assert corpo["standby_s"] > 1 and corpo["lider"] is False
        assert lider.terminar() == 0
        esperar(lambda: healthz(porta)[0] == 200, timeout_s=TAKEOVER_MAX_S)
        assert standby.lider()
    finally:
        terminar_todos([w for w in (lider, standby) if w.vivo()])
