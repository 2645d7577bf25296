"""Operator tasks over the service: dead-letter retry (and, later, review queue etc.)."""

from __future__ import annotations

import uuid
from typing import Any

from d2 import bus, config, db, service


def reprocessar_dead_letters(
    conn: db.Connection, settings: config.Settings, event_ids: list[uuid.UUID] | None
) -> dict[str, Any]:
    """Run dead-lettered events through the handler again, one at a time.

    The cursor is not moved (these events are behind it). An event that now ends in a
    terminal state is marked 'reprocessado'; one that fails again stays 'pendente' with
    one more attempt counted.
    """
    if event_ids is None:
        pendentes = bus.listar_dead_letters(
            conn, consumidor=service.CONSUMIDOR, status="pendente", limite=1_000_000
        )
        event_ids = [row["event_id"] for row in pendentes]
    eventos = {e.event_id: e for e in bus.ler_eventos(conn, event_ids)}
    servico = service.Servico(settings)
    report: dict[str, Any] = {"pedidos": len(event_ids), "reprocessados": 0, "falharam": 0}
    report["ausentes_do_log"] = [str(e) for e in event_ids if e not in eventos]
    for event_id in event_ids:
        evento = eventos.get(event_id)
        if evento is None:
            continue
        resultado = servico.processar(conn, [evento], mover_cursor=False)
        if resultado.contagem[str(service.Desfecho.DEAD_LETTER)]:
            report["falharam"] += 1
        else:
            with conn.transaction():
                bus.marcar_dead_letter(conn, event_id, "reprocessado", service.CONSUMIDOR)
            report["reprocessados"] += 1
    return report
