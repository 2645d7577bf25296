"""The cursors of D-2's consumers of the event log, and their dead letters: the one
module that writes a cursor (sql/queries/consumer.sql) or builds a dead letter from an
event. The demand worker batches (d2/handler/handler.py, d2/worker/loop.py) and moves its
cursor once per batch; the citizen drawings (d2/territorio/comunitario.py) and the
event-synced replica (d2/territorio/replica.py) take one event per transaction
(Cursor.tratar).

Each such transaction starts by locking the cursor row, so two consumers never handle
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
    consumer: str
    """The consumer's name in core.dead_letter_queue ('D-2/...')."""

    def semear(self, conn: db.Connection, *, no_inicio: bool) -> None:
        """Create the cursor where there is none, never overwriting one: at the start of
        the log (no_inicio), so what was published before the consumer first ran is taken
        too; or at the last event readers can see now (the demand worker's boot)."""
        with db.mapped_errors():
            conn.execute(db.q("cursor_seed"), {"tipo": self.chave, "no_inicio": no_inicio})

    def ler(self, conn: db.Connection) -> bus.Position:
        """Where the consumer is (the start of the log when it has no cursor)."""
        with db.mapped_errors():
            row = conn.execute(db.q("cursor_get"), {"tipo": self.chave}).fetchone()
        if row is None:
            return bus.Position(0, 0)
        return bus.Position(int(row["last_transacao"]), int(row["last_sequence"]))

    def position(self, conn: db.Connection) -> bus.Position:
        """Where the consumer is; created at the start of the log the first time."""
        self.semear(conn, no_inicio=True)
        return self.ler(conn)

    def colocar(self, conn: db.Connection, sequencia: int) -> None:
        """Put the cursor at a sequence number, back or forward (the benchmarks' backlog)."""
        with db.mapped_errors():
            conn.execute(db.q("cursor_set"), {"tipo": self.chave, "seq": sequencia})

    def ja_passou(self, conn: db.Connection, evento: bus.Evento) -> bool:
        """Lock the cursor for this transaction; True when another consumer moved it
        past this event."""
        conn.execute(db.q("cursor_lock"), {"tipo": self.chave})
        row = conn.execute(
            db.q("cursor_passed"),
            {"tipo": self.chave, "transacao": evento.transacao, "seq": evento.sequence_number},
        ).fetchone()
        return row is not None and bool(row["passou"])

    def avancar(self, conn: db.Connection, ate: bus.Position) -> None:
        """Move the cursor forward to ate, never back (a retried old event leaves it)."""
        conn.execute(
            db.q("cursor_advance"),
            {"tipo": self.chave, "transacao": ate.transacao, "seq": ate.sequencia},
        )

    def registrar_dead_letter(self, conn: db.Connection, evento: bus.Evento, erro: str) -> None:
        """The event's dead letter under this consumer (or one more failure of it), in the
        caller's transaction; the cursor is the caller's to move."""
        dead_letters.registrar(
            conn,
            consumer=self.consumer,
            event_id=evento.event_id,
            tipo=evento.tipo,
            sequence_number=evento.sequence_number,
            erro=erro,
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
                self.avancar(conn, bus.position(evento))
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
            self.registrar_dead_letter(conn, evento, erro)
            self.avancar(conn, bus.position(evento))
        return True
