"""Consumers of the event log that take one event per transaction with a cursor of their
own: the citizen drawings (d2/territorio/comunitario.py) and the event-synced replica
(d2/territorio/replica.py). The demand worker batches instead (d2/handler/handler.py,
d2/worker/loop.py).

Each event's transaction starts by locking the cursor row, so two consumers never handle
the same event; one that finds the cursor already past the event leaves it. An event
that cannot be handled ends as a dead letter under the consumer's name, and the cursor
moves past it in the same transaction: exactly one terminal state per event.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeVar

from d2 import db, errors
from d2.eventlog import bus, dead_letters

Fim = Literal["aplicado", "passou", "dead_letter"]
T = TypeVar("T")


@dataclass(frozen=True)
class Cursor:
    chave: str
    """The cursor's key in d2.consumer_offset (an event type, or a stream's name)."""
    consumidor: str
    """The consumer's name in core.dead_letter_queue ('D-2/...')."""

    def posicao(self, conn: db.Connection) -> bus.Position:
        """Where the consumer is; created at the start of the log the first time, so
        what was published before the consumer first ran is taken too."""
        with db.mapped_errors():
            conn.execute(db.q("consumer_cursor_seed"), {"tipo": self.chave})
            row = conn.execute(db.q("cursor_get"), {"tipo": self.chave}).fetchone()
        if row is None:
            return bus.Position(0, 0)
        return bus.Position(int(row["last_transacao"]), int(row["last_sequence"]))

    def ja_passou(self, conn: db.Connection, evento: bus.Evento) -> bool:
        """Lock the cursor for this transaction; True when another consumer moved it
        past this event."""
        conn.execute(db.q("consumer_cursor_lock"), {"tipo": self.chave})
        row = conn.execute(
            db.q("consumer_cursor_passed"),
            {"tipo": self.chave, "transacao": evento.transacao, "seq": evento.sequence_number},
        ).fetchone()
        return row is not None and bool(row["passou"])

    def avancar(self, conn: db.Connection, evento: bus.Evento) -> None:
        conn.execute(
            db.q("cursor_advance"),
            {"tipo": self.chave, "transacao": evento.transacao, "seq": evento.sequence_number},
        )

    def tratar(
        self, conn: db.Connection, evento: bus.Evento, aplicar: Callable[[], T]
    ) -> tuple[Fim, T | None]:
        """The event's effect (aplicar) and the cursor past it, in one transaction:
        ('aplicado', what aplicar returned); 'passou' when another consumer had it
        already. An invalid event or a permanent database error ends it as a dead letter
        ('dead_letter'); a transient one propagates, and the caller retries later from the
        same cursor, as does errors.ConsumerPaused (aplicar refused to go on: nothing of
        the event is written, the cursor stays before it)."""
        try:
            with db.mapped_errors(), conn.transaction():
                if self.ja_passou(conn, evento):
                    return "passou", None
                efeito = aplicar()
                self.avancar(conn, evento)
            return "aplicado", efeito
        except errors.InvalidEvent as exc:
            motivo = str(exc)
        except errors.ConsumerPaused:
            raise
        except errors.D2Error as exc:
            if db.is_transient(exc):
                raise
            motivo = f"erro do banco: {db.primeira_linha(exc.__cause__ or exc)}"
        return ("dead_letter" if self.dead_letter(conn, evento, motivo[:2000]) else "passou"), None

    def dead_letter(self, conn: db.Connection, evento: bus.Evento, erro: str) -> bool:
        """The event's terminal state when it cannot be handled: a dead letter, and the
        cursor past it, in one transaction. False when another consumer got there first."""
        with conn.transaction():
            if self.ja_passou(conn, evento):
                return False
            dead_letters.registrar(
                conn,
                consumidor=self.consumidor,
                event_id=evento.event_id,
                tipo=evento.tipo,
                sequence_number=evento.sequence_number,
                erro=erro,
            )
            self.avancar(conn, evento)
        return True
