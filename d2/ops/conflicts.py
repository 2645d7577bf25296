"""Demands in conflict: a demanda_id that came under a second event
with other coordinates or address. Any producer can publish under any demanda_id and
choose its place in the readers' order, so D-2 never takes the first event as the real
one: the later event's terminal state is a row of d2.conflitos_demanda, nothing more is
published for the demanda (the answer already published for the first event cannot be
taken back), and an operator decides here (`d2 conflicts list|aceitar`).
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from d2 import config, db, errors
from d2.eventlog import bus
from d2.handler import handler

log = logging.getLogger(__name__)

COLUNAS = (
    "demanda_id", "event_id", "papel", "origem", "sequence_number", "lat", "lng",
    "com_endereco", "resposta",
)  # fmt: skip


def listar(conn: db.Connection, limite: int = 100) -> list[dict[str, Any]]:
    """The events of the undecided conflicts, oldest conflict first (at most limite
    demandas)."""
    with db.mapped_errors():
        linhas = conn.execute(db.q("conflicts_list"), {"limite": limite}).fetchall()
    for linha in linhas:
        if linha["unidade_civica_id"] is not None:
            linha["resposta"] = (
                f"{linha['unidade_civica_id']} (level {linha['nivel_minimo_resolvido']})"
            )
        else:
            linha["resposta"] = "review" if linha["em_revisao"] else None
    return linhas


def contar(conn: db.Connection) -> dict[str, int]:
    """How many demandas wait for a decision, and how many events came in conflict."""
    with db.mapped_errors():
        row = conn.execute(db.q("conflicts_count")).fetchone()
    return {"demandas": int(row["demandas"]), "eventos": int(row["eventos"])} if row else {}


def aceitar(
    conn: db.Connection, settings: config.Settings, event_id: uuid.UUID, por: str
) -> dict[str, Any]:
    """Decide a conflict for event_id: the demanda keeps that event, the others are
    'recusado'. When it is the event that held the demanda, its answer stays and what the
    territory changed meanwhile is queued for the re-georeferencing follow-up; otherwise
    the holder's answer (or review) goes, kept in its conflict row, and event_id runs
    through the handler: its answer is stored and published (spec 3.3), all in one
    transaction. conn must be in autocommit mode (run as the owner)."""
    db.exigir_autocommit(conn)
    with db.mapped_errors(), conn.transaction():
        aberto = conn.execute(db.q("conflicts_of_event"), {"event_id": event_id}).fetchone()
        if aberto is not None:
            demanda = aberto["demanda_id"]
            conn.execute(db.q("conflicts_lock"), {"demanda_id": demanda}).fetchall()
            aberto = conn.execute(db.q("conflicts_of_event"), {"event_id": event_id}).fetchone()
        if aberto is None:
            raise errors.InvalidInput(
                f"event {event_id} is in no open conflict (d2 conflicts list shows them)"
            )
        dono = conn.execute(db.q("demanda_holders"), {"ids": [demanda]}).fetchone()
        titular = dono["event_id"] if dono else None
        if titular is not None:
            conn.execute(
                db.q("conflicts_record_holder"),
                {"event_id": titular, "demanda_id": demanda, "substituida": titular != event_id},
            )
        if titular is not None and titular != event_id:
            conn.execute(
                db.q("conflicts_remove_holder"), {"demanda_id": demanda, "event_id": titular}
            )
        conn.execute(
            db.q("conflicts_decide"), {"demanda_id": demanda, "escolhido": event_id, "por": por}
        )
        if titular == event_id:
            conn.execute(db.q("conflicts_requeue"), {"demanda_id": demanda})
            outcome = "mantida"
        else:
            eventos = bus.ler_eventos(
                conn, [event_id], max_payload_bytes=settings.max_payload_bytes
            )
            if not eventos:
                raise errors.InvalidInput(f"event {event_id} is no longer in the log")
            resultado = handler.Handler(settings).tratar(conn, eventos[0], mover_cursor=False)
            outcome = next(iter(resultado.contagem), "nenhum")
    log.warning(
        "Conflito de demanda decidido",
        extra={
            "demanda_id": str(demanda),
            "event_id": str(event_id),
            "titular": str(titular) if titular else None,
            "desfecho": outcome,
            "decidido_por": por,
        },
    )
    return {
        "demanda_id": str(demanda),
        "event_id": str(event_id),
        "titular": str(titular) if titular else None,
        "desfecho": outcome,
        "decidido_por": por,
    }
