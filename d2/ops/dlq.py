"""The dead-letter queue as operators see it (`d2 dlq list|retry`): list what the
handler could not take, and run it through the handler again."""

from __future__ import annotations

import uuid
from typing import Any

from d2 import config, db
from d2.eventlog import bus, dead_letters
from d2.handler import classification
from d2.handler.handler import CONSUMER, Handler


def reprocessar(
    conn: db.Connection, settings: config.Settings, event_ids: list[uuid.UUID] | None
) -> dict[str, Any]:
    """Run dead-lettered events through the handler again, one at a time.

    The cursor is not moved (these events are behind it). An event that now ends in a
    terminal state is marked 'reprocessado'; one that fails again stays 'pendente' with
    one more attempt counted.
    """
    if event_ids is None:
        pendentes = listar(conn, consumer=CONSUMER, status="pendente", limite=1_000_000)
        event_ids = [row["event_id"] for row in pendentes]
    eventos = {
        e.event_id: e
        for e in bus.ler_eventos(conn, event_ids, max_payload_bytes=settings.max_payload_bytes)
    }
    handler = Handler(settings)
    report: dict[str, Any] = {"pedidos": len(event_ids), "reprocessados": 0, "falharam": 0}
    report["ausentes_do_log"] = [str(e) for e in event_ids if e not in eventos]
    for event_id in event_ids:
        evento = eventos.get(event_id)
        if evento is None:
            continue
        resultado = handler.tratar(conn, evento, mover_cursor=False)
        if resultado.contagem[str(classification.Outcome.DEAD_LETTER)]:
            report["falharam"] += 1
        else:
            with conn.transaction():
                dead_letters.marcar(conn, event_id, "reprocessado", CONSUMER)
            report["reprocessados"] += 1
    return report


def listar(
    conn: db.Connection,
    *,
    consumer: str | None = None,
    status: str | None = "pendente",
    limite: int = 100,
) -> list[dict[str, Any]]:
    """Dead letters oldest first; None for consumidor or status means any."""
    if status is not None:
        dead_letters.checar_status(status)
    with db.mapped_errors():
        return conn.execute(
            db.q("dlq_list"), {"consumidor": consumer, "status": status, "limite": limite}
        ).fetchall()
