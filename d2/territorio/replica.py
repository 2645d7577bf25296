"""The event-synced replica of the territory (spec Phase 2: 1.6, 2.7, 8.3).

With `d2 mirror source eventos`, the mirror is built from d2.replica_uc instead of
core.uc_polygons, and d2.replica_uc is fed only by `uc.poligono_adicionado`,
`uc.poligono_atualizado` and `uc.poligono_removido` events, read from the event log as
one stream (their order matters: an atualizado after its adicionado). The guarantees are
the demand worker's: a cursor of its own in d2.consumer_offset, idempotency by event_id
(d2.replica_eventos), and each event in exactly one terminal state — its outcome in
d2.replica_eventos (aplicado, removido, ausente, descartado) or a dead letter of consumer
'D-2/replica' — written in one transaction with the cursor. The apply itself is SQL
(sql/functions/replica_aplicar.sql); the mirror then follows through the same path as
for core (d2/territorio/mirror.py), so the chains, the clean intervals and the re-georeferencing
follow-up are the same under both sources.

Any colony can write core.event_log under any origem, fonte or parent, so the apply
knows D-2's importers' events by their own record (d2.poligonos_eventos), and only those
write official polygons; every other event is a proposal, ranked as community and judged
by what it would take (the stored answers it would move, the share of other UCs' areas
it would cover), refused past the bounds, and counted toward the breaker
(d2.replica_paradas), which holds every proposal until `d2 mirror resume` while the
importers' own events still apply. The origins
admitted, the bounds and the breaker's limits are the owner's (d2.replica_limites): this
module passes none, so a worker's login cannot change them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from d2 import config, db, errors
from d2.eventlog import bus, consumer, registry, wire

log = logging.getLogger(__name__)

TIPOS = ("uc.poligono_adicionado", "uc.poligono_atualizado", "uc.poligono_removido")
CURSOR_CHAVE = "uc.poligono_*"  # the stream's key in d2.consumer_offset
CONSUMER = "D-2/replica"
CURSOR = consumer.Cursor(CURSOR_CHAVE, CONSUMER)
FONTES = ("core", "eventos")
OUTCOMES = ("aplicado", "removido", "ausente", "repetido", "descartado", "superado")


@dataclass
class Result:
    """What one drain did, by terminal state."""

    por_outcome: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    dead_letters: int = 0
    parada: str | None = None
    """Why the breaker holds the replica (then the drain applied nothing past it)."""

    def as_json(self) -> dict[str, int | str | None]:
        return {**self.por_outcome, "dead_letters": self.dead_letters, "parada": self.parada}

    @property
    def eventos(self) -> int:
        return sum(self.por_outcome.values()) + self.dead_letters


def fonte(conn: db.Connection) -> str:
    """Where the mirror reads its polygons now: 'core' or 'eventos'."""
    with db.mapped_errors():
        row = conn.execute(db.q("replica_source")).fetchone()
    return str(row["fonte"]) if row else "core"


def cursor(conn: db.Connection) -> bus.Position:
    """The replica's cursor, created at the start of the log the first time: a replica
    started from empty catches up from every uc.poligono_* event ever published."""
    return CURSOR.position(conn)


def drenar(conn: db.Connection, settings: config.Settings, *, batch: int = 50) -> Result:
    """Apply every pending uc.poligono_* event, one transaction each; returns counts.

    conn must be in autocommit mode. A transient database error propagates (the caller
    retries later from the same cursor); any other failure of one event sends it to the
    dead letters and the drain goes on. Payloads above D2_MAX_PAYLOAD_BYTES_UC are never
    fetched (their size is checked in SQL) and batches stop at D2_MAX_BATCH_BYTES.
    While the breaker holds proposals, only D-2's importers' events are applied.
    """
    resultado = Result()
    with db.mapped_errors():
        aberta = conn.execute(db.q("replica_stop_open")).fetchone()
    if aberta is not None:
        resultado.parada = str(aberta["motivo"])  # said when it stopped; d2 status says it
        _durante_parada(conn, settings, resultado, batch)
        return resultado
    apos = cursor(conn)
    while True:
        eventos = _ler(conn, settings, apos, batch)
        if not eventos:
            return resultado
        for evento in eventos:
            try:
                try:
                    _um_evento(conn, evento, resultado)
                except _MirrorAtrasado:
                    # A proposal is judged against the mirror with every earlier event in it.
                    if not _aplicar_mirror(conn):
                        raise
                    _um_evento(conn, evento, resultado)
            except _MirrorAtrasado:
                return resultado  # the cursor waits before it; the round applies the mirror
            except errors.ConsumerPaused as exc:
                resultado.parada = str(exc)
                _parar(conn, evento)
                _durante_parada(conn, settings, resultado, batch)
                return resultado
            apos = bus.position(evento)


def _durante_parada(
    conn: db.Connection, settings: config.Settings, resultado: Result, batch: int
) -> None:
    """While the breaker holds proposals, D-2's importers' own events keep flowing (an
    official import reaches the resolver without waiting for an operator): the events
    past the held one are read, from where an earlier pass of this stop left off, and
    each is given to d2.replica_aplicar, which applies it only when it is the importers'
    (else 'parado': nothing written) and records how far it was asked. The cursor stays
    before the held event: after `d2 mirror resume` the drain applies the proposals in
    their order, an importers' event already applied is 'repetido', and a proposal a later
    event overwrote meanwhile is 'superado'."""
    apos = cursor(conn)
    with db.mapped_errors():
        vista = conn.execute(db.q("replica_stop_read")).fetchone()
    if vista is not None:
        apos = max(apos, bus.Position(int(vista["transacao"]), int(vista["sequencia"])))
    while eventos := _ler(conn, settings, apos, batch):
        for evento in eventos:
            _importador_durante_parada(conn, evento, resultado)
            apos = bus.position(evento)


def _importador_durante_parada(conn: db.Connection, evento: bus.Evento, resultado: Result) -> None:
    if isinstance(evento.payload, wire.UnreadablePayload):
        return  # its dead letter is the resume's drain's to write, in the log's order
    try:
        registry.validar(evento.tipo, evento.payload, evento.versao_schema)
        with db.mapped_errors(), conn.transaction():
            if CURSOR.ja_passou(conn, evento):
                return
            row = conn.execute(db.q("replica_aplicar"), {"event_id": evento.event_id}).fetchone()
    except errors.InvalidEvent:
        return
    except errors.D2Error as exc:
        if db.is_transient(exc):
            raise
        return
    if row is not None and row["desfecho"] in ("aplicado", "removido", "ausente"):
        resultado.por_outcome[row["desfecho"]] += 1
        log.info(
            "Réplica: evento dos importadores aplicado com o disjuntor armado",
            extra={
                "event_id": str(evento.event_id),
                "tipo": evento.tipo,
                "desfecho": row["desfecho"],
            },
        )


def _ler(
    conn: db.Connection, settings: config.Settings, apos: bus.Position, batch: int
) -> list[bus.Evento]:
    """The stream's next events after apos: payloads over D2_MAX_PAYLOAD_BYTES_UC never
    fetched, the batch bounded by D2_MAX_BATCH_BYTES."""
    return bus.ler_desde(
        conn,
        TIPOS,
        apos,
        batch,
        max_payload_bytes=settings.max_payload_bytes_uc,
        max_batch_bytes=settings.max_batch_bytes,
    )


class _MirrorAtrasado(errors.ConsumerPaused):
    """A proposal met changes the mirror has not applied yet: nothing of it is written."""


def _aplicar_mirror(conn: db.Connection) -> bool:
    from d2.territorio import mirror  # the mirror module applies what this module feeds

    return mirror.acompanhar(conn)


def _parar(conn: db.Connection, evento: bus.Evento) -> None:
    """Record the stop: the database judges the event again and keeps its own motivo."""
    with db.mapped_errors():
        row = conn.execute(db.q("replica_stop"), {"event_id": evento.event_id}).fetchone()
    if row is not None and row["parou"]:
        log.error(
            "Réplica parada pelo disjuntor: remoções ou tomadas em massa; "
            "confira os eventos e rode d2 mirror resume",
            extra={"event_id": str(evento.event_id), "tipo": evento.tipo},
        )


def _um_evento(conn: db.Connection, evento: bus.Evento, resultado: Result) -> None:
    def aplicar() -> str:
        if isinstance(evento.payload, wire.UnreadablePayload):
            raise errors.InvalidEvent(str(evento.payload))
        registry.validar(evento.tipo, evento.payload, evento.versao_schema)
        row = conn.execute(db.q("replica_aplicar"), {"event_id": evento.event_id}).fetchone()
        assert row is not None
        if row["desfecho"] == "recusado":
            raise errors.InvalidEvent(str(row["motivo"]))
        if row["desfecho"] == "parado":
            raise errors.ConsumerPaused(str(row["motivo"]))
        if row["desfecho"] == "pendente":
            raise _MirrorAtrasado(str(row["motivo"]))
        return str(row["desfecho"])

    fim, outcome = CURSOR.tratar(conn, evento, aplicar)
    if fim == "dead_letter":
        resultado.dead_letters += 1
    elif fim == "aplicado" and outcome is not None:
        resultado.por_outcome[outcome] += 1
        log.info(
            "Réplica: evento aplicado",
            extra={"event_id": str(evento.event_id), "tipo": evento.tipo, "desfecho": outcome},
        )


def definir_fonte(conn: db.Connection, settings: config.Settings, nova: str) -> dict[str, object]:
    """Switch the mirror's source and rebuild it from there (`d2 mirror source`).

    To 'eventos', the replica first catches up with the log, so the mirror it rebuilds is
    the territory the events describe. conn must be in autocommit mode."""
    if nova not in FONTES:
        raise errors.InvalidInput(f"mirror source must be one of {', '.join(FONTES)}: {nova!r}")
    drenados = drenar(conn, settings).as_json() if nova == "eventos" else None
    if drenados is not None and drenados["parada"] is not None:
        # A mirror rebuilt from a replica its breaker stopped would lack what it holds.
        raise errors.ConsumerPaused(
            f"the replica stopped while catching up ({drenados['parada']}); the mirror still "
            "reads core: check the events, d2 mirror resume, then switch again"
        )
    with db.mapped_errors():
        conn.execute(db.q("replica_set_source"), {"fonte": nova})
    from d2.territorio import mirror  # the mirror module applies what this module feeds

    estados = mirror.reconstruir(conn)
    reconstruido = {r["estado"]: r["quantidade"] for r in estados}
    return {"fonte": nova, "replica": drenados, "mirror": reconstruido}


def publicar_estado(conn: db.Connection, origem: str = "D-2") -> dict[str, int]:
    """Publish what changed in core.uc_polygons since the last call as uc.poligono_*
    events, in the caller's transaction (sql/functions/poligonos_publicar_estado.sql)."""
    with db.mapped_errors():
        row = conn.execute(db.q("replica_publish_state"), {"origem": origem}).fetchone()
    assert row is not None
    return {k: int(v) for k, v in row.items()}


