"""core.event_log: publish (Registry-validated), replay, listen.

Publishing is a plain INSERT inside the caller's transaction, as any producer of the
monolith writes it: the table's default numbers each event at once. Readers never skip
an event that commits late: they read in (transacao, sequence_number) order and only
below their snapshot's xmin, the oldest transaction still running, so every transaction
they read from has finished and none can add an event behind their cursor (see
bus_read_since in sql/queries/bus.sql). A long write transaction anywhere in the cluster
holds delivery back meanwhile (see fence); nothing is lost. Readers poll; a NOTIFY on
channel `core_event_log`, when someone sends one, only wakes them sooner.

The payloads' JSON text and sizes are d2.eventlog.wire's; dead letters are
d2.eventlog.dead_letters'.
"""

from __future__ import annotations

import logging
import random
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from types import TracebackType
from typing import Any, NamedTuple, TypeVar

from psycopg import sql
from psycopg.rows import tuple_row

from d2 import db, errors
from d2.eventlog import registry, wire

log = logging.getLogger(__name__)

T = TypeVar("T")

CANAL = "core_event_log"


@dataclass(frozen=True)
class Evento:
    sequence_number: int
    event_id: uuid.UUID
    tipo: str
    versao_schema: str
    origem: str
    correlacao_id: uuid.UUID | None
    payload: Any  # any JSON value, or UnreadablePayload
    publicado_em: datetime
    tamanho_max_bytes: int | None = field(default=None, compare=False, repr=False)
    """At least len(json.dumps(payload, ensure_ascii=False).encode()), known without
    encoding the payload again (wire.tamanho_max); None when not known."""
    profundidade_max: int | None = field(default=None, compare=False, repr=False)
    """At least the payload's nesting depth, known without walking it
    (wire.profundidade_max)."""
    transacao: int = field(default=0, compare=False)
    """The inserting transaction (pg_current_xact_id), 0 for events from before it was
    recorded: with sequence_number, the event's place in the readers' order."""


class Position(NamedTuple):
    """A reader's place in the log: the last event read, as (transacao, sequence_number)."""

    transacao: int
    sequencia: int


def position(evento: Evento) -> Position:
    return Position(evento.transacao, evento.sequence_number)


def _evento(row: Sequence[Any], max_payload: int) -> Evento:
    """An event from a row of bus_read_since or bus_read_events (their column order)."""
    (sequence_number, event_id, tipo, versao_schema, origem, correlacao_id, texto, quando) = row[:8]
    transacao, tamanho = row[8], row[9]
    if texto is None:
        # Left in the database by the read: only its size crossed the wire.
        payload: Any = wire.UnreadablePayload(f"payload of {tamanho} bytes exceeds {max_payload}")
        limites: tuple[int | None, int | None] = (None, None)
    else:
        payload = wire.decodificar(texto)
        limites = (wire.tamanho_max(texto), wire.profundidade_max(texto))
    return Evento(
        sequence_number, event_id, tipo, versao_schema, origem, correlacao_id, payload, quando,
        *limites, transacao,
    )  # fmt: skip


@dataclass(frozen=True)
class Prepared:
    """One event the Registry accepted, encoded for publicar. Made only by preparar, so
    whatever publicar inserts was validated."""

    event_id_texto: str
    tipo: str
    versao_schema: str
    texto: str  # {"event_id", "tipo", "versao_schema", "correlacao_id", "payload"} as JSON

    @property
    def event_id(self) -> uuid.UUID:
        return uuid.UUID(self.event_id_texto)


def preparar(
    tipo: str,
    payload: dict[str, Any],
    correlacao_id: uuid.UUID | str | None = None,
    *,
    versao_schema: str | None = None,
    event_id: uuid.UUID | str | None = None,
) -> Prepared:
    """Validate and encode one event ahead of its publication (no database needed).
    Raises errors.InvalidEvent naming the field.

    versao_schema None means the type's default version. correlacao_id and event_id may
    come as uuids or as their text; a new event id is made here when none is given.
    """
    versao = registry.validar(tipo, payload, versao_schema)
    novo = str(event_id) if event_id is not None else wire.uuids4_texto(1)[0]
    texto = wire.json_texto(
        {
            "event_id": novo,
            "tipo": tipo,
            "versao_schema": versao,
            "correlacao_id": None if correlacao_id is None else str(correlacao_id),
            "payload": payload,
        }
    )
    return Prepared(novo, tipo, versao, texto)


