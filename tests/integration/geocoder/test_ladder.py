"""The address ladder against a real Nominatim: 20 ways of writing two addresses, homonymous
municípios, CEPs (alone, contradicting the text), places alone without any search, POIs, and
what d2.v_geocodificacoes shows."""

from __future__ import annotations

import uuid
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row

from d2 import config
from d2.worker import loop
from tests.support import Conn, events, invariants

CG, DOURADOS = "5002704", "5003702"

# The 20 ways (text, CD_MUN expected or None, precision expected). Before the
# ladder: 7 gave nothing, 4 only the município or bairro, 9 the street.
VINTE = [
    ("R. Antonio Maria Coelho 1500 Campo Grande MS", CG, "numero"),
    ("rua antonio maria coelho, 1500, campo grande", CG, "numero"),
    ("Antônio Maria Coelho 1500", None, None),  # it names no place: rightly nothing
    ("Rua Antonio Maria Coelho 1.500 Campo Grande", CG, "numero"),
    ("Rua Hayel Bon Faker 2000 Jardim Caramuru Dourados MS", DOURADOS, "numero"),
    ("Em frente ao número 1500 da Rua Antônio Maria Coelho, Campo Grande", CG, "numero"),
    ("Rua Antônio Maria Coelho esquina com Rua 14 de Julho, Campo Grande", CG, "logradouro"),
    ("Rua Antônio Maria Coelho, 1500, apto 12, Campo Grande - MS", CG, "numero"),
    ("Rua Antônio Maria Coelho, S/N, Campo Grande - MS", CG, "logradouro"),
    ("Rua Antônio Maria Coelho nº 1500, Bairro Monte Castelo, Campo Grande/MS", CG, "numero"),
    ("Av. Hayel Bon Faker, 2000, Dourados", DOURADOS, "numero"),
    ("Rua Antônio Maria Coelho, 1500, Campo Grande, MS", CG, "numero"),
    ("Rua Antônio Maria Coelho, 1500 - Centro - Campo Grande/MS", CG, "numero"),
    ("Rua Hayel Bon Faker, 2000, Dourados - MS", DOURADOS, "numero"),
    ("Rua Hayel Bon Faker, 2000, Jardim Caramuru, Dourados", DOURADOS, "numero"),
    ("Rua Antônio Maria Coelho, 1500, Campo Grande, MS, 79002-220", CG, "numero"),
    ("Rua Hayel Bon Faker, 2000, Dourados, CEP 79806-000", DOURADOS, "numero"),
    ("RUA ANTONIO MARIA COELHO 1500 CAMPO GRANDE MS", CG, "numero"),
    ("Rua Antônio Maria Coelho, 1520, Campo Grande-MS", CG, "numero"),
    ("Rua Hayel Bon Faker 2000, Dourados/MS", DOURADOS, "numero"),
]


def _publicar(conn: Conn, entidades: dict[str, Any]) -> uuid.UUID:
    payload = events.payload_normalizada(entidades_extraidas=entidades)
    payload["coordenadas_validadas"] = None
    return events.inserir_evento(conn, payload)


def _drenar() -> dict[str, int]:
    settings = config.load()
    assert settings.database_url is not None
    return dict(loop.Worker(settings, url=settings.database_url).executar(drain=True).contagem)


def _geocodificacao(conn: Conn, event_id: uuid.UUID) -> dict[str, Any]:
    row = conn.execute(
        """
        SELECT g.*, r.coordenadas_lat, r.coordenadas_lng, r.cadeia_ucs,
               (SELECT u.metadados ->> 'codigo_municipio' FROM core.uc_polygons u
                WHERE u.unidade_civica_id = ANY(r.cadeia_ucs) AND u.nivel = 4 LIMIT 1)
                   AS municipio,
               (SELECT u.nome FROM core.uc_polygons u
                WHERE u.unidade_civica_id = r.unidade_civica_id LIMIT 1) AS uc_nome,
               p.motivo
        FROM d2.v_geocodificacoes g
        LEFT JOIN d2.resolucoes_geo r ON r.event_id = g.event_id
        LEFT JOIN d2.geocodificacoes p ON p.event_id = g.event_id
        WHERE g.event_id = %s
        """,
        [event_id],
    ).fetchone()
    assert row is not None, "no row in d2.v_geocodificacoes"
    return dict(row)


