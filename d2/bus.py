"""core.event_log: publish (Registry-validated), replay, listen, dead letters.

Publishing is a plain INSERT inside the caller's transaction, as any producer of the
monolith writes it: the table's default numbers each event at once. Readers never skip
an event that commits late: they read in (transacao, sequence_number) order and only
below their snapshot's xmin, the oldest transaction still running, so every transaction
they read from has finished and none can add an event behind their cursor (see
bus_ler_desde in sql/queries/bus.sql). A long write transaction anywhere in the cluster
holds delivery back meanwhile (see cerca); nothing is lost. Readers poll; a NOTIFY on
channel `core_event_log`, when someone sends one, only wakes them sooner.
"""

from __future__ import annotations

import json
import logging
import math
import os
import random
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from types import TracebackType
from typing import Any, NamedTuple, TypeVar

import orjson
from psycopg import sql
from psycopg.rows import tuple_row

from d2 import db, errors, registry

log = logging.getLogger("d2.bus")

T = TypeVar("T")

CANAL = "core_event_log"
STATUS_DLQ = ("pendente", "reprocessado", "descartado")


@dataclass(frozen=True)
class PayloadIlegivel:
    """Stands in for a payload Python cannot decode (e.g. nested deeper than its parser
    allows), so that one poisoned event does not block the events after it.
    """

    motivo: str


@dataclass(frozen=True)
class Evento:
    sequence_number: int
    event_id: uuid.UUID
    tipo: str
    versao_schema: str
    origem: str
    correlacao_id: uuid.UUID | None
    payload: Any  # any JSON value, or PayloadIlegivel
    publicado_em: datetime
    tamanho_max_bytes: int | None = field(default=None, compare=False, repr=False)
    """At least len(json.dumps(payload, ensure_ascii=False).encode()), known without
    encoding the payload again (see _tamanho_max); None when not known."""
    profundidade_max: int | None = field(default=None, compare=False, repr=False)
    """At least the payload's nesting depth (a scalar is 0, {} is 1), known without
    walking it: the text's opening brackets, "{" and "[" inside strings included."""
    transacao: int = field(default=0, compare=False)
    """The inserting transaction (pg_current_xact_id), 0 for events from before it was
    recorded: with sequence_number, the event's place in the readers' order."""


class Posicao(NamedTuple):
    """A reader's place in the log: the last event read, as (transacao, sequence_number)."""

    transacao: int
    sequencia: int


def posicao(evento: Evento) -> Posicao:
    return Posicao(evento.transacao, evento.sequence_number)


# Bounds for a read that sets none: larger than any payload or batch PostgreSQL can hold.
SEM_LIMITE = 2**62


# json.dumps(json.loads(t), ensure_ascii=False) gives back a jsonb::text t byte for byte
# (same separators, key order, string escapes, integers) except the numbers Python reads
# as floats: the database prints each of those in plain notation with a "." (never an
# exponent), at least 3 characters ("0.5"), where float repr takes at most 24
# ("-1.2345678901234567e-308"). tests/integration/test_bus_tamanho.py checks both.
_CARACTERES_FLOAT_MIN = 3
_CARACTERES_FLOAT_MAX = 24


def _tamanho_max(texto: str) -> int:
    """An upper bound of the payload's size as Python re-encodes it, from the database's
    text: each "." may be a float that Python prints longer."""
    excesso = _CARACTERES_FLOAT_MAX - _CARACTERES_FLOAT_MIN
    return len(texto.encode()) + excesso * texto.count(".")


def _evento(row: Sequence[Any], max_payload: int) -> Evento:
    """An event from a row of bus_ler_desde or bus_ler_eventos (their column order)."""
    (sequence_number, event_id, tipo, versao_schema, origem, correlacao_id, texto, quando) = row[:8]
    transacao, tamanho = row[8], row[9]
    if texto is None:
        # Left in the database by the read: only its size crossed the wire.
        return Evento(
            sequence_number,
            event_id,
            tipo,
            versao_schema,
            origem,
            correlacao_id,
            PayloadIlegivel(f"payload of {tamanho} bytes exceeds {max_payload}"),
            quando,
            transacao=transacao,
        )
    return Evento(
        sequence_number,
        event_id,
        tipo,
        versao_schema,
        origem,
        correlacao_id,
        _decodificar(texto),
        quando,
        _tamanho_max(texto),
        texto.count("{") + texto.count("["),
        transacao,
    )


