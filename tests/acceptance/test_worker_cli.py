"""The real `d2 worker` as a subprocess: SIGTERM, SIGKILL mid-backlog, database restart."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg
import pytest

from d2 import embedded
from tests.conftest import Server
from tests.support import Conn, backlog, invariants, semear_cursor
from tests.support.territorio import Territorio

D2 = [sys.executable, "-m", "d2.cli"]


_LOGS = Path(tempfile.gettempdir()) / f"d2-acceptance-{os.getpid()}"


def iniciar_worker(db_url: str, *args: str) -> subprocess.Popen[bytes]:
    """The worker as a process; its JSON logs go to a file (a pipe nobody reads would fill
    up and block it)."""
    env = os.environ | {"DATABASE_URL": db_url, "D2_POLL_INTERVAL": "0.2"}
    _LOGS.mkdir(exist_ok=True)
    with open(_LOGS / "worker.log", "ab") as logs:
        return subprocess.Popen(
            [*D2, "worker", *args], env=env, stdout=subprocess.DEVNULL, stderr=logs
        )


def ultimas_linhas() -> str:
    return (_LOGS / "worker.log").read_text(errors="replace")[-3000:]


def esperar_fim(conn: Conn, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        row = conn.execute(
            "SELECT lag FROM d2.v_consumer_lag WHERE tipo_evento = 'demanda.normalizada'"
        ).fetchone()
        if row and row["lag"] == 0:
            return
        time.sleep(0.1)
    raise AssertionError("worker did not catch up")


def test_worker__sigterm_finishes_and_exits_zero(db_url: str, conn: Conn) -> None:
    Territorio(conn)
    semear_cursor(conn)
    backlog(conn, 300)
    proc = iniciar_worker(db_url, "--batch-size", "10")
    esperar_fim(conn)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=20) == 0
    invariants.verificar(conn)


def test_worker__drain_processes_everything_and_exits_zero(db_url: str, conn: Conn) -> None:
    Territorio(conn)
    semear_cursor(conn)
    backlog(conn, 500)
    proc = iniciar_worker(db_url, "--drain")
    assert proc.wait(timeout=120) == 0
    counts = invariants.verificar(conn)
    assert counts["resolvidos"] > 300 and counts["dead_letters"] > 0 and counts["pendentes"] > 0


def test_worker__sigkill_mid_backlog_then_restart_loses_nothing(db_url: str, conn: Conn) -> None:
    Territorio(conn)
    semear_cursor(conn)
    backlog(conn, 3000)
    rng = random.Random(5)
    for _ in range(6):
        proc = iniciar_worker(db_url, "--batch-size", str(rng.choice([1, 7, 50])))
        time.sleep(rng.uniform(0.5, 1.5))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    assert iniciar_worker(db_url, "--drain").wait(timeout=300) == 0
    counts = invariants.verificar(conn)
    assert counts["eventos"] == 3000 and counts["perdidos"] == 0 and counts["duplicados"] == 0


def test_worker__database_restart_under_running_worker(
    db_url: str, conn: Conn, pg_server: Server
) -> None:
    if pg_server.home is None:
        pytest.skip("external server: cannot restart it")
    Territorio(conn)
    semear_cursor(conn)
    backlog(conn, 2000)
    proc = iniciar_worker(db_url, "--batch-size", "5")
    try:
        _restart_under(proc, db_url, pg_server)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _restart_under(proc: subprocess.Popen[bytes], db_url: str, pg_server: Server) -> None:
    assert pg_server.home is not None
    time.sleep(1.0)
    embedded.restart(Path(pg_server.home))
    with psycopg.connect(db_url, autocommit=True, row_factory=psycopg.rows.dict_row) as fresh:
        esperar_fim(fresh, timeout_s=180)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0, ultimas_linhas()
        counts = invariants.verificar(fresh)
    assert counts["perdidos"] == 0 and counts["duplicados"] == 0


def test_worker__configuration_error_exits_non_zero_at_once(db_url: str) -> None:
    """Wrong credentials or a malformed URL cannot be fixed by retrying: exit 2, one line."""
    for url in ("postgresql://x@localhost:notaport/z", db_url.replace("postgres@", "nobody@")):
        proc = subprocess.run(
            [*D2, "worker"],
            env=os.environ | {"DATABASE_URL": url},
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.startswith("d2: error: cannot connect to the database")
        assert len(proc.stderr.strip().splitlines()) == 1


def test_worker__bad_setting_exits_2_with_one_line(db_url: str) -> None:
    proc = subprocess.run(
        [*D2, "worker"],
        env=os.environ | {"DATABASE_URL": db_url, "D2_BATCH_SIZE": "lots"},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == "d2: error: D2_BATCH_SIZE must be an integer, got 'lots'"
