"""A connection lost under D-2 (a failover, pg_terminate_backend, a restart): told apart
from other transient failures, mapped wherever it surfaces (also in the restore of a
bounded block), and waited for by probing the URL rather than by a grown backoff."""

from __future__ import annotations

import threading
import time

import pytest

from d2 import db, errors, locks
from tests.support import Conn


def _terminar(conn: Conn, alvo: db.Connection) -> None:
    pid = alvo.info.backend_pid
    conn.execute("SELECT pg_terminate_backend(%(p)s)", {"p": pid})
    prazo = time.monotonic() + 10
    while conn.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %(p)s", {"p": pid}).fetchone():
        assert time.monotonic() < prazo
        time.sleep(0.02)


def test_limites__session_ended_inside_the_block__the_restore_raises_a_mapped_error(
    conn: Conn, db_url: str
) -> None:
    with db.connect(db_url, autocommit=True) as sessao:
        with pytest.raises(errors.TransientDatabaseError) as perdida:
            with locks.limites(sessao, statement_s=5):
                _terminar(conn, sessao)
        assert db.conexao_perdida(perdida.value)


def test_limites__a_failure_of_the_block_is_not_replaced_by_the_failed_restore(
    conn: Conn, db_url: str
) -> None:
    with db.connect(db_url, autocommit=True) as sessao:
        with pytest.raises(errors.InvalidInput):
            with locks.limites(sessao, lock_s=5):
                _terminar(conn, sessao)
                raise errors.InvalidInput("the block's own failure")


@pytest.mark.parametrize(
    ("sqlstate", "perdida"),
    [("57P01", True), ("08006", True), ("40001", False), ("40P01", False), ("53300", False)],
)
def test_conexao_perdida__only_a_connection_gone(conn: Conn, sqlstate: str, perdida: bool) -> None:
    with pytest.raises(errors.D2Error) as falha, db.mapped_errors():
        conn.execute(
            f"DO $$ BEGIN RAISE EXCEPTION 'x' USING ERRCODE = '{sqlstate}'; END $$"  # test constant
        )
    assert db.is_transient(falha.value)
    assert db.conexao_perdida(falha.value) is perdida
    assert db.conexao_perdida(errors.PublishError("gave up")) is False
    assert db.conexao_perdida(errors.DatabaseUnavailable("no server")) is True


def test_esperar_servidor__back_at_once_when_a_server_answers_else_the_whole_wait(
    db_url: str,
) -> None:
    parar = threading.Event()
    inicio = time.monotonic()
    assert db.esperar_servidor(db_url, parar, 30.0)
    assert time.monotonic() - inicio < 5.0
    inicio = time.monotonic()
    ninguem = "postgresql://nobody@/d2?host=/nonexistent-d2-socket-dir&port=5432"
    assert not db.esperar_servidor(ninguem, parar, 1.5)
    assert 1.4 < time.monotonic() - inicio < 10.0
    parar.set()
    assert not db.esperar_servidor(db_url, parar, 30.0)
