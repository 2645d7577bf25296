"""What the handler decides for each event before touching the database (spec 3.3 steps
2-3 and the dead-letter checks): pure functions over the events read from the log.
"""

from __future__ import annotations

import enum
import functools
import json
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from d2 import config, errors
from d2.eventlog import bus, wire
from d2.territorio import resolver

if TYPE_CHECKING:
    from d2.geocoder import question

_VERSAO_ACEITA = re.compile(r"\A1\.\d+\.\d+\Z")
_CONTAINER = (dict, list)  # isinstance takes a tuple of types


class Outcome(enum.StrEnum):
    GEORREFERENCIADA = "georreferenciada"
    REPUBLICADA = "republicada"
    SEM_COORDENADAS = "sem_coordenadas"
    COORDENADAS_INVALIDAS = "coordenadas_invalidas"
    REVISAO_PENDENTE = "revisao_pendente"
    DEAD_LETTER = "dead_letter"
    # No usable GPS but an address: parked for the geocoding stage (not terminal yet).
    GEOCODIFICACAO_PENDENTE = "geocodificacao_pendente"
    # The geocoding stage found nothing credible: discarded like sem_coordenadas.
    ENDERECO_NAO_RESOLVIDO = "endereco_nao_resolvido"
    # The demanda_id is held by another event with other coordinates or address: an
    # operator decides (d2.conflitos_demanda); never first-wins, never a dead letter.
    CONFLITO = "conflito"


@dataclass
class Plan:
    """What the handler decided for one event, filled in as the batch goes."""

    evento: bus.Evento
    outcome: Outcome | None = None
    demanda_id: uuid.UUID | None = None
    lat: float | None = None
    lng: float | None = None
    resolucao: resolver.Resolucao | None = None
    gravada: dict[str, Any] | None = None  # the resolution row as stored
    saida: bus.Prepared | None = None  # its demanda.georreferenciada, validated
    motivo: str = ""
    endereco: question.Endereco | None = None  # the address, when GPS is missing or invalid
    metodo: str = "gps"
    confianca: str = "alta"
    endereco_geocodificado: str | None = None
    da_fila: bool = False  # from d2.geocodificacoes_pendentes: leaves it when concluded
    titular: uuid.UUID | None = None  # the event holding the demanda, for a CONFLITO
    retida: bool = False  # a replay of a demanda in conflict: nothing is republished
    # What the geocoding stage understood and how it answered: its d2.geocodificacoes row
    # (event_id, demanda_id, precisao, passo, entendido, consultas, motivo).
    geocodificacao: dict[str, Any] | None = None

    @property
    def correlacao_id(self) -> uuid.UUID | None:
        return self.evento.correlacao_id or self.demanda_id

    # The ids as text, printed once: a resolution row, its output event and its processed
    # mark each carry them (read only once the event is classified).
    @functools.cached_property
    def event_id_texto(self) -> str:
        return str(self.evento.event_id)

    @functools.cached_property
    def demanda_id_texto(self) -> str:
        assert self.demanda_id is not None, "read only for an event with its demanda"
        return str(self.demanda_id)

    @functools.cached_property
    def correlacao_id_texto(self) -> str:
        if self.evento.correlacao_id is None:
            return self.demanda_id_texto
        return str(self.evento.correlacao_id)


def profundidade_excede(valor: Any, limite: int) -> bool:
    """True when some object or array sits deeper than limite (the payload itself is 1)."""
    # Level by level, holding only the containers: scalars, most of a payload, are
    # looked at once and never stored.
    camada = [valor] if isinstance(valor, _CONTAINER) else []
    nivel = 1
    while camada:
        if nivel > limite:
            return True
        camada = [
            filho
            for atual in camada
            for filho in (atual.values() if isinstance(atual, dict) else atual)
            if isinstance(filho, _CONTAINER)
        ]
        nivel += 1
    return False