def test_ladder__twenty_ways_of_writing_two_addresses(geocoder_ms_url: str) -> None:
    """Each alone, through a worker of its own (a cold cache): the searches it took are
    all its own; at most 1.5 on average."""
    with psycopg.connect(geocoder_ms_url, autocommit=True, row_factory=dict_row) as conn:
        buscas = []
        for texto, municipio, precisao in VINTE:
            event_id = _publicar(conn, {"endereco": texto})
            _drenar()
            g = _geocodificacao(conn, event_id)
            esperado = (municipio, precisao, "endereco" if municipio else None)
            assert (g["municipio"], g["precisao"], g["metodo_resolucao"]) == esperado, texto
            buscas.append(g["consultas"])
        assert sum(buscas) / len(buscas) <= 1.5, buscas
        invariants.verificar(conn)


def test_ladder__what_was_understood_is_kept(geocoder_ms_url: str) -> None:
    with psycopg.connect(geocoder_ms_url, autocommit=True, row_factory=dict_row) as conn:
        event_id = _publicar(
            conn,
            {"endereco": "R. Antonio Maria Coelho nº 1.500, apto 12 bl B, Centro, Campo Grande/MS"},
        )
        _drenar()
        g = _geocodificacao(conn, event_id)
        assert (g["passo"], g["precisao"], g["uc_nome"]) == ("rua_numero", "numero", "Centro")
        assert g["endereco_entendido"] == {
            "tipo": "RUA",
            "logradouro": "ANTONIO MARIA COELHO",
            "numero": "1500",
            "complemento": "APARTAMENTO 12 BLOCO B",
            "bairro": "Centro",
            "municipio": "Campo Grande",
        }
        assert g["consultas"] == 1


CASOS = [
    # (case, entidades_extraidas, CD_MUN or None, precision, step, discard reason)
    ("CEP alone: its street", {"cep": "79002-220"}, CG, "cep", "cep_rua", None),
    (
        "CEP in the text, no place named",
        {"endereco": "1500, 79002220"},
        CG,
        "numero",
        "cep_rua",
        None,
    ),
    (
        "CEP whose street OSM lacks: its bairro",
        {"cep": "79040-400"},
        CG,
        "bairro",
        "bairro",
        None,
    ),
    (
        "a locality's general CEP: the município",
        {"cep": "79800-000"},
        DOURADOS,
        "municipio",
        "municipio",
        None,
    ),
    (
        "município and UF: no search",
        {"endereco": "Campo Grande - MS"},
        CG,
        "municipio",
        "municipio",
        None,
    ),
    (
        "bairro and município: no search",
        {"endereco": "Jardim Caramuru, Dourados"},
        DOURADOS,
        "bairro",
        "bairro",
        None,
    ),
    ("a homonym alone: no guess", {"endereco": "Campo Grande"}, None, None, None, "ambiguo"),
    (
        "a homonym with a bairro only: no guess",
        {"endereco": "Centro, Campo Grande"},
        None,
        None,
        None,
        "ambiguo",
    ),
    (
        "a POI of a reference phrase",
        {"endereco": "Próximo à Escola Estadual Maria Constança, Campo Grande - MS"},
        CG,
        "numero",
        "referencia",
        None,
    ),
    (
        "the street in nomeRua, the number in the text",
        {"nomeRua": "Rua Hayel Bon Faker", "endereco": "2000, Dourados"},
        DOURADOS,
        "numero",
        "rua_numero",
        None,
    ),
    (
        "a misspelt street: corrected to the município's CEP street it resembles",
        {"endereco": "Rua Antonio Maria Coelo 1500, Campo Grande, MS"},
        CG,
        "numero",
        "rua_corrigida",
        None,
    ),
    (
        "a street nobody knows: the município, never a wrong street",
        {"endereco": "Rua Xyzwv Qrstu 1500, Campo Grande, MS"},
        CG,
        "municipio",
        "municipio",
        None,
    ),
    (
        "a street of another município than the one named: the município named",
        {"endereco": "Rua Hayel Bon Faker, 2000, Campo Grande, MS"},
        CG,
        "municipio",
        "municipio",
        None,
    ),
    (
        "a UF contradicting the município",
        {"endereco": "Dourados, AL"},
        None,
        None,
        None,
        "contraditorio",
    ),
    (
        "only the UF: the street is in one município of it",
        {"endereco": "Rua Hayel Bon Faker 2000, MS"},
        DOURADOS,
        "numero",
        "rua_numero",
        None,
    ),
    (
        "no separator, no number: the places glued to the street are cut from it",
        {"endereco": "Rua Antonio Maria Coelho Centro Campo Grande MS"},
        CG,
        "logradouro",
        "rua",
        None,
    ),
    (
        "the places glued to the crossing street are cut from it too",
        {"endereco": "Rua Xyzwv Qrstu esquina com Rua Antonio Maria Coelho Campo Grande MS"},
        CG,
        "logradouro",
        "esquina",
        None,
    ),
]


