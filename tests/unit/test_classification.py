"""classificar's cheap checks (depth, size) decide exactly as the plain ones they replace."""

from __future__ import annotations

import dataclasses
import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from d2 import config
from d2.eventlog import bus
from d2.handler import classification

CONFIG = config.Settings(
    database_url=None,
    home=Path("/nonexistent"),
    batch_size=500,
    poll_interval_s=1.0,
    cache_max_entries=10,
    cache_ttl_s=60,
    metrics_port=0,
    max_payload_bytes=256 * 1024,
    max_payload_depth=32,
)


def _profundidade_excede_antes(valor: Any, limite: int) -> bool:
    """The depth check as it was: a stack of every value, scalars included."""
    pilha: list[tuple[Any, int]] = [(valor, 1)]
    while pilha:
        atual, nivel = pilha.pop()
        if isinstance(atual, dict | list):
            if nivel > limite:
                return True
            filhos = atual.values() if isinstance(atual, dict) else atual
            pilha.extend((filho, nivel + 1) for filho in filhos)
    return False


escalares = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=5)
)
json_valores = st.recursive(
    escalares,
    lambda filhos: st.one_of(
        st.lists(filhos, max_size=4), st.dictionaries(st.text(max_size=3), filhos, max_size=4)
    ),
    max_leaves=30,
)


def _aninhado(niveis: int, folha: Any = 1) -> Any:
    valor = folha
    for i in range(niveis):
        valor = [valor] if i % 2 else {"k": valor}
    return valor


@settings(max_examples=1000, deadline=None)
@given(json_valores, st.integers(min_value=0, max_value=6))
def test_depth_check__agrees_with_the_stack_of_every_value(valor: Any, limite: int) -> None:
    assert classification.profundidade_excede(valor, limite) is _profundidade_excede_antes(
        valor, limite
    )


@pytest.mark.parametrize("niveis", [0, 1, 31, 32, 33, 100])
@pytest.mark.parametrize("folha", [1, [], {}, "x"])
def test_depth_check__at_the_limit(niveis: int, folha: Any) -> None:
    valor = _aninhado(niveis, folha)
    assert classification.profundidade_excede(valor, 32) is _profundidade_excede_antes(valor, 32)


def _evento(
    payload: Any, tamanho_max_bytes: int | None = None, profundidade_max: int | None = None
) -> bus.Evento:
    return bus.Evento(
        sequence_number=1,
        event_id=uuid.uuid4(),
        tipo="demanda.normalizada",
        versao_schema="1.2.0",
        origem="D-1b",
        correlacao_id=None,
        payload=payload,
        publicado_em=datetime.now(UTC),
        tamanho_max_bytes=tamanho_max_bytes,
        profundidade_max=profundidade_max,
    )


def _payload(**extra: Any) -> dict[str, Any]:
    return {
        "demanda_id": str(uuid.uuid4()),
        "coordenadas_validadas": {"lat": -27.0, "lng": -49.0},
        **extra,
    }


def _plano(evento: bus.Evento) -> tuple[Any, ...]:
    plano = classification.classificar(evento, CONFIG)
    return (plano.outcome, plano.motivo, plano.demanda_id, plano.lat, plano.lng)


@pytest.mark.parametrize(
    "payload",
    [
        _payload(),
        _payload(lixo="x" * 300_000),
        _payload(lixo="é" * 140_000),  # 2 bytes each in UTF-8
        _payload(lixo="x" * (256 * 1024 - 200)),
        [0.1] * 50_000,
        "x" * 300_000,
    ],
)
def test_size_check__same_plan_whatever_the_bound(payload: Any) -> None:
    exato = len(json.dumps(payload, ensure_ascii=False).encode())
    esperado = _plano(_evento(payload))
    # No bound, or any true bound (at least the exact size), at or around the limit.
    limites = {exato, exato + 1, max(exato, CONFIG.max_payload_bytes), exato + 10_000}
    for limite in (None, *sorted(limites)):
        assert _plano(_evento(payload, limite)) == esperado


def test_size_check__message_gives_the_encoded_size() -> None:
    payload = _payload(lixo="é" * 140_000)
    exato = len(json.dumps(payload, ensure_ascii=False).encode())
    plano = classification.classificar(_evento(payload, exato + 500), CONFIG)
    assert plano.outcome == classification.Outcome.DEAD_LETTER
    assert plano.motivo == f"payload of {exato} bytes exceeds {CONFIG.max_payload_bytes}"


@pytest.mark.parametrize("niveis", [0, 30, 31, 32, 33, 100])
def test_depth_check__same_plan_whatever_the_bound(niveis: int) -> None:
    payload = _payload(n=_aninhado(niveis), texto="[{" * 40)
    exata = max(niveis + 1, 2)  # the payload is an object, so is coordenadas_validadas
    esperado = _plano(_evento(payload))
    assert (esperado[0] == classification.Outcome.DEAD_LETTER) is (exata > 32)
    for limite in (None, exata, exata + 1, 32, 33, 200):
        if limite is None or limite >= exata:  # a bound never underestimates
            assert _plano(_evento(payload, profundidade_max=limite)) == esperado