# orjson reads an integer literal beyond 64 bits as a float where json keeps it an int
# (and only then differs from json on what a jsonb prints). Such a float is at least 2**63
# in magnitude: a payload holding one is decoded by json instead.
_FLOAT_ENORME = 2.0**63


def _decodificar(texto: str) -> Any:
    """The payload's JSON value as json.loads gives it, or PayloadIlegivel when Python
    cannot decode it. orjson first, about four times faster; json where orjson refuses
    the text or may have read it differently."""
    try:
        valor = orjson.loads(texto)
    except orjson.JSONDecodeError:
        pass
    else:
        if not _algum_float(valor, _enorme):
            return valor
    try:
        return json.loads(texto)
    except RecursionError:
        return PayloadIlegivel("JSON nested too deep to decode")
    except ValueError as exc:
        return PayloadIlegivel(f"invalid JSON: {exc}")


def _enorme(numero: float) -> bool:
    return not -_FLOAT_ENORME < numero < _FLOAT_ENORME


def _infinito_ou_nan(numero: float) -> bool:
    return not math.isfinite(numero)


_SEQUENCIAS = (list, tuple)  # a tuple of types: isinstance is slower with a union


def _algum_float(valor: Any, teste: Callable[[float], bool]) -> bool:
    """True when teste holds for some float in valor (nested in dicts, lists, tuples)."""
    pilha = [valor]
    while pilha:
        atual = pilha.pop()
        if type(atual) is float:
            if teste(atual):
                return True
        elif isinstance(atual, dict):
            pilha.extend(atual.values())
        elif isinstance(atual, _SEQUENCIAS):
            pilha.extend(atual)
    return False


