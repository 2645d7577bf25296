"""The address path's answer for one address (Geocoding), what the handler turns into the
demanda's outcome (d2.handler.handler.Handler.concluir_enderecos) and the geocoding stage
counts (d2.worker.geocoding). It says what was read and found in its own words — the
fields understood, whether the CEP contradicted the place named, the step that answered,
the precision, the UC and point — and carries nothing of the reading behind it."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from d2.geocoder.places.inference import Reason
from d2.territorio import resolver


@dataclass
class Geocoding:
    """The address path's answer for one address, as d2.geocodificacoes records it once
    concluded: the UC and point found (method, confidence, precision, the step that
    answered), or why nothing credible was found, or that Nominatim did not answer
    (indisponivel: the address waits and is asked again)."""

    entendido: dict[str, Any] | None = None  # the fields and places understood (its JSON)
    cep_contraditorio: bool = False  # the CEP named another place than the text: set aside
    resolucao: resolver.Resolucao | None = None
    lat: float | None = None
    lng: float | None = None
    metodo: str | None = None  # endereco | inferencia
    confianca: str | None = None  # media | baixa
    precisao: str | None = None
    passo: str | None = None
    nome: str | None = None  # Nominatim's display name (endereco_geocodificado)
    motivo: str | None = None  # why discarded
    indisponivel: str | None = None  # the geocoder did not answer: try again later
    consultas: int = 0
    por_passo: Counter[str] = field(default_factory=Counter)  # searches made, by step

    @property
    def motivo_final(self) -> str:
        """Why nothing credible was found (not found, when no step said more)."""
        return self.motivo or str(Reason.NAO_ENCONTRADO)

    @property
    def resultado(self) -> str:
        """The metric label of this answer: its method, unavailable, or the reason."""
        if self.indisponivel is not None:
            return "indisponivel"
        if self.resolucao is not None and self.metodo is not None:
            return self.metodo
        return self.motivo_final