@pytest.mark.parametrize(
    ("entidades", "municipio", "precisao", "passo", "motivo"),
    [c[1:] for c in CASOS],
    ids=[c[0] for c in CASOS],
)
def test_ladder__case(
    geocoder_ms_url: str,
    entidades: dict[str, Any],
    municipio: str | None,
    precisao: str | None,
    passo: str | None,
    motivo: str | None,
) -> None:
    with psycopg.connect(geocoder_ms_url, autocommit=True, row_factory=dict_row) as conn:
        event_id = _publicar(conn, entidades)
        _drenar()
        g = _geocodificacao(conn, event_id)
        assert (g["municipio"], g["precisao"], g["passo"], g["motivo"]) == (
            municipio,
            precisao,
            passo,
            motivo,
        )
        if precisao in ("bairro", "municipio") or motivo is not None:
            assert g["consultas"] in (0, 1, 2, 3)
        if precisao is not None:
            esperado = ("endereco", "media") if passo not in ("bairro", "municipio", "uf") else (
                "inferencia", "baixa")  # fmt: skip
            assert (g["metodo_resolucao"], g["confianca_geo"]) == esperado
        invariants.verificar(conn)


def test_ladder__places_alone_cost_no_search(geocoder_ms_url: str) -> None:
    with psycopg.connect(geocoder_ms_url, autocommit=True, row_factory=dict_row) as conn:
        ids = [
            _publicar(conn, {"endereco": t})
            for t in (
                "Campo Grande - MS",
                "Jardim Caramuru, Dourados",
                "Centro",
                "Monte Castelo, Campo Grande/MS",
            )
        ]
        _drenar()
        assert [_geocodificacao(conn, i)["consultas"] for i in ids] == [0, 0, 0, 0]


def test_ladder__a_cep_contradicting_the_text_is_set_aside_and_counted(
    geocoder_ms_url: str,
) -> None:
    """The rule: the place the text names wins over a CEP of another município; the CEP
    is set aside (its street is not asked), counted, and marked in what was understood."""
    import prometheus_client

    from d2.worker import geocoding

    settings = config.load()
    assert settings.database_url is not None
    with psycopg.connect(geocoder_ms_url, autocommit=True, row_factory=dict_row) as conn:
        event_id = _publicar(
            conn, {"endereco": "Rua Hayel Bon Faker, 2000, Dourados", "cep": "79002-220"}
        )
        sem_contradicao = _publicar(conn, {"endereco": "Rua Hayel Bon Faker, 2000, Dourados"})
        worker = loop.Worker(settings, url=settings.database_url)
        registro = prometheus_client.CollectorRegistry()
        worker._metrics_geo = geocoding.GeocodingMetrics(registro)
        worker.executar(drain=True)
        assert registro.get_sample_value("d2_geocodificacao_ceps_contraditorios_total") == 1
        g = _geocodificacao(conn, event_id)
        assert (g["municipio"], g["precisao"]) == (DOURADOS, "numero")
        assert g["endereco_entendido"]["cep_contraditorio"] is True
        assert (
            "cep_contraditorio" not in _geocodificacao(conn, sem_contradicao)["endereco_entendido"]
        )
