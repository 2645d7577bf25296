"""Hostile address texts cost what an address costs (docs/reliability.md, section 6):
what reaches the geocoder is a few short fields, never the text, and a bounded number of
searches per address, whatever the text; the parser's own work is bounded too
(tests/unit/geocoder/test_fields.py)."""

from __future__ import annotations

import json

import psycopg
import pytest
from psycopg.rows import dict_row

from d2 import config
from d2.bench import adversarial
from d2.geocoder import fields
from d2.worker import loop
from tests.support import events, invariants
from tests.support.address_fixtures import FalsoNominatim

# A field of a search: a short phrase (a street and its number, a city, a CEP).
MAX_CARACTERES = 120


def test_geocoder_adversarial__what_reaches_the_geocoder_is_bounded(
    geocoder_falso_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    textos = [
        *adversarial.adversarios(40),
        "Rua das Palmeiras " * 30 + ", " + "Vila Aurora, " * 40,
        ("Rua " + "Palmeiras " * 20 + "10 ") * 20,
    ]
    with psycopg.connect(geocoder_falso_url, autocommit=True, row_factory=dict_row) as conn:
        for texto in textos:
            payload = events.payload_normalizada(entidades_extraidas={"endereco": texto})
            payload["coordenadas_validadas"] = None
            events.inserir_evento(conn, payload)
        settings = config.load()
        assert settings.database_url is not None
        loop.Worker(settings, url=settings.database_url).executar(drain=True)
        pedidos = FalsoNominatim.pedidos
        campos = [
            v for p in pedidos for chave, vs in p.items() if chave in (
                "q", "street", "city", "amenity", "postalcode") for v in vs
        ]  # fmt: skip
        longos = [
            v for v in campos if len(v) > MAX_CARACTERES or len(v.split()) > 2 * fields.MAX_PALAVRAS
        ]
        assert longos == []
        # A few searches per text at most, never one per segment or word.
        assert len(pedidos) <= 3 * len(textos)
        assert conn.execute(
            "SELECT count(*) AS n FROM d2.geocodificacoes_pendentes"
        ).fetchone() == {"n": 0}
        invariants.verificar(conn)
        registros = json.dumps([r.__dict__ for r in caplog.records], default=str)
        assert "palavra" not in registros.lower() and "Palmeiras" not in registros
