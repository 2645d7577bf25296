"""How long a session waits, and for whom: the lock and statement timeouts a block of
work runs under, and, when a lock stays held past them, the one line that names the
sessions holding it (D2_LOCK_TIMEOUT). The importers, the mirror's appliers and the
worker's geometry stage bound their waits with these; the lock tables themselves are
in sql/tables (docs/reliability.md, section 6)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import psycopg
from psycopg.rows import dict_row

from d2 import errors
from d2.db import Connection, descrever_sessao, mapped_errors, q


@contextlib.contextmanager
def limites(
    conn: Connection, *, lock_s: float | None = None, statement_s: float | None = None
) -> Iterator[None]:
    """Within the block, no lock wait of this session lasts more than lock_s
    (errors.LockTimeout) and no statement more than statement_s (errors.StatementTimeout);
    None leaves that one as it is. The session's own settings come back after."""
    if lock_s is None and statement_s is None:
        yield
        return
    with mapped_errors(), conn.cursor(row_factory=dict_row) as cur:  # whatever the conn's rows
        antes = cur.execute(q("session_timeouts_get")).fetchone()
        assert antes is not None
        cur.execute(
            q("session_timeouts_set"),
            {
                "lock_timeout": _ms(lock_s) if lock_s is not None else antes["lock_timeout"],
                "statement_timeout": (
                    _ms(statement_s) if statement_s is not None else antes["statement_timeout"]
                ),
            },
        )
    try:
        yield
    except BaseException:
        # The block's own failure is what the caller acts on: a restore that fails too
        # (the connection died under the block) must not replace it.
        with contextlib.suppress(errors.D2Error):
            _restaurar_limites(conn, antes)
        raise
    _restaurar_limites(conn, antes)


def _restaurar_limites(conn: Connection, antes: dict[str, Any]) -> None:
    # A session that looks idle may have been ended by the server since its last
    # statement (a failover, pg_terminate_backend): that surfaces here, mapped.
    if (
        not conn.closed
        and not conn.broken
        and (conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE)
    ):
        with mapped_errors():
            conn.execute(q("session_timeouts_set"), dict(antes))


def limitar_comandos(conn: Connection, statement_s: float | None) -> None:
    """Inside a transaction: no later statement of it runs past statement_s (None: as is)."""
    if statement_s is not None:
        with mapped_errors():
            conn.execute(
                q("transaction_statement_timeout"), {"statement_timeout": _ms(statement_s)}
            )


def _ms(segundos: float) -> str:
    return f"{max(1, round(segundos * 1000))}ms"


def lock_holders(
    conn: Connection, tabelas: list[str], *, leitores: bool = False
) -> list[dict[str, Any]]:
    """The other sessions holding a lock on these tables (with leitores, a reader's ACCESS
    SHARE too): pid, usuario, banco, aplicacao, tabela, modo, transacao_s (None where
    this role may not see it)."""
    with mapped_errors(), conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(q("lock_holders"), {"tabelas": tabelas, "leitores": leitores}).fetchall()


def locks_held(
    conn: Connection,
    tabelas: list[str],
    espera_s: float,
    consequencia: str,
    *,
    leitores: bool = False,
) -> errors.LockTimeout:
    """The one line for a lock still held after espera_s (D2_LOCK_TIMEOUT): who holds it
    on which table, and what that means for the caller's operation."""
    sessoes = lock_holders(conn, tabelas, leitores=leitores)
    quem = "; ".join(f"{descrever_sessao(s)} holds {s['modo']} on {s['tabela']}" for s in sessoes)
    return errors.LockTimeout(
        f"a lock stayed held for {espera_s:g} s (D2_LOCK_TIMEOUT): "
        f"{quem or 'by a session that has ended since'}; {consequencia}",
        sessoes=sessoes,
    )
