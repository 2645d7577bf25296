"""POIs named as the address itself, asked of the real sample Nominatim within the
município read and answered at the UC holding them; and a demand whose GPS is (0, 0),
the no-fix value of many phones, answered by its address like one with no GPS."""

from __future__ import annotations

import uuid
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row

from d2 import config
from d2.worker import loop
from tests import events, invariants
from tests.support import Conn

CG = "5002704"


def _publicar(conn: Conn, entidades: dict[str, Any], gps: Any = None) -> uuid.UUID:
    payload = events.payload_normalizada(entidades_extraidas=entidades)
    payload["coordenadas_validadas"] = gps
    return events.inserir_evento(conn, payload)


def _drenar() -> None:
    settings = config.load()
    assert settings.database_url is not None
    loop.Worker(settings, url=settings.database_url).executar(drain=True)


def _resposta(conn: Conn, event_id: uuid.UUID) -> dict[str, Any]:
    row = conn.execute(
        """
        SELECT g.passo, g.precisao, g.consultas, g.motivo, r.metodo_resolucao, r.confianca_geo,
               (SELECT u.metadados ->> 'codigo_municipio' FROM core.uc_polygons u
                WHERE u.unidade_civica_id = ANY(r.cadeia_ucs) AND u.nivel = 4 LIMIT 1)
                   AS municipio,
               (SELECT u.nome FROM core.uc_polygons u
                WHERE u.unidade_civica_id = r.unidade_civica_id LIMIT 1) AS uc_nome
        FROM d2.geocodificacoes g
        LEFT JOIN d2.resolucoes_geo r ON r.event_id = g.event_id
        WHERE g.event_id = %s
        """,
        [event_id],
    ).fetchone()
    assert row is not None, "not concluded by the geocoding stage"
    return dict(row)


END, INF, MUN = ("endereco", "inferencia", "Campo Grande")
POIS = [
    # (text, UC expected, passo, precisao, metodo)
    ("Hospital Regional, Campo Grande MS", "Jardim dos Estados", "poi", "numero", END),
    ("Santa Casa, Campo Grande - MS", "Centro", "poi", "numero", END),
    # No UF: the POI, found in one of the three Campo Grandes, tells which.
    ("Hospital Regional, Campo Grande", "Jardim dos Estados", "poi", "numero", END),
    ("parque das nacoes indigenas, campo grande, ms", "Monte Castelo", "poi", "logradouro", END),
    # A name two schools share, in two bairros: not a bairro, the município.
    ("Escola Municipal Padre Tomaz, Campo Grande MS", MUN, "municipio", "municipio", INF),
    # A kind of place Nominatim does not hold there: the município, never a guess.
    ("Hospital Xyzwv, Campo Grande - MS", MUN, "municipio", "municipio", INF),
    # "Parque X" that is an area of the city, not a POI Nominatim knows.
    ("Parque Industrial, Campo Grande - MS", MUN, "municipio", "municipio", INF),
]  # fmt: skip


@pytest.mark.parametrize(
    ("texto", "uc", "passo", "precisao", "metodo"), POIS, ids=[p[0] for p in POIS]
)
def test_poi__named_as_the_address_itself(
    geocoder_ms_url: str, texto: str, uc: str, passo: str, precisao: str, metodo: str
) -> None:
    with psycopg.connect(geocoder_ms_url, autocommit=True, row_factory=dict_row) as conn:
        event_id = _publicar(conn, {"endereco": texto})
        _drenar()
        r = _resposta(conn, event_id)
        assert (r["municipio"], r["uc_nome"], r["passo"], r["precisao"]) == (
            CG,
            uc,
            passo,
            precisao,
        )
        confianca = "media" if metodo == "endereco" else "baixa"
        assert (r["metodo_resolucao"], r["confianca_geo"]) == (metodo, confianca)
        assert r["consultas"] == 1  # the POI's one search, within the município
        invariants.verificar(conn)


def test_poi__a_street_found_comes_before_a_poi_named(geocoder_ms_url: str) -> None:
    with psycopg.connect(geocoder_ms_url, autocommit=True, row_factory=dict_row) as conn:
        event_id = _publicar(
            conn, {"endereco": "Hospital Regional, Rua Antônio Maria Coelho, 1500, Campo Grande/MS"}
        )
        _drenar()
        r = _resposta(conn, event_id)
        assert (r["passo"], r["precisao"], r["uc_nome"]) == ("rua_numero", "numero", "Centro")


def test_poi__gps_zero_zero_with_a_good_address_the_address_answers(
    geocoder_ms_url: str,
) -> None:
    with psycopg.connect(geocoder_ms_url, autocommit=True, row_factory=dict_row) as conn:
        event_id = _publicar(
            conn,
            {"endereco": "Rua Antônio Maria Coelho, 1500, Campo Grande - MS"},
            {"lat": 0, "lng": 0},
        )
        _drenar()
        r = _resposta(conn, event_id)
        assert (r["municipio"], r["passo"], r["precisao"], r["metodo_resolucao"]) == (
            CG,
            "rua_numero",
            "numero",
            "endereco",
        )
        invariants.verificar(conn)