def json_texto(valor: Any) -> str:
    """valor as JSON text: what json.dumps(valor, ensure_ascii=False, allow_nan=False)
    writes, but compact and by orjson, about ten times faster (the worker encodes a few
    documents per event). Falls back to json where orjson refuses a value (an integer
    beyond 64 bits); a NaN or an infinity is refused (ValueError) as json refuses it,
    where orjson would write null.
    """
    try:
        texto = orjson.dumps(valor, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:
        return json.dumps(valor, ensure_ascii=False, allow_nan=False)
    # A NaN or an infinity comes out as null, so only then is the value walked.
    if b"null" in texto and _algum_float(valor, _infinito_ou_nan):
        raise ValueError("Out of range float values are not JSON compliant")
    return texto.decode()


def publicar(
    conn: db.Connection,
    tipo: str,
    payload: dict[str, Any],
    *,
    origem: str,
    correlacao_id: uuid.UUID | None,
    versao_schema: str | None = None,
    event_id: uuid.UUID | None = None,
) -> uuid.UUID:
    """Validate payload with the Registry and insert it in the caller's transaction.

    Never commits: the event becomes visible, numbered, when the caller commits.
    versao_schema None means the type's default version. Raises errors.InvalidEvent
    (naming the field) before touching the database.
    """
    versao = registry.validar(tipo, payload, versao_schema)
    novo = event_id or uuid.uuid4()
    with db.mapped_errors():
        conn.execute(
            db.q("bus_publicar"),
            {
                "event_id": novo,
                "tipo": tipo,
                "versao_schema": versao,
                "origem": origem,
                "correlacao_id": correlacao_id,
                "payload": json_texto(payload),
            },
        )
    log.debug(
        "evento inserido",
        extra={"tipo": tipo, "event_id": str(novo), "versao_schema": versao, "origem": origem},
    )
    return novo


@dataclass(frozen=True)
class Preparado:
    """One event the Registry accepted, encoded for publicar_preparados. Made only by
    preparar, so whatever publicar_preparados inserts was validated."""

    event_id_texto: str
    tipo: str
    versao_schema: str
    texto: str  # {"event_id", "correlacao_id", "payload"} as JSON

    @property
    def event_id(self) -> uuid.UUID:
        return uuid.UUID(self.event_id_texto)


# Byte maps that stamp a random uuid's version (4) and RFC 4122 variant bits.
_VERSAO_4 = bytes(b & 0x0F | 0x40 for b in range(256))
_VARIANTE_RFC = bytes(b & 0x3F | 0x80 for b in range(256))


def uuids4_texto(quantos: int) -> list[str]:
    """quantos random (version 4) uuids in their text form, as str(uuid.uuid4()) gives
    them, at a fraction of the cost (one read of the system's randomness, no uuid
    objects): the worker makes one per output."""
    bruto = bytearray(os.urandom(16 * quantos))
    bruto[6::16] = bruto[6::16].translate(_VERSAO_4)
    bruto[8::16] = bruto[8::16].translate(_VARIANTE_RFC)
    h = bruto.hex()
    return [
        f"{h[i : i + 8]}-{h[i + 8 : i + 12]}-{h[i + 12 : i + 16]}-{h[i + 16 : i + 20]}-"
        f"{h[i + 20 : i + 32]}"
        for i in range(0, 32 * quantos, 32)
    ]


def preparar(
    tipo: str,
    payload: dict[str, Any],
    correlacao_id: uuid.UUID | str | None,
    *,
    versao_schema: str | None = None,
    event_id: str | None = None,
) -> Preparado:
    """Validate and encode one event ahead of its publication (no database needed).
    Raises errors.InvalidEvent naming the field.

    correlacao_id may come as a uuid's text (str(uuid)); event_id, the new event's id
    as text, is made here when not given (see uuids4_texto).
    """
    versao = registry.validar(tipo, payload, versao_schema)
    novo = event_id or uuids4_texto(1)[0]
    texto = json_texto(
        {
            "event_id": novo,
            "correlacao_id": None if correlacao_id is None else str(correlacao_id),
            "payload": payload,
        }
    )
    return Preparado(novo, tipo, versao, texto)


def publicar_preparados(conn: db.Connection, itens: Sequence[Preparado], *, origem: str) -> None:
    """Insert prepared events, all of one type and version, in one statement, in the
    caller's transaction. Their sequence numbers follow the order of itens.
    """
    if not itens:
        return
    tipo, versao = itens[0].tipo, itens[0].versao_schema
    if any(item.tipo != tipo or item.versao_schema != versao for item in itens):
        raise ValueError("publicar_preparados takes events of one type and version")
    try:
        with db.mapped_errors():
            # One JSON document for all the items: psycopg writes Python lists as text
            # arrays, escaping every element (each payload's quotes) with a regex, which
            # was the worker's costliest Python step per event; as binary arrays (what
            # the resolutions use) the publication measured no faster.
            conn.execute(
                db.q("bus_publicar_muitos"),
                {
                    "tipo": tipo,
                    "versao_schema": versao,
                    "origem": origem,
                    "itens": "[" + ",".join(item.texto for item in itens) + "]",
                },
            )
    except errors.D2Error as exc:
        if db.is_transient(exc):
            raise
        # The payloads passed the Registry: a refusal now is the log's, not the events'.
        raise errors.PublishError(f"event log refused {tipo}: {exc}") from exc
    log.debug("eventos inseridos", extra={"tipo": tipo, "quantidade": len(itens), "origem": origem})


def publicar_muitos(
    conn: db.Connection,
    tipo: str,
    itens: Sequence[tuple[dict[str, Any], uuid.UUID | None]],
    *,
    origem: str,
    versao_schema: str | None = None,
) -> list[uuid.UUID]:
    """Validate every (payload, correlacao_id) and insert them all in one statement.

    Their sequence numbers follow the order of itens. Nothing is
    inserted when any payload is invalid (the error names the item's position).
    """
    versao = versao_schema or registry.registry().versao_padrao(tipo)
    preparados: list[Preparado] = []
    for posicao, (payload, correlacao) in enumerate(itens):
        try:
            preparados.append(preparar(tipo, payload, correlacao, versao_schema=versao))
        except errors.InvalidEvent as exc:
            raise errors.InvalidEvent(f"item {posicao}: {exc}") from exc
    publicar_preparados(conn, preparados, origem=origem)
    return [item.event_id for item in preparados]


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
            if db.lideranca_perdida(exc):
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
    apos: int | Posicao,
    limite: int = 1000,
    *,
    max_payload_bytes: int = SEM_LIMITE,
    max_lote_bytes: int = SEM_LIMITE,
) -> list[Evento]:
    """Committed events of tipo (one type, or several merged into one stream) after
    apos, in the readers' order, at most limite.

    apos is a Posicao, or the sequence number of the last event read (its transaction is
    then looked up). Gap-safe: a reader may move its cursor to the last event it read.
    A payload whose text exceeds max_payload_bytes is not fetched: it comes as a
    PayloadIlegivel saying its size. The batch stops before its payloads pass
    max_lote_bytes (one event at least).
    """
    transacao, sequencia = (
        (apos.transacao, apos.sequencia) if isinstance(apos, Posicao) else (None, apos)
    )
    with db.mapped_errors(), conn.cursor(row_factory=tuple_row) as cur:
        rows = cur.execute(
            db.q("bus_ler_desde"),
            {
                "tipos": [tipo] if isinstance(tipo, str) else list(tipo),
                "apos": sequencia,
                "transacao": transacao,
                "limite": limite,
                "max_payload": max_payload_bytes,
                "max_lote": max_lote_bytes,
            },
        ).fetchall()
    return [_evento(row, max_payload_bytes) for row in rows]