def publicar(conn: db.Connection, eventos: Sequence[Prepared], *, origem: str) -> list[uuid.UUID]:
    """Insert prepared events in one statement, in the caller's transaction, and return
    their ids. Never commits: they become visible, numbered in the order of eventos, when
    the caller commits. A refusal by the log (not by the Registry: preparar checked the
    payloads) raises errors.PublishError, which com_retry retries.
    """
    if not eventos:
        return []
    try:
        with db.mapped_errors():
            # One JSON document for all the events rather than arrays of columns: psycopg
            # would escape each payload again inside a text array.
            conn.execute(
                db.q("bus_publish"),
                {"origem": origem, "itens": "[" + ",".join(e.texto for e in eventos) + "]"},
            )
    except errors.D2Error as exc:
        if db.is_transient(exc):
            raise
        tipos = ", ".join(sorted({e.tipo for e in eventos}))
        raise errors.PublishError(f"event log refused {tipos}: {exc}") from exc
    log.debug("eventos inseridos", extra={"quantidade": len(eventos), "origem": origem})
    return [e.event_id for e in eventos]


def com_retry(
    operacao: Callable[[], T],
    *,
    tentativas: int = 4,
    espera_s: float = 0.5,
    descricao: str = "publicar",
) -> T:
    """Run operacao, retrying transient failures (spec §5.3: 4 tries, 500 ms apart).

    Retried: what db.is_transient accepts, and errors.PublishError. Anything else is
    raised at once. operacao must redo its whole transaction. After the last try raises
    errors.PublishError saying so, with the last error as its cause.
    """
    if tentativas < 1:
        raise ValueError("tentativas must be >= 1")
    for tentativa in range(1, tentativas + 1):
        try:
            return operacao()
        except Exception as exc:
            if db.leadership_lost(exc):
                raise  # not a failure of this work: another worker leads now
            if not (db.is_transient(exc) or isinstance(exc, errors.PublishError)):
                raise
            log.warning(
                "%s: try %d of %d failed: %s",
                descricao,
                tentativa,
                tentativas,
                exc,
                extra={"descricao": descricao, "tentativa": tentativa, "erro": str(exc)},
            )
            if tentativa == tentativas:
                raise errors.PublishError(
                    f"{descricao}: gave up after {tentativas} tries: {exc}"
                ) from exc
            # Bounded jitter: producers that failed together do not retry in lockstep.
            time.sleep(espera_s * random.uniform(0.8, 1.2))
    raise AssertionError("unreachable")  # pragma: no cover


def ler_desde(
    conn: db.Connection,
    tipo: str | Sequence[str],
    apos: int | Position,
    limite: int = 1000,
    *,
    max_payload_bytes: int = wire.SEM_LIMITE,
    max_batch_bytes: int = wire.SEM_LIMITE,
) -> list[Evento]:
    """Committed events of tipo (one type, or several merged into one stream) after
    apos, in the readers' order, at most limite.

    apos is a Position, or the sequence number of the last event read (its transaction is
    then looked up). Gap-safe: a reader may move its cursor to the last event it read.
    A payload whose text exceeds max_payload_bytes is not fetched: it comes as a
    UnreadablePayload saying its size. The batch stops before its payloads pass
    max_batch_bytes (one event at least).
    """
    transacao, sequencia = (
        (apos.transacao, apos.sequencia) if isinstance(apos, Position) else (None, apos)
    )
    with db.mapped_errors(), conn.cursor(row_factory=tuple_row) as cur:
        rows = cur.execute(
            db.q("bus_read_since"),
            {
                "tipos": [tipo] if isinstance(tipo, str) else list(tipo),
                "apos": sequencia,
                "transacao": transacao,
                "limite": limite,
                "max_payload": max_payload_bytes,
                "max_lote": max_batch_bytes,
            },
        ).fetchall()
    return [_evento(row, max_payload_bytes) for row in rows]


def ler_eventos(
    conn: db.Connection, event_ids: Sequence[uuid.UUID], *, max_payload_bytes: int = wire.SEM_LIMITE
) -> list[Evento]:
    """Committed events by event_id (unknown ids are left out), in the readers' order.
    A payload above max_payload_bytes comes as a UnreadablePayload, as in ler_desde."""
    with db.mapped_errors(), conn.cursor(row_factory=tuple_row) as cur:
        rows = cur.execute(
            db.q("bus_read_events"),
            {"event_ids": list(event_ids), "max_payload": max_payload_bytes},
        ).fetchall()
    return [_evento(row, max_payload_bytes) for row in rows]


