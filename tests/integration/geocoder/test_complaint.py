"""Long texts read as a Brazilian reads them, against the real places (Campo Grande MS
with its homonyms in AL and RN, Dourados), their CEPs and the sample Nominatim: of two
cities a complaint names, the one its "aqui", "em frente", "no bairro" clause names is
the address's; with no such clause and no evidence, none is guessed. And an ordinal in
a bairro's name ("7º BEC") read as d2.ceps keeps it."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from psycopg.rows import dict_row

from d2 import config, db
from d2.geocoder import parser, question
from d2.geocoder.places import decision, lookup
from d2.importers import cep, ibge
from tests.support import Conn, drenar, invariants, publicar_endereco, resposta_endereco
from tests.support.address_fixtures import escrever_ceps, escrever_territorio


def _url() -> str:
    """The database the test's settings name (its worker drains there)."""
    url = config.load().database_url
    assert url is not None
    return url


CG, DOU = "5002704", "5003702"
RELATO = "O mato está alto e esconde o buraco de quem vem de bicicleta. " * 6
TEXTOS = [
    # (text, município, UC, passo)
    # The clause with "aqui" names Campo Grande; "moro em Dourados" is another place.
    (
        "Moro em Dourados mas trabalho em Campo Grande, aqui na Rua Antônio Maria Coelho, "
        "1500 tem um buraco",
        CG, "Centro", "rua_numero",
    ),
    (
        "Sou de Campo Grande mas estou em Dourados, aqui no Jardim Caramuru tem um buraco "
        "enorme na Rua Hayel Bon Faker, 2000",
        DOU, "Jardim Caramuru", "rua_numero",
    ),
    # "em frente à" ties the clause; the POI it names is asked in that município.
    (
        "Moro em Dourados mas hoje estou em Campo Grande, em frente à Santa Casa tem um "
        "buraco enorme",
        CG, "Centro", "referencia",
    ),
    # Past what is read (300 characters), with no street: from the sentence that says
    # where the writer is; "no bairro" ties the bairro, which is Dourados's.
    (
        f"{RELATO}Moro em Campo Grande, mas estou em Dourados. Aqui no bairro Jardim "
        "Caramuru tem mato alto e lixo.",
        DOU, "Jardim Caramuru", "bairro",
    ),
    # A place said after the bairro in one breath: "no bairro X em Y", "Centro de Y".
    (
        "Moro no bairro Jardim Caramuru em Dourados MS e a rua está cheia de lixo",
        DOU, "Jardim Caramuru", "bairro",
    ),
    ("Tem um buraco enorme no bairro Centro de Campo Grande MS", CG, "Centro", "bairro"),
    # The street named after prose, and "em" ending its name.
    (
        "Boa tarde, gostaria de reclamar do buraco na Rua Antônio Maria Coelho, 1500, "
        "Campo Grande MS",
        CG, "Centro", "rua_numero",
    ),
    (
        "O esgoto está vazando na Rua Hayel Bon Faker 2000 em Dourados",
        DOU, "Jardim Caramuru", "rua_numero",
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("texto", "municipio", "uc", "passo"), TEXTOS, ids=[t[0][-40:] for t in TEXTOS]
)
def test_long_text__the_city_tied_to_aqui_or_em_frente_is_the_address(
    geocoder_ms_url: str, texto: str, municipio: str, uc: str, passo: str
) -> None:
    with psycopg.connect(geocoder_ms_url, autocommit=True, row_factory=dict_row) as conn:
        event_id = publicar_endereco(conn, {"endereco": texto})
        drenar(_url())
        r = resposta_endereco(conn, event_id)
        assert (r["municipio"], r["uc_nome"], r["passo"]) == (municipio, uc, passo)
        invariants.verificar(conn)


def test_long_text__two_cities_with_no_anchor_nor_evidence_are_no_guess(
    geocoder_ms_url: str,
) -> None:
    with psycopg.connect(geocoder_ms_url, autocommit=True, row_factory=dict_row) as conn:
        ids = [
            publicar_endereco(conn, {"endereco": texto})
            for texto in (
                "Moro em Dourados e trabalho em Campo Grande, tem um buraco enorme na rua",
                f"{RELATO}Moro em Dourados mas trabalho em Campo Grande. Tem um buraco na rua.",
            )
        ]
        drenar(_url())
        for event_id in ids:
            r = resposta_endereco(conn, event_id)
            assert (r["municipio"], r["metodo_resolucao"]) == (None, None)
        invariants.verificar(conn)


def _contexto(conn: Conn, endereco: str) -> decision.Contexto:
    e = question.do_payload({"entidades_extraidas": {"endereco": endereco}})
    assert e is not None
    return lookup.contextos(conn, [parser.entender(e)])[0]


def test_an_ordinal_in_a_bairro_s_name_is_read_as_d2_ceps_keeps_it(
    conn: Conn, tmp_path: Path
) -> None:
    """CEP Aberto's "7º BEC" is "7 bec" in d2.cep_nomes (º is no letter for
    d2.nome_busca): the text's "7º BEC" must be read so, or the bairro that tells two
    homonyms apart is never found."""
    ibge.run_import(conn.info.dsn, directory=escrever_territorio(tmp_path / "ibge"), progress=False)
    cep.importar(conn.info.dsn, escrever_ceps(tmp_path / "ceps"))
    # Campo Grande (AL) and (RN) have bairros in d2.ceps too, none of them 7º BEC.
    conn.execute(
        """
        WITH l AS (
            INSERT INTO d2.cep_localidades (uf, nome, municipio_uc_id, vinculo)
            SELECT u.metadados ->> 'sigla_uf', 'Campo Grande', u.unidade_civica_id, 'nome'
            FROM core.uc_polygons u
            WHERE u.nivel = 4 AND u.metadados ->> 'codigo_municipio' IN ('2701357', '2401305')
            RETURNING id
        )
        INSERT INTO d2.ceps (cep, localidade_id, bairro, logradouro, logradouro_busca, fonte)
        SELECT lpad((57350000 + l.id)::text, 8, '0'), l.id, 'Centro', '', '', 'teste' FROM l
        UNION ALL
        SELECT '79117000', m.id, '7º BEC', 'Rua Sete', 'rua sete', 'teste'
        FROM d2.cep_localidades m WHERE m.uf = 'MS' AND m.nome = 'Campo Grande'
        """
    )
    conn.execute(db.q("cep_names_rebuild"))
    for escrito in ("7º BEC, Campo Grande", "7o BEC - Campo Grande"):
        ctx = _contexto(conn, escrito)
        assert ctx.municipio is not None, escrito
        codigo = conn.execute(
            "SELECT metadados ->> 'codigo_municipio' AS c FROM core.uc_polygons "
            "WHERE unidade_civica_id = %s",
            (ctx.municipio.unidade_civica_id,),
        ).fetchone()
        assert codigo is not None and codigo["c"] == "5002704", escrito