def ler_eventos(
    conn: db.Connection, event_ids: Sequence[uuid.UUID], *, max_payload_bytes: int = SEM_LIMITE
) -> list[Evento]:
    """Committed events by event_id (unknown ids are left out), in the readers' order.
    A payload above max_payload_bytes comes as a PayloadIlegivel, as in ler_desde."""
    with db.mapped_errors(), conn.cursor(row_factory=tuple_row) as cur:
        rows = cur.execute(
            db.q("bus_ler_eventos"),
            {"event_ids": list(event_ids), "max_payload": max_payload_bytes},
        ).fetchall()
    return [_evento(row, max_payload_bytes) for row in rows]


class Cerca(NamedTuple):
    retidos: int
    """Committed events readers cannot read yet: an older transaction is still running."""
    atraso_s: float
    """Seconds since the oldest of them was inserted; 0 when none waits."""


def cerca(conn: db.Connection, tipo: str) -> Cerca:
    """What the readers' fence holds back now (a long write transaction anywhere in the
    cluster delays delivery, never loses an event)."""
    with db.mapped_errors(), conn.cursor(row_factory=tuple_row) as cur:
        row = cur.execute(db.q("bus_cerca"), {"tipo": tipo}).fetchone()
    return Cerca(int(row[0]), float(row[1])) if row else Cerca(0, 0.0)


def maior_sequencia(conn: db.Connection, tipo: str | None = None) -> int:
    """The highest committed sequence number, of one type or of the whole log; 0 if none."""
    with db.mapped_errors():
        if tipo is None:
            row = conn.execute(db.q("bus_maior_sequencia")).fetchone()
        else:
            row = conn.execute(db.q("bus_maior_sequencia_tipo"), {"tipo": tipo}).fetchone()
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


def registrar_dead_letter(
    conn: db.Connection,
    *,
    consumidor: str,
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
            db.q("dlq_registrar"),
            {
                "consumidor": consumidor,
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
            "consumidor": consumidor,
            "event_id": str(event_id),
            "tipo": tipo,
            "sequence_number": sequence_number,
            "erro": erro,
        },
    )


def listar_dead_letters(
    conn: db.Connection,
    *,
    consumidor: str | None = None,
    status: str | None = "pendente",
    limite: int = 100,
) -> list[dict[str, Any]]:
    """Dead letters oldest first; None for consumidor or status means any."""
    if status is not None:
        _checar_status(status)
    with db.mapped_errors():
        return conn.execute(
            db.q("dlq_listar"), {"consumidor": consumidor, "status": status, "limite": limite}
        ).fetchall()


def marcar_dead_letter(
    conn: db.Connection, event_id: uuid.UUID, status: str, consumidor: str = "D-2"
) -> int:
    """Set a dead letter's status; returns how many rows changed (0: no such letter)."""
    _checar_status(status)
    with db.mapped_errors():
        cursor = conn.execute(
            db.q("dlq_marcar"), {"event_id": event_id, "status": status, "consumidor": consumidor}
        )
    return cursor.rowcount


def _checar_status(status: str) -> None:
    if status not in STATUS_DLQ:
        raise errors.InvalidInput(
            f"invalid dead-letter status {status!r} (expected one of: {', '.join(STATUS_DLQ)})"
        )
