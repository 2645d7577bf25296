"""The mirror of core.uc_polygons, brought up to date by D-2 itself.

Writers of core.uc_polygons only record which rows they changed (d2.mirror_mudancas,
filled by a statement trigger). Here those changes are applied: d2.mirror_aplicar()
under REPEATABLE READ, one transaction per call, so the resolver sees the mirror before
or after a writer's transaction, never half of it; then, in a second transaction, the
clean intervals of the bands it touched (they only make the resolver faster). Callers:
the worker at each poll (`acompanhar`), `d2 mirror sync [--wait]`, the commands that
answer from the mirror (d2/ops/freshness.py), and the importers after their commit.

One applier at a time: an EXCLUSIVE lock on d2.mirror_aplicador, which only d2_worker and
the owner may take (an advisory lock anyone could hold), taken right after BEGIN so that
the apply's snapshot follows it. Every wait for a lock of the mirror is bounded, and a
wait that passes its bound names the sessions holding the lock.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from d2 import config, db, errors, locks

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Applied:
    """What one call applied: change rows consumed, polygons synced, the version now."""

    changes: int
    poligonos: int
    versao: int
    segundos: float
    faixas: int = 0
    """Bands of clean intervals built after the apply's commit."""

    def as_json(self) -> dict[str, Any]:
        return {
            "mudancas": self.changes,
            "poligonos": self.poligonos,
            "versao": self.versao,
            "faixas": self.faixas,
            "segundos": round(self.segundos, 3),
        }


# The worker never waits longer than this for a lock of the mirror (the interval
# builder's, inside its apply; the appliers' own it only tries): what it could not apply
# waits for its next poll, and the loop goes on.
ESPERA_WORKER_S = 5.0


def aplicar(
    conn: db.Connection,
    *,
    esperar: bool = True,
    prazo_s: float | None = None,
    lock_s: float | None = None,
) -> Applied | None:
    """Apply every change of core.uc_polygons committed before this call, in one
    transaction. conn must be in autocommit mode (the appliers' lock is the first
    statement of the transaction, before its snapshot). With esperar, waits for an
    applier at work and then applies what is left; without, returns None at once when
    another applier holds the lock (it applies the same changes).

    Every lock wait is bounded: by prazo_s when given (which bounds each statement too),
    else lock_s, else D2_LOCK_TIMEOUT. Past it: errors.LockTimeout naming the sessions
    that hold the lock (or errors.StatementTimeout), and nothing was applied."""
    inicio = time.monotonic()
    if not db.fora_de_transacao(conn):
        raise errors.D2Error("mirror: apply needs an autocommit connection outside a transaction")
    espera = _espera(prazo_s if prazo_s is not None else lock_s)
    cur = conn.cursor(row_factory=db.dict_row)  # whatever rows the caller's connection makes
    travado = False
    try:
        with db.mapped_errors(), locks.limites(conn, lock_s=espera):
            with conn.transaction():
                cur.execute(db.q("mirror_repeatable_read"))
                cur.execute(db.q("mirror_lock" if esperar else "mirror_try_lock"))
                travado = True
                # Only now the statements' bound: the lock's wait is lock_timeout's to end,
                # so that what is said names who held it.
                locks.limitar_comandos(conn, prazo_s)
                feito = cur.execute(db.q("mirror_aplicar")).fetchone()
    except errors.LockTimeout as exc:
        if not travado and not esperar:
            return None
        raise locks.locks_held(conn, LOCKS + ESCRITAS, espera, "nothing was applied") from exc
    if feito is not None and int(feito["poligonos"] or 0):
        _rebuild_adiado(conn)
    # The version has moved: the resolver already answers from the new polygons. Now the
    # clean intervals it dropped, in a transaction of their own.
    try:
        with db.mapped_errors(), locks.limites(conn, lock_s=espera, statement_s=prazo_s):
            construidas = cur.execute(db.q("mirror_faixas_construir")).fetchone()
        faixas = int(construidas["faixas"]) if construidas else 0
    except (errors.LockTimeout, errors.StatementTimeout) as exc:
        # Committed all the same; the bands stay pending for the next build, their
        # points take the GIST tiers meanwhile.
        log.warning(
            "Espelho: faixas limpas adiadas para o próximo build",
            extra={"erro": str(exc), "sessoes": lock_holders(conn)},
        )
        faixas = 0
    assert feito is not None
    return Applied(
        int(feito["mudancas"]),
        int(feito["poligonos"] or 0),
        int(feito["versao"]),
        time.monotonic() - inicio,
        faixas,
    )


