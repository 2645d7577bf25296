"""The compiled fast path of the Registry never accepts what jsonschema refuses."""

from __future__ import annotations

import uuid
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from d2.eventlog import registry

uuids = st.one_of(
    st.uuids().map(str),
    st.uuids().map(lambda u: str(u).upper()),
    st.text(max_size=40),
    st.just("00000000-0000-0000-0000-00000000000g"),
)
valores = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-10, max_value=10),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-200, max_value=200),
    st.text(max_size=10),
    uuids,
)


@st.composite
def payloads(draw: st.DrawFn) -> dict[str, Any]:
    base: dict[str, Any] = {
        "demanda_id": draw(uuids),
        "unidade_civica_id": draw(uuids),
        "nivel_minimo_resolvido": draw(st.one_of(st.integers(min_value=-1, max_value=9), valores)),
        "cadeia_ucs": draw(st.one_of(st.lists(uuids, max_size=4), valores)),
        "metodo_resolucao": draw(st.sampled_from(["gps", "endereco", "inferencia", "GPS", ""])),
        "confianca_geo": draw(st.sampled_from(["alta", "media", "baixa", "altissima"])),
        "coordenadas_lat": draw(valores),
        "coordenadas_lng": draw(valores),
    }
    for chave in draw(st.sets(st.sampled_from(sorted(base)), max_size=3)):
        del base[chave]
    if draw(st.booleans()):
        base[draw(st.text(min_size=1, max_size=8))] = draw(valores)
    return base


@settings(max_examples=600, deadline=None)
@given(payloads())
def test_fast_path_agrees_with_jsonschema(payload: dict[str, Any]) -> None:
    reg = registry.registry()
    chave = ("demanda.georreferenciada", "1.0.0")
    rapido = reg._rapidos[chave]
    assert rapido is not None
    lento = not list(reg._validators[chave].iter_errors(payload))
    try:
        rapido(payload)
        aceito = True
    except Exception:
        aceito = False
    assert aceito == lento


def test_fast_path_accepts_a_real_output() -> None:
    payload = {
        "demanda_id": str(uuid.uuid4()),
        "unidade_civica_id": str(uuid.uuid4()),
        "nivel_minimo_resolvido": 4,
        "cadeia_ucs": [str(uuid.uuid4())],
        "metodo_resolucao": "gps",
        "confianca_geo": "alta",
        "coordenadas_lat": -27.0,
        "coordenadas_lng": -49.0,
    }
    assert registry.registry().erros("demanda.georreferenciada", payload, "1.0.0") == []
    payload["cadeia_ucs"] = ["nope"]
    assert registry.registry().erros("demanda.georreferenciada", payload, "1.0.0") != []