def parada(conn: db.Connection) -> dict[str, object] | None:
    """The breaker's stop in force (event_id, motivo, parada_em), or None."""
    with db.mapped_errors():
        row = conn.execute(db.q("replica_stop_open")).fetchone()
    return dict(row) if row is not None else None


def retomar(conn: db.Connection, *, por: str, descartar_remocoes: bool) -> dict[str, object]:
    """End the breaker's stop (`d2 mirror resume`), as the owner: the count starts again.

    With descartar_remocoes, every uc.poligono_removido waiting after the replica's
    cursor that is not D-2's importers' ends as 'descartado' (the replica passes over
    them); without, the replica applies what it held. conn must be in autocommit mode."""
    with db.mapped_errors(), conn.transaction():
        aberta = conn.execute(db.q("replica_stop_open_lock")).fetchone()
        if aberta is None:
            raise errors.InvalidInput("the replica is not stopped: nothing to resume")
        descartados = 0
        if descartar_remocoes:
            position = cursor(conn)
            row = conn.execute(
                db.q("replica_drop_held_removals"),
                {"transacao": position.transacao, "seq": position.sequencia},
            ).fetchone()
            descartados = int(row["n"]) if row else 0
        conn.execute(
            db.q("replica_resume"),
            {"id": aberta["id"], "por": por, "descartados": descartados},
        )
    log.warning(
        "Réplica retomada",
        extra={"por": por, "descartados": descartados, "event_id": str(aberta["event_id"])},
    )
    return {"event_id": str(aberta["event_id"]), "motivo": aberta["motivo"],
            "descartados": descartados, "por": por}  # fmt: skip
