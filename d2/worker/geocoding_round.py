"""What one round of the geocoding stage (d2.worker.geocoding) did, and what it writes of
each address it concludes: its d2.geocodificacoes row, or its discard. Both decision
paths, the ladder's and the free-text one (d2.worker.geocoding_free_text), fill it in."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from d2.handler import classification, handler


@dataclass
class Round:
    """What one round of the stage did."""

    concluidas: int = 0
    adiadas: int = 0
    resultados: Counter[str] = field(default_factory=Counter)
    resultado: handler.Result = field(default_factory=handler.Result)
    consultas: Counter[str] = field(default_factory=Counter)  # searches, by ladder step
    ceps_contraditorios: int = 0
    respondeu: bool = False  # the geocoder answered some search of the round


def registro(
    plano: classification.Plan,
    precisao: str | None,
    passo: str | None,
    entendido: dict[str, Any] | None,
    consultas: int,
) -> dict[str, Any]:
    """The address's d2.geocodificacoes row (its motivo filled in when discarded)."""
    return {
        "event_id": plano.event_id_texto,
        "demanda_id": plano.demanda_id_texto,
        "precisao": precisao,
        "passo": passo,
        "entendido": entendido,
        "consultas": consultas,
        "motivo": None,
    }


def descartar(plano: classification.Plan, motivo: str, rodada: Round) -> None:
    """The address discarded: nothing credible was found (the reason counted)."""
    plano.outcome = classification.Outcome.ENDERECO_NAO_RESOLVIDO
    plano.motivo = motivo
    if plano.geocodificacao is not None:
        plano.geocodificacao["motivo"] = motivo
    rodada.resultados[motivo] += 1


def somar(soma: Round, rodada: Round) -> None:
    soma.concluidas += rodada.concluidas
    soma.adiadas += rodada.adiadas
    soma.resultados.update(rodada.resultados)
    soma.resultado.somar(rodada.resultado)
    soma.consultas.update(rodada.consultas)
    soma.ceps_contraditorios += rodada.ceps_contraditorios
