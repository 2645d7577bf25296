"""The wire format's fast encoders (d2.eventlog.wire) agree with the standard library's."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from d2.eventlog import wire


def test_uuids4_texto_are_canonical_random_version_4_uuids() -> None:
    vistos = set()
    for quantos in (1, 2, 17, 500, 1_480):
        textos = wire.uuids4_texto(quantos)
        assert len(textos) == quantos
        for texto in textos:
            valor = uuid.UUID(texto)
            assert str(valor) == texto
            assert valor.version == 4 and valor.variant == uuid.RFC_4122
            vistos.add(texto)
    assert len(vistos) == 2_000
    assert wire.uuids4_texto(0) == []


def test_json_texto_matches_json_and_refuses_what_it_refuses() -> None:
    valores: list[Any] = [
        {"a": [1, 2.5, None, "ção", {"b": True}], "c": -0.0, 1: "chave int"},
        [2**70, 1e-7, "\\u2028"],
        {"cadeia": [str(uuid.UUID(int=5))], "x": None},
    ]
    for valor in valores:
        assert json.loads(wire.json_texto(valor)) == json.loads(
            json.dumps(valor, ensure_ascii=False, allow_nan=False)
        )
    for ruim in (float("nan"), {"a": [None, float("inf")]}, [float("-inf")]):
        with pytest.raises(ValueError):
            wire.json_texto(ruim)