def _rebuild_adiado(conn: db.Connection) -> None:
    """Say who kept the resolver's index from being built again, when the apply left it
    due: a session holding the index (a reader's open transaction is enough) would have
    queued every resolver query behind the rebuild, so the apply skipped it."""
    try:
        with db.mapped_errors(), conn.cursor(row_factory=db.dict_row) as cur:
            row = cur.execute(db.q("mirror_index_due")).fetchone()
        devido = row is not None and bool(row["devido"])
        sessoes = locks.lock_holders(conn, ["d2.mirror_pieces"], leitores=True) if devido else []
    except errors.D2Error as exc:  # the apply is committed: only the notice is lost
        if db.is_transient(exc):
            raise
        log.debug("Espelho: índice não verificado", extra={"erro": str(exc)})
        return
    if devido:
        log.warning(
            "Espelho: reconstrução do índice adiada: uma sessão o tem aberto",
            extra={
                "sessoes": sessoes,
                "quem": "; ".join(db.descrever_sessao(x) for x in sessoes) or None,
            },
        )


def _espera(segundos: float | None) -> float:
    return config.load().lock_timeout_s if segundos is None else segundos


# The lock tables of the mirror (sql/tables/mirror_aplicador.sql,
# mirror_faixas_construtor.sql), the tables a rebuild truncates, whose readers it waits
# for, and every table an apply writes (its indexes come with them): a lock there other
# than a reader's can keep an apply waiting.
LOCKS = ["d2.mirror_aplicador", "d2.mirror_faixas_construtor"]
TRUNCADAS = ["d2.mirror_uc", "d2.mirror_pieces", "d2.mirror_rejected"]
ESCRITAS = [*TRUNCADAS, "d2.mirror_cadeias", "d2.mirror_faixas", "d2.mirror_state"]


def lock_holders(conn: db.Connection) -> list[dict[str, Any]]:
    """The sessions that can keep an apply waiting (locks.lock_holders): holding the
    appliers' or the interval builder's lock, a lock stronger than a reader's on a table
    the apply writes or its indexes, or any lock there that a waiting session waits for."""
    return locks.lock_holders(conn, LOCKS + ESCRITAS)


def pendentes(conn: db.Connection) -> int:
    """How many recorded changes wait to be applied."""
    with db.mapped_errors():
        row = conn.execute(db.q("mirror_pending")).fetchone()
    return int(row["pendentes"]) if row else 0


def acompanhar(conn: db.Connection) -> bool:
    """The worker's hook, at each poll: apply what writers recorded since the last one.

    Cheap when nothing changed (one look at an empty table). Never waits for the
    appliers' lock, and at most ESPERA_WORKER_S for any other. True when nothing waits
    that this call could not apply; False when changes still wait: another session holds
    the appliers' lock, or the apply failed (logged, tried again at the next poll; the
    worker goes on resolving against the mirror it has). Transient failures go up to
    the worker's reconnect."""
    if pendentes(conn) == 0:
        return True
    try:
        feito = aplicar(conn, esperar=False, lock_s=ESPERA_WORKER_S)
    except errors.LockTimeout as exc:
        log.warning("Espelho: mudanças esperam por uma trava", extra={"erro": str(exc)})
        return False
    except errors.D2Error as exc:
        if db.is_transient(exc):
            raise
        log.error("Espelho: falha ao aplicar mudanças", extra={"erro": str(exc)})
        return False
    if feito is None:
        return False
    if feito.changes:
        log.info("Espelho atualizado", extra=feito.as_json())
    return True


def reconstruir(conn: db.Connection, *, lock_s: float | None = None) -> list[dict[str, Any]]:
    """Rebuild the whole mirror, chains and intervals from its source, in one transaction
    (after the applier at work, if any); one row per outcome. conn must be in autocommit
    mode. Each lock wait is bounded by lock_s (default D2_LOCK_TIMEOUT): past it,
    errors.LockTimeout naming who holds it (an applier, or a reader of the tables the
    rebuild truncates), and nothing was rebuilt."""
    espera = _espera(lock_s)
    try:
        with db.mapped_errors(), locks.limites(conn, lock_s=espera):
            with conn.transaction():
                conn.execute(db.q("mirror_repeatable_read"))
                conn.execute(db.q("mirror_lock"))
                return conn.execute(db.q("mirror_rebuild")).fetchall()
    except errors.LockTimeout as exc:
        raise locks.locks_held(
            conn, LOCKS + TRUNCADAS, espera, "nothing was rebuilt", leitores=True
        ) from exc
