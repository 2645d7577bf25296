"""The mirror of core.uc_polygons, brought up to date by D-2 itself.

Writers of core.uc_polygons only record which rows they changed (d2.mirror_mudancas,
filled by a statement trigger). Here those changes are applied: d2.mirror_aplicar()
under REPEATABLE READ, one transaction per call, so the resolver sees the mirror before
or after a writer's transaction, never half of it; then, in a second transaction, the
clean intervals of the bands it touched (they only make the resolver faster). Callers:
the worker at each poll (`acompanhar`), `d2 mirror sync [--wait]`, and the importers
after their commit.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from d2 import db, errors

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Applied:
    """What one call applied: change rows consumed, polygons synced, the version now."""

    mudancas: int
    poligonos: int
    versao: int
    segundos: float
    faixas: int = 0
    """Bands of clean intervals built after the apply's commit."""

    def as_json(self) -> dict[str, Any]:
        return {
            "mudancas": self.mudancas,
            "poligonos": self.poligonos,
            "versao": self.versao,
            "faixas": self.faixas,
            "segundos": round(self.segundos, 3),
        }


def aplicar(
    conn: db.Connection, *, esperar: bool = True, prazo_s: float | None = None
) -> Applied | None:
    """Apply every change of core.uc_polygons committed before this call, in one
    transaction. conn must be in autocommit mode (the lock is taken before the
    transaction opens). With esperar, waits for an applier at work and then applies what
    is left; without, returns None at once when another applier holds the lock (it
    applies the same changes). prazo_s bounds the wait for the lock and each statement:
    past it, errors.LockTimeout or errors.StatementTimeout, and nothing was applied."""
    inicio = time.monotonic()
    if not db.fora_de_transacao(conn):
        raise errors.D2Error("mirror: apply needs an autocommit connection outside a transaction")
    cur = conn.cursor(row_factory=db.dict_row)  # whatever rows the caller's connection makes
    with db.mapped_errors():
        with db.limites(conn, lock_s=prazo_s):
            if esperar:
                cur.execute(db.q("mirror_lock"))
            else:
                row = cur.execute(db.q("mirror_try_lock")).fetchone()
                if not row or not row["obtido"]:
                    return None
        try:
            with db.limites(conn, statement_s=prazo_s):
                with conn.transaction():
                    cur.execute(db.q("mirror_repeatable_read"))
                    feito = cur.execute(db.q("mirror_aplicar")).fetchone()
                # The version has moved: the resolver already answers from the new
                # polygons. Now the clean intervals it dropped, in a transaction of their own.
                faixas = cur.execute(db.q("mirror_faixas_construir")).fetchone()
        finally:
            if not conn.closed and not conn.broken:
                conn.execute(db.q("mirror_unlock"))
    assert feito is not None and faixas is not None
    return Applied(
        int(feito["mudancas"]),
        int(feito["poligonos"] or 0),
        int(feito["versao"]),
        time.monotonic() - inicio,
        int(faixas["faixas"]),
    )


def pendentes(conn: db.Connection) -> int:
    """How many recorded changes wait to be applied."""
    with db.mapped_errors():
        row = conn.execute(db.q("mirror_pending")).fetchone()
    return int(row["pendentes"]) if row else 0


def acompanhar(conn: db.Connection) -> Applied | None:
    """The worker's hook, at each poll: apply what writers recorded since the last one.

    Cheap when nothing changed (one look at an empty table). A failure that is not
    transient is logged and left for the next poll; the worker goes on resolving
    against the mirror it has (transient ones go up to the worker's reconnect)."""
    if pendentes(conn) == 0:
        return None
    try:
        feito = aplicar(conn, esperar=False)
    except errors.D2Error as exc:
        if db.is_transient(exc):
            raise
        log.error("Espelho: falha ao aplicar mudanças", extra={"erro": str(exc)})
        return None
    if feito is not None and feito.mudancas:
        log.info("Espelho atualizado", extra=feito.as_json())
    return feito


def reconstruir(conn: db.Connection) -> list[dict[str, Any]]:
    """Rebuild the whole mirror, chains and intervals from core.uc_polygons, in one
    transaction (after the applier at work, if any); one row per outcome."""
    with db.mapped_errors():
        conn.execute(db.q("mirror_lock"))
        try:
            with conn.transaction():
                conn.execute(db.q("mirror_repeatable_read"))
                return conn.execute(db.q("mirror_rebuild")).fetchall()
        finally:
            if not conn.closed and not conn.broken:
                conn.execute(db.q("mirror_unlock"))
