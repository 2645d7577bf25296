"""Dead letters: the events a consumer could not handle, with the error, kept for an
operator to retry or discard (docs/design.md, decision 7). D-2's consumers write them through
the view d2.dead_letters, which admits only consumers 'D-2' and 'D-2/…'.
"""

from __future__ import annotations

import logging
import uuid

from d2 import db, errors

log = logging.getLogger(__name__)

STATUS = ("pendente", "reprocessado", "descartado")


def registrar(
    conn: db.Connection,
    *,
    consumer: str,
    event_id: uuid.UUID,
    tipo: str,
    sequence_number: int | None,
    erro: str,
) -> None:
    """Record (or count one more failure of) a consumer's dead letter, in the caller's
    transaction. A dead letter recorded again goes back to 'pendente'.
    """
    with db.mapped_errors():
        conn.execute(
            db.q("dlq_record"),
            {
                "consumidor": consumer,
                "event_id": event_id,
                "tipo": tipo,
                "sequence_number": sequence_number,
                "erro": erro,
            },
        )
    log.error(
        "dead letter: %s %s: %s",
        tipo,
        event_id,
        erro,
        extra={
            "consumidor": consumer,
            "event_id": str(event_id),
            "tipo": tipo,
            "sequence_number": sequence_number,
            "erro": erro,
        },
    )


def marcar(conn: db.Connection, event_id: uuid.UUID, status: str, consumer: str = "D-2") -> int:
    """Set a dead letter's status; returns how many rows changed (0: no such letter)."""
    checar_status(status)
    with db.mapped_errors():
        cursor = conn.execute(
            db.q("dlq_mark"), {"event_id": event_id, "status": status, "consumidor": consumer}
        )
    return cursor.rowcount


def falhas_de_publicacao(conn: db.Connection, consumer: str, prefixo: str) -> set[uuid.UUID]:
    """The events of a consumer's pending dead letters whose error starts with prefixo."""
    with db.mapped_errors():
        return {
            row["event_id"]
            for row in conn.execute(
                db.q("dlq_publish_failures"), {"consumidor": consumer, "prefixo": prefixo}
            )
        }


def resolver(conn: db.Connection, consumer: str, event_ids: list[uuid.UUID]) -> None:
    """Mark a consumer's pending dead letters of these events resolved."""
    with db.mapped_errors():
        conn.execute(db.q("dlq_resolve"), {"consumidor": consumer, "event_ids": event_ids})


def checar_status(status: str) -> None:
    if status not in STATUS:
        raise errors.InvalidInput(
            f"invalid dead-letter status {status!r} (expected one of: {', '.join(STATUS)})"
        )
