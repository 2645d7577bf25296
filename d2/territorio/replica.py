"""The event-synced replica of the territory (spec Phase 2: 1.6, 2.7, 8.3).

With `d2 mirror source eventos`, the mirror is built from d2.replica_uc instead of
core.uc_polygons, and d2.replica_uc is fed only by `uc.poligono_adicionado`,
`uc.poligono_atualizado` and `uc.poligono_removido` events, read from the event log as
one stream (their order matters: an atualizado after its adicionado). The guarantees are
the demand worker's: a cursor of its own in d2.consumer_offset, idempotency by event_id
(d2.replica_eventos), and each event in exactly one terminal state — its outcome in
d2.replica_eventos (aplicado, removido, ausente) or a dead letter of consumer
'D-2/replica' — written in one transaction with the cursor. The apply itself is SQL
(sql/functions/replica_aplicar.sql); the mirror then follows through the same path as
for core (d2/territorio/mirror.py), so the chains, the clean intervals and the re-georeferencing
follow-up are the same under both sources.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from psycopg.types.json import Jsonb

from d2 import config, db, errors
from d2.eventlog import bus, consumer, registry, wire

log = logging.getLogger(__name__)

TIPOS = ("uc.poligono_adicionado", "uc.poligono_atualizado", "uc.poligono_removido")
CURSOR_CHAVE = "uc.poligono_*"  # the stream's key in d2.consumer_offset
CONSUMIDOR = "D-2/replica"
CURSOR = consumer.Cursor(CURSOR_CHAVE, CONSUMIDOR)
FONTES = ("core", "eventos")
DESFECHOS = ("aplicado", "removido", "ausente", "repetido")


@dataclass
class Result:
    """What one drain did, by terminal state."""

    por_desfecho: dict[str, int] = field(default_factory=lambda: dict.fromkeys(DESFECHOS, 0))
    dead_letters: int = 0

    def as_json(self) -> dict[str, int]:
        return {**self.por_desfecho, "dead_letters": self.dead_letters}

    @property
    def eventos(self) -> int:
        return sum(self.por_desfecho.values()) + self.dead_letters


def fonte(conn: db.Connection) -> str:
    """Where the mirror reads its polygons now: 'core' or 'eventos'."""
    with db.mapped_errors():
        row = conn.execute(db.q("replica_source")).fetchone()
    return str(row["fonte"]) if row else "core"


def cursor(conn: db.Connection) -> bus.Position:
    """The replica's cursor, created at the start of the log the first time: a replica
    started from empty catches up from every uc.poligono_* event ever published."""
    return CURSOR.posicao(conn)


def drenar(conn: db.Connection, settings: config.Settings, *, lote: int = 50) -> Result:
    """Apply every pending uc.poligono_* event, one transaction each; returns counts.

    conn must be in autocommit mode. A transient database error propagates (the caller
    retries later from the same cursor); any other failure of one event sends it to the
    dead letters and the drain goes on. Payloads above D2_MAX_PAYLOAD_BYTES_UC are never
    fetched (their size is checked in SQL) and batches stop at D2_MAX_BATCH_BYTES.
    """
    resultado = Result()
    apos = cursor(conn)
    while True:
        eventos = bus.ler_desde(
            conn,
            TIPOS,
            apos,
            lote,
            max_payload_bytes=settings.max_payload_bytes_uc,
            max_lote_bytes=settings.max_batch_bytes,
        )
        if not eventos:
            return resultado
        for evento in eventos:
            _um_evento(conn, evento, resultado)
            apos = bus.posicao(evento)


def _um_evento(conn: db.Connection, evento: bus.Evento, resultado: Result) -> None:
    def aplicar() -> str:
        if isinstance(evento.payload, wire.UnreadablePayload):
            raise errors.InvalidEvent(str(evento.payload))
        registry.validar(evento.tipo, evento.payload, evento.versao_schema)
        row = conn.execute(
            db.q("replica_aplicar"),
            {"event_id": evento.event_id, "tipo": evento.tipo, "payload": Jsonb(evento.payload)},
        ).fetchone()
        assert row is not None
        return str(row["desfecho"])

    fim, desfecho = CURSOR.tratar(conn, evento, aplicar)
    if fim == "dead_letter":
        resultado.dead_letters += 1
    elif fim == "aplicado" and desfecho is not None:
        resultado.por_desfecho[desfecho] += 1
        log.info(
            "Réplica: evento aplicado",
            extra={"event_id": str(evento.event_id), "tipo": evento.tipo, "desfecho": desfecho},
        )


def definir_fonte(conn: db.Connection, settings: config.Settings, nova: str) -> dict[str, object]:
    """Switch the mirror's source and rebuild it from there (`d2 mirror source`).

    To 'eventos', the replica first catches up with the log, so the mirror it rebuilds is
    the territory the events describe. conn must be in autocommit mode."""
    if nova not in FONTES:
        raise errors.InvalidInput(f"mirror source must be one of {', '.join(FONTES)}: {nova!r}")
    drenados = drenar(conn, settings).as_json() if nova == "eventos" else None
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
