"""The log line of each outcome of the handler (structured JSON: event_id, demanda_id,
correlacao_id and the resolved UC where there is one). Addresses and coordinates are never
logged: they are personal data (LGPD)."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from d2 import db
from d2.handler.classification import Outcome, Plan

log = logging.getLogger("d2.handler")

# The level each outcome is logged at.
NIVEL: dict[Outcome, int] = {
    Outcome.GEORREFERENCIADA: logging.INFO,
    Outcome.REPUBLICADA: logging.INFO,
    Outcome.SEM_COORDENADAS: logging.WARNING,
    Outcome.COORDENADAS_INVALIDAS: logging.ERROR,
    Outcome.REVISAO_PENDENTE: logging.WARNING,
    Outcome.DEAD_LETTER: logging.ERROR,
    Outcome.GEOCODIFICACAO_PENDENTE: logging.DEBUG,
    Outcome.ENDERECO_NAO_RESOLVIDO: logging.WARNING,
    Outcome.CONFLITO: logging.WARNING,
}


def registrar(conn: db.Connection, planos: list[Plan], novos_pendentes: set[uuid.UUID]) -> None:
    pendentes_total: int | None = None
    # Asked once per batch: a level that is off (INFO, usually, under load) then costs
    # no per-event extra dict, nor the pending count that only a warning would show.
    registrados = {d for d, nivel in NIVEL.items() if log.isEnabledFor(nivel)}
    for plano in planos:
        if plano.outcome not in registrados:
            continue
        base: dict[str, Any] = {
            "event_id": plano.evento.event_id,
            "demanda_id": plano.demanda_id,
            "correlacao_id": plano.correlacao_id,
        }
        match plano.outcome:
            case Outcome.GEORREFERENCIADA:
                assert plano.resolucao is not None
                resposta = {
                    "unidade_civica_id": plano.resolucao.unidade_civica_id,
                    "nivel_minimo_resolvido": plano.resolucao.nivel_minimo_resolvido,
                }
                if plano.resolucao.distancia_m is not None:  # the near rule answered it
                    resposta |= {
                        "passo": "proximidade",
                        "distancia_m": round(plano.resolucao.distancia_m, 1),
                    }
                log.info("Demanda georreferenciada", extra=base | resposta)
            case Outcome.REPUBLICADA:
                assert plano.gravada is not None
                log.info(
                    "Evento já processado; demanda em conflito, nada republicado"
                    if plano.retida
                    else "Evento já processado, republicando saída",
                    extra=base | {"unidade_civica_id": plano.gravada["unidade_civica_id"]},
                )
            case Outcome.CONFLITO:
                log.warning(
                    "Demanda em conflito — mesmo demanda_id com outro conteúdo; "
                    "aguardando decisão do operador",
                    extra=base | {"titular": plano.titular, "motivo": plano.motivo},
                )
            case Outcome.SEM_COORDENADAS:
                log.warning("Demanda sem coordenadas — descartando", extra=base)
            case Outcome.GEOCODIFICACAO_PENDENTE:
                log.debug("Demanda com endereço aguardando o geocodificador", extra=base)
            case Outcome.ENDERECO_NAO_RESOLVIDO:
                # The reason only: the address itself is personal data (LGPD).
                log.warning(
                    "Endereço sem local confiável — descartando",
                    extra=base | {"motivo": plano.motivo},
                )
            case Outcome.COORDENADAS_INVALIDAS:
                # The field and the rule, not the values: an invalid pair may still place
                # the citizen; the event_id leads whoever may read the event to them.
                log.error("Coordenadas inválidas", extra=base | {"motivo": plano.motivo})
            case Outcome.REVISAO_PENDENTE:
                if pendentes_total is None:
                    with db.mapped_errors():
                        row = conn.execute(db.q("revisoes_count")).fetchone()
                    pendentes_total = int(row["n"]) if row else 0
                log.warning(
                    "Ponto fora de todos os polígonos — demanda marcada para revisão manual",
                    extra=base
                    | {
                        "revisoes_pendentes": pendentes_total,
                        "nova": plano.evento.event_id in novos_pendentes,
                    },
                )
            case Outcome.DEAD_LETTER:
                log.error("Evento enviado à DLQ", extra=base | {"motivo": plano.motivo})