def test_evento__bounds_left_out_of_equality_and_repr() -> None:
    evento = _evento(_payload())
    com_limite = dataclasses.replace(evento, tamanho_max_bytes=123, profundidade_max=7)
    assert com_limite == evento
    assert repr(com_limite) == repr(evento)


def test_origem__only_the_listed_producers_publish_demands() -> None:
    """demanda.normalizada from an origem outside D2_DEMANDA_ORIGENS is a
    dead letter, named in one line, before anything of its payload is looked at."""
    evento = dataclasses.replace(_evento(_payload()), origem="D-4")
    plano = classification.classificar(evento, CONFIG)
    assert plano.outcome == classification.Outcome.DEAD_LETTER
    assert plano.motivo == (
        "origem 'D-4' may not publish demanda.normalizada (D2_DEMANDA_ORIGENS: D-1b)"
    )
    outros = dataclasses.replace(CONFIG, demanda_origens=("D-1b", "D-4"))
    assert classification.classificar(evento, outros).outcome is None


def test_conteudo__a_retry_is_the_same_demand_another_place_is_not() -> None:
    base = _payload(titulo="Buraco", entidades_extraidas={"endereco": "Rua A, 1", "x": 1})
    retry = json.loads(json.dumps(base)) | {"titulo": "Buraco grande", "conteudo_suspeito": True}
    retry["entidades_extraidas"]["x"] = 2  # what D-2 does not read does not count
    assert classification.conteudo(retry) == classification.conteudo(base)
    outro_ponto = base | {"coordenadas_validadas": {"lat": -27.0, "lng": -49.00001}}
    outro_endereco = base | {"entidades_extraidas": {"endereco": "Rua B, 1"}}
    sem_endereco = {k: v for k, v in base.items() if k != "entidades_extraidas"}
    for outro in (outro_ponto, outro_endereco, sem_endereco):
        assert classification.conteudo(outro) != classification.conteudo(base)


def test_batch__same_demanda_twice_in_a_batch_is_a_retry_or_a_conflict() -> None:
    demanda = str(uuid.uuid4())
    primeiro = _evento(_payload(demanda_id=demanda))
    retry = _evento(_payload(demanda_id=demanda))
    outro = _evento(_payload(demanda_id=demanda, coordenadas_validadas={"lat": 1, "lng": 1}))
    planos = classification.classificar_batch([primeiro, retry, outro], {}, CONFIG)
    assert [p.outcome for p in planos] == [
        None,
        classification.Outcome.DEAD_LETTER,
        classification.Outcome.CONFLITO,
    ]
    assert "repeated under event" in planos[1].motivo
    assert planos[2].titular == primeiro.event_id


ENDERECO = {"endereco": "Rua Antônio Maria Coelho, 1500, Campo Grande - MS"}


@pytest.mark.parametrize(
    ("lat", "lng", "sem_position"),
    [
        (0, 0, True),  # many phones without a fix
        (0.0, -0.0, True),
        (37.422, -122.084, True),  # far outside Brazil (an emulator's default)
        (-20.46, -54.61, False),  # Campo Grande
        (-3.85, -32.42, False),  # Fernando de Noronha
        (0.0, -50.0, False),  # on the equator, in Amapá
        (0.00001, 0.0, True),  # outside Brazil
    ],
)
def test_no_fix__with_an_address_the_text_decides(
    lat: float, lng: float, sem_position: bool
) -> None:
    """A no-fix value is no position: with an address it goes to the address path; a
    real point stays GPS, which always wins over the text."""
    coordenadas = {"lat": lat, "lng": lng}
    plano = classification.classificar(
        _evento(_payload(coordenadas_validadas=coordenadas, entidades_extraidas=ENDERECO)), CONFIG
    )
    if sem_position:
        assert plano.outcome == classification.Outcome.GEOCODIFICACAO_PENDENTE
        assert (plano.lat, plano.lng) == (None, None)
        assert plano.endereco is not None
    else:
        assert plano.outcome is None
        assert (plano.lat, plano.lng) == (lat, lng)


@pytest.mark.parametrize(("lat", "lng"), [(0, 0), (37.422, -122.084)])
def test_no_fix__without_an_address_it_stays_a_point(lat: float, lng: float) -> None:
    """Without an address the spec's rule stands: a point, resolved (outside every
    polygon: the review queue); and with the geocoder off, even with an address."""
    coordenadas = {"lat": lat, "lng": lng}
    sem_texto = classification.classificar(
        _evento(_payload(coordenadas_validadas=coordenadas)), CONFIG
    )
    assert (sem_texto.outcome, sem_texto.lat, sem_texto.lng) == (None, lat, lng)
    desligado = dataclasses.replace(CONFIG, geocoder_ativo=False)
    evento = _evento(_payload(coordenadas_validadas=coordenadas, entidades_extraidas=ENDERECO))
    plano = classification.classificar(evento, desligado)
    assert (plano.outcome, plano.lat, plano.lng) == (None, lat, lng)
