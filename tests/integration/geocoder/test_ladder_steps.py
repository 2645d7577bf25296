"""POIs named as the address itself, asked of the real sample Nominatim within the
município read and answered at the UC holding them; and a demand whose GPS is (0, 0),
the no-fix value of many phones, answered by its address like one with no GPS."""

from __future__ import annotations

import psycopg
import pytest
from psycopg.rows import dict_row

from d2 import config
from tests.support import drenar, invariants, publicar_endereco, resposta_endereco


def _url() -> str:
    """The database the test's settings name (its worker drains there)."""
    url = config.load().database_url
    assert url is not None
    return url


CG = "5002704"


END, INF, MUN = ("endereco", "inferencia", "Campo Grande")
POIS = [
    # (text, UC expected, passo, precisao, metodo)
    ("Hospital Regional, Campo Grande MS", "Jardim dos Estados", "poi", "numero", END),
    ("Santa Casa, Campo Grande - MS", "Centro", "poi", "numero", END),
    # No UF: the POI, found in one of the three Campo Grandes, tells which.
    ("Hospital Regional, Campo Grande", "Jardim dos Estados", "poi", "numero", END),
    ("parque das nacoes indigenas, campo grande, ms", "Monte Castelo", "poi", "logradouro", END),
    # Its kind abbreviated: written out before Nominatim is asked.
    ("Hosp. Regional, Campo Grande MS", "Jardim dos Estados", "poi", "numero", END),
    ("E.E. Maria Constança, Campo Grande - MS", "Centro", "poi", "numero", END),
    ("esc. est. maria constanca, campo grande", "Centro", "poi", "numero", END),
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
        event_id = publicar_endereco(conn, {"endereco": texto})
        drenar(_url())
        r = resposta_endereco(conn, event_id)
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
        event_id = publicar_endereco(
            conn, {"endereco": "Hospital Regional, Rua Antônio Maria Coelho, 1500, Campo Grande/MS"}
        )
        drenar(_url())
        r = resposta_endereco(conn, event_id)
        assert (r["passo"], r["precisao"], r["uc_nome"]) == ("rua_numero", "numero", "Centro")


def test_poi__gps_zero_zero_with_a_good_address_the_address_answers(
    geocoder_ms_url: str,
) -> None:
    with psycopg.connect(geocoder_ms_url, autocommit=True, row_factory=dict_row) as conn:
        event_id = publicar_endereco(
            conn,
            {"endereco": "Rua Antônio Maria Coelho, 1500, Campo Grande - MS"},
            {"lat": 0, "lng": 0},
        )
        drenar(_url())
        r = resposta_endereco(conn, event_id)
        assert (r["municipio"], r["passo"], r["precisao"], r["metodo_resolucao"]) == (
            CG,
            "rua_numero",
            "numero",
            "endereco",
        )
        invariants.verificar(conn)


def test_poi__the_reference_s_kind_abbreviated_is_written_out(geocoder_ms_url: str) -> None:
    with psycopg.connect(geocoder_ms_url, autocommit=True, row_factory=dict_row) as conn:
        event_id = publicar_endereco(
            conn, {"endereco": "Rua Xyzwv, próximo à Esc. Est. Maria Constança, Campo Grande/MS"}
        )
        drenar(_url())
        r = resposta_endereco(conn, event_id)
        assert (r["municipio"], r["uc_nome"], r["passo"], r["metodo_resolucao"]) == (
            CG,
            "Centro",
            "referencia",
            "endereco",
        )
        invariants.verificar(conn)