class Fence(NamedTuple):
    retidos: int
    """Committed events readers cannot read yet: an older transaction is still running."""
    atraso_s: float
    """Seconds since the oldest of them was inserted; 0 when none waits."""


def fence(conn: db.Connection, tipo: str) -> Fence:
    """What the readers' fence holds back now (a long write transaction anywhere in the
    cluster delays delivery, never loses an event)."""
    with db.mapped_errors(), conn.cursor(row_factory=tuple_row) as cur:
        row = cur.execute(db.q("bus_fence"), {"tipo": tipo}).fetchone()
    return Fence(int(row[0]), float(row[1])) if row else Fence(0, 0.0)


def fence_holder(conn: db.Connection) -> dict[str, Any] | None:
    """The session (or prepared transaction) whose open transaction is the fence now: pid,
    usuario, banco, aplicacao, transacao_s (None where this role may not see it), xid.
    None when no transaction with an id runs."""
    with db.mapped_errors(), conn.cursor(row_factory=db.dict_row) as cur:
        return cur.execute(db.q("bus_fence_holder")).fetchone()


def maior_sequencia(conn: db.Connection, tipo: str | None = None) -> int:
    """The highest committed sequence number, of one type or of the whole log; 0 if none."""
    with db.mapped_errors():
        if tipo is None:
            row = conn.execute(db.q("bus_max_sequence")).fetchone()
        else:
            row = conn.execute(db.q("bus_max_sequence_of_type"), {"tipo": tipo}).fetchone()
    return int(row["maior"]) if row else 0


class Listener:
    """LISTEN core_event_log on an own autocommit connection.

    Notifications only wake the reader: it must poll the table anyway, since a
    notification can be lost (sent while disconnected). After a lost connection,
    esperar reconnects and returns True so the caller polls at once.
    """

    def __init__(self, url: str, *, canal: str = CANAL) -> None:
        self.url = url
        self.canal = canal
        self.recebidas = 0
        """Notifications received so far (all of them, drained or not)."""
        self.ultima: str | None = None
        """Payload of the last notification: the highest sequence number it announced."""
        self._conn: db.Connection | None = None

    def __enter__(self) -> Listener:
        self._conectar()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.fechar()

    def _conectar(self) -> None:
        conn = db.connect(self.url, autocommit=True, application_name="d2-listener")
        try:
            with db.mapped_errors():
                conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self.canal)))
        except BaseException:
            conn.close()
            raise
        self._conn = conn

    def fechar(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def esperar(self, timeout_s: float) -> bool:
        """True when at least one notification arrived (all pending ones are drained),
        or when the connection had to be re-established; False after timeout_s of silence.
        """
        if self._conn is None or self._conn.closed:
            return self._reconectar(timeout_s)
        try:
            with db.mapped_errors():
                chegou = self._drenar(self._conn, timeout_s)
        except (errors.TransientDatabaseError, errors.DatabaseUnavailable) as exc:
            log.warning("listener: connection lost: %s", exc, extra={"canal": self.canal})
            return self._reconectar(timeout_s)
        return chegou

    def _drenar(self, conn: db.Connection, timeout_s: float) -> bool:
        antes = self.recebidas
        for aviso in conn.notifies(timeout=max(timeout_s, 0.0), stop_after=1):
            self._anotar(aviso.payload)
        if self.recebidas == antes:
            return False
        for aviso in conn.notifies(timeout=0.0):
            self._anotar(aviso.payload)
        return True

    def _anotar(self, payload: str) -> None:
        self.recebidas += 1
        self.ultima = payload

    def _reconectar(self, timeout_s: float) -> bool:
        self.fechar()
        try:
            self._conectar()
        except errors.D2Error as exc:
            # Still down: wait as a timeout would, then let the caller poll (its own
            # query will report the outage); the next esperar tries again.
            log.warning("listener: cannot reconnect: %s", exc, extra={"canal": self.canal})
            time.sleep(max(timeout_s, 0.0))
            return True
        log.info("listener: reconnected", extra={"canal": self.canal})
        return True