def tamanho_excede(evento: bus.Evento, limite: int) -> int | None:
    """The payload's size in bytes (as json.dumps with ensure_ascii=False writes it, in
    UTF-8) when above limite, else None."""
    if evento.tamanho_max_bytes is not None and evento.tamanho_max_bytes <= limite:
        return None  # the bound the bus read with the event settles it without encoding
    tamanho = len(json.dumps(evento.payload, ensure_ascii=False).encode())
    return tamanho if tamanho > limite else None


def classificar(evento: bus.Evento, settings: config.Settings) -> Plan:
    """Steps 2-3 and the dead-letter checks, without touching the database."""
    plano = Plan(evento)
    payload = evento.payload
    if evento.origem not in settings.demanda_origens:
        # Declared by the producer, so only a first filter (a claim, not an identity); the
        # conflict review below does not depend on it.
        return morto(
            plano,
            f"origem {evento.origem[:40]!r} may not publish {evento.tipo} "
            f"(D2_DEMANDA_ORIGENS: {', '.join(settings.demanda_origens)})",
        )
    if isinstance(payload, wire.UnreadablePayload):
        return morto(plano, f"payload unreadable: {payload.motivo}")
    profundidade_max = evento.profundidade_max
    if (
        profundidade_max is None or profundidade_max > settings.max_payload_depth
    ) and profundidade_excede(payload, settings.max_payload_depth):
        return morto(plano, f"payload nested deeper than {settings.max_payload_depth} levels")
    tamanho = tamanho_excede(evento, settings.max_payload_bytes)
    if tamanho is not None:
        return morto(plano, f"payload of {tamanho} bytes exceeds {settings.max_payload_bytes}")
    if not isinstance(payload, dict):
        return morto(plano, f"payload is not a JSON object (got {type(payload).__name__})")
    if not _VERSAO_ACEITA.match(evento.versao_schema or ""):
        return morto(plano, f"unsupported versao_schema {evento.versao_schema!r} (D-2 reads 1.x)")
    bruto = payload.get("demanda_id")
    if bruto is None:
        return morto(plano, "demanda_id missing")
    try:
        if not isinstance(bruto, str):
            raise ValueError
        plano.demanda_id = uuid.UUID(bruto)
    except ValueError:
        # Its type and length only: a producer's bug may put a citizen's text there.
        comprimento = f" of {len(bruto)} characters" if isinstance(bruto, str) else ""
        return morto(plano, f"demanda_id is not a UUID ({_tipo_json(bruto)}{comprimento})")

    coordenadas = payload.get("coordenadas_validadas")
    if coordenadas is None:
        plano.outcome = Outcome.SEM_COORDENADAS
    elif not isinstance(coordenadas, dict):
        plano.outcome = Outcome.COORDENADAS_INVALIDAS
        plano.motivo = f"coordenadas_validadas is not an object (got {type(coordenadas).__name__})"
    else:
        try:
            plano.lat = resolver.coordenada(coordenadas.get("lat"), "lat", 90)
            plano.lng = resolver.coordenada(coordenadas.get("lng"), "lng", 180)
        except errors.InvalidInput as exc:
            plano.outcome = Outcome.COORDENADAS_INVALIDAS
            plano.motivo = str(exc)
    sem_fix = plano.outcome is None and sem_position(plano.lat, plano.lng)
    if (plano.outcome is not None or sem_fix) and settings.geocoder_ativo:
        # Spec 3.3 step 2, Phase 2: no usable GPS, but an address → the geocoding stage.
        # A no-fix value is no position either: with an address, the text decides;
        # without one it stays a point, outside every polygon (the review queue). The
        # address's reader is imported here, by the first event without usable GPS: a
        # worker whose demands all carry GPS never loads it.
        from d2.geocoder import question

        plano.endereco = question.do_payload(payload)
        if plano.endereco is not None:
            plano.lat = plano.lng = None
            plano.outcome = Outcome.GEOCODIFICACAO_PENDENTE
    return plano


# Brazil's extent with its oceanic islands (Fernando de Noronha, Trindade, São Pedro e
# São Paulo), a little wider. Upstream checks a bounding box (the spec, section 2.9), so
# a point outside it is a phone's placeholder or a bug, never where a Brazilian address is.
_BRASIL_LAT = (-34.0, 5.5)
_BRASIL_LNG = (-74.5, -28.5)


def sem_position(lat: float | None, lng: float | None) -> bool:
    """Whether valid coordinates are a no-fix value rather than a position: (0, 0),
    what many phones send without a fix, or a point outside Brazil's extent."""
    if lat is None or lng is None:
        return False
    if lat == 0 and lng == 0:
        return True
    return not (_BRASIL_LAT[0] <= lat <= _BRASIL_LAT[1] and _BRASIL_LNG[0] <= lng <= _BRASIL_LNG[1])


def _tipo_json(valor: object) -> str:
    """A JSON value's type as JSON names it."""
    if isinstance(valor, bool):
        return "boolean"
    nomes = {str: "string", int: "integer", float: "number", list: "array", dict: "object"}
    return nomes.get(type(valor), "null")


def morto(plano: Plan, motivo: str) -> Plan:
    """The plan of an event bound for the dead letters, for motivo."""
    plano.outcome = Outcome.DEAD_LETTER
    plano.motivo = motivo
    return plano


def em_conflito(plano: Plan, titular: uuid.UUID) -> Plan:
    """The plan of an event whose demanda titular holds with other content."""
    plano.outcome = Outcome.CONFLITO
    plano.titular = titular
    plano.motivo = (
        f"demanda_id {plano.demanda_id} held by event {titular} with other coordinates "
        "or address: an operator decides (d2 conflicts list)"
    )
    return plano


# What a demand says about where it is: two events of one demanda that agree on these are
# the same demand (a producer's retry); that disagree, a conflict.
_ENDERECO = ("endereco", "nomeRua", "cep")


def conteudo(payload: Any) -> str:
    """The part of a demanda.normalizada payload D-2 acts on (coordinates, address), as a
    comparable text."""
    if not isinstance(payload, dict):
        return json.dumps(payload, sort_keys=True, default=str)
    entidades = payload.get("entidades_extraidas")
    endereco = (
        {k: entidades.get(k) for k in _ENDERECO} if isinstance(entidades, dict) else entidades
    )
    return json.dumps([payload.get("coordenadas_validadas"), endereco], sort_keys=True, default=str)


def classificar_batch(
    eventos: list[bus.Evento],
    existentes: Mapping[uuid.UUID, dict[str, Any]],
    settings: config.Settings,
) -> list[Plan]:
    """Each event's plan: republished when existentes (resolutions by event_id) holds it
    (step 1; held back while its demanda is in conflict), else classificar's; a demanda
    claimed by an earlier event of the batch makes the later one a dead letter when both
    say the same (a retry), a conflict when they do not."""
    planos: list[Plan] = []
    dono: dict[uuid.UUID, Plan] = {}
    for evento in eventos:
        if evento.event_id in existentes:
            existente = existentes[evento.event_id]
            plano = Plan(evento, Outcome.REPUBLICADA, existente["demanda_id"])
            plano.gravada = existente
            plano.retida = bool(existente.get("em_conflito"))
        else:
            plano = classificar(evento, settings)
        # Only events that will write a resolution or a review claim their demanda
        # (event by event, a discard never meets the unique constraints either).
        if plano.demanda_id is not None and plano.outcome in (None, Outcome.REPUBLICADA):
            primeiro = dono.setdefault(plano.demanda_id, plano)
            if primeiro is not plano:
                titular = primeiro.evento.event_id
                if conteudo(evento.payload) == conteudo(primeiro.evento.payload):
                    morto(plano, f"demanda_id {plano.demanda_id} repeated under event {titular}")
                else:
                    em_conflito(plano, titular)
        planos.append(plano)
    return planos
