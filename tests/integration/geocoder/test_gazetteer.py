"""d2.cep_nomes, the bairros and streets d2.ceps gives each município, written by `d2 cep
import` and read by the ladder's one statement per round (geocoder_places): a word of a
bairro's name is not a second município, the street named supports its município."""

from __future__ import annotations

from pathlib import Path

from d2 import db
from d2.geocoder import parser, question
from d2.geocoder.places import decision, lookup
from d2.importers import cep, sample, sample_cep
from tests.support import Conn, planos_aninhados
from tests.support.territorio import sincronizar_mirror


def _contexto(conn: Conn, endereco: str) -> decision.Contexto:
    e = question.do_payload({"entidades_extraidas": {"endereco": endereco}})
    assert e is not None
    return lookup.contextos(conn, [parser.entender(e)])[0]


def _nomes(conn: Conn) -> list[tuple[object, ...]]:
    return [
        tuple(r.values())
        for r in conn.execute(
            "SELECT n.nome_busca, n.tipo, m.nome, n.ceps, n.xmin::text AS versao "
            "FROM d2.cep_nomes n JOIN core.uc_polygons m "
            "ON m.unidade_civica_id = n.municipio_uc_id ORDER BY 1, 2, 3"
        )
    ]


def test_cep_import__writes_each_municipios_bairros_and_streets_once(
    conn: Conn, tmp_path: Path
) -> None:
    sample.load_sample(conn.info.dsn)
    dump = sample_cep.write_dump(tmp_path / "d")
    cep.importar(conn.info.dsn, dump)
    nomes = _nomes(conn)
    assert ("das palmeiras", "logradouro", "Vila Aurora") in {n[:3] for n in nomes}
    assert ("jardim das flores", "bairro", "Vila Aurora") in {n[:3] for n in nomes}
    # Districts count for their município; a locality the territory lacks for none.
    assert {n[2] for n in nomes} <= {m for m, *_ in _municipios(conn)}
    cep.importar(conn.info.dsn, dump)
    assert _nomes(conn) == nomes  # the same source again writes nothing (xmin)


def _municipios(conn: Conn) -> list[tuple[str]]:
    return [(r["nome"],) for r in conn.execute("SELECT nome FROM core.uc_polygons WHERE nivel = 4")]


def test_places__a_word_of_a_bairro_of_the_municipio_named_is_not_a_second_municipio(
    conn: Conn, tmp_path: Path
) -> None:
    sample.load_sample(conn.info.dsn)
    cep.importar(conn.info.dsn, sample_cep.write_dump(tmp_path / "d"))
    endereco = "Rua Sete, 10, Jardim Campo Largo, Vila Aurora"
    # Campo Largo is a município too, but no place stands after "Jardim": the município
    # named last is the one.
    antes = _contexto(conn, endereco)
    assert antes.municipio is not None and antes.municipio.nome == "Vila Aurora"
    # d2.ceps knows a bairro Jardim Campo Largo in Vila Aurora.
    conn.execute(
        """
        INSERT INTO d2.ceps (cep, localidade_id, bairro, logradouro, logradouro_busca, fonte)
        SELECT '78010777', l.id, 'Jardim Campo Largo', 'Rua Sete', 'rua sete', 'teste'
        FROM d2.cep_localidades l WHERE l.nome = 'Vila Aurora'
        """
    )
    conn.execute(db.q("cep_names_rebuild"))
    depois = _contexto(conn, endereco)
    assert depois.municipio is not None and depois.municipio.nome == "Vila Aurora"
    assert (depois.homonimos, depois.conflito) == ([], False)
    # Lower case, no commas: the same reading.
    semvirgula = _contexto(conn, "rua sete 10 jardim campo largo vila aurora")
    assert semvirgula.municipio is not None and semvirgula.municipio.nome == "Vila Aurora"


def _nos(plano: object) -> list[dict[str, str]]:
    """Every node of an EXPLAIN (FORMAT JSON) plan."""
    if isinstance(plano, list):
        return [n for p in plano for n in _nos(p)]
    if not isinstance(plano, dict):
        return []
    filhos = [n for f in plano.get("Plans", []) for n in _nos(f)]
    return [plano, *filhos] if "Node Type" in plano else [*_nos(plano.get("Plan")), *filhos]


def test_geocoder_places__probes_the_names_by_municipio_and_name(
    conn: Conn, tmp_path: Path
) -> None:
    """Each (município, words) pair is one probe of d2.cep_nomes's primary key; a plan
    that read a município's every name to merge them cost ~5 s a round nationally. The
    statement runs inside d2.lugares_lidos (one generic plan per session): its plan is
    read from auto_explain's nested-statement report."""
    sample.load_sample(conn.info.dsn)
    cep.importar(conn.info.dsn, sample_cep.write_dump(tmp_path / "d"))
    conn.execute("ANALYZE d2.cep_nomes")
    parametros = {
        "ordens": [0, 1],
        "textos": ["JARDIM DAS FLORES", "VILA AURORA"],
        "enderecos": [0, 0],
        "lugares": [0, 1],
        "indices": [0, 1],
        "cep_enderecos": [0],
        "ceps": ["78010500"],
        "ruas": ["DAS PALMEIRAS"],
        "rua_enderecos": [0],
        "aproximados_enderecos": [],
        "aproximados": [],
        "aproximados_nomes": [],
    }
    planos = planos_aninhados(conn, db.q("geocoder_places"), parametros)
    sondas = [
        n.get("Index Cond", "") for n in _nos(planos) if n.get("Index Name") == "cep_nomes_pkey"
    ]
    assert sondas and all("nome_busca" in s for s in sondas if "tipo" not in s)
    linhas = conn.execute(db.q("geocoder_places"), parametros).fetchall()
    achados = {(r["fonte"], r["lugar"], r["tipo"]) for r in linhas if r["fonte"] != "territorio"}
    assert {("cep", 0, "bairro"), ("cep", -1, "logradouro")} <= achados
    # Whether a município has bairros at all is asked only of homonyms: none here.
    assert not any(f == "dados" for f, _, _ in achados)


def test_places__a_text_of_many_town_names_probes_the_names_of_eight(conn: Conn) -> None:
    """L1 (docs/reliability.md): a text naming twelve municípios, each with a bairro the
    text also names, has d2.cep_nomes probed for the 8 named last only: the probes grow
    with the names named times the runs of words, and a hostile text names dozens."""
    ids = []
    for n in range(12):
        linha = conn.execute(
            "INSERT INTO core.uc_polygons (id, unidade_civica_id, nivel, nome, geometria, "
            "fonte) VALUES (gen_random_uuid(), gen_random_uuid(), 4, %s, "
            '\'{"type": "Point", "coordinates": [-54, -20]}\'::jsonb, \'ibge\') '
            "RETURNING unidade_civica_id",
            [f"Cidade Hostil {n:02d}"],
        ).fetchone()
        assert linha is not None
        ids.append(linha["unidade_civica_id"])
        conn.execute(
            "INSERT INTO d2.cep_nomes (nome_busca, tipo, municipio_uc_id, ceps) "
            "VALUES ('jardim comum', 'bairro', %s, 1)",
            [ids[-1]],
        )
    textos = [f"Cidade Hostil {n:02d}" for n in range(12)] + ["Jardim Comum"]
    linhas = conn.execute(
        "SELECT * FROM d2.lugares_lidos(%(ordens)s, %(textos)s, %(enderecos)s, %(lugares)s, "
        "%(ordens)s, '{}', '{}', '{}', '{}', '{}', '{}', '{}')",
        {
            "ordens": list(range(len(textos))),
            "textos": textos,
            "enderecos": [0] * len(textos),
            "lugares": list(range(len(textos))),
        },
    ).fetchall()
    territorio = {str(r["unidade_civica_id"]) for r in linhas if r["fonte"] == "territorio"}
    assert {str(i) for i in ids} <= territorio  # every name is found as written
    sondados = {str(r["unidade_civica_id"]) for r in linhas if r["fonte"] == "cep"}
    assert sondados == {str(i) for i in ids[-8:]}


def test_places__a_drawn_bairro_named_like_a_municipio_never_chooses_one(conn: Conn) -> None:
    """H2, the reading half (docs/reliability.md): a bairro citizens drew inside Campo
    Largo and named "Porto Sereno", like a município of the same UF, is not read as the
    official bairro that makes "Porto Sereno" named last a bairro of Campo Largo; inside
    the município the official names decide, it is the bairro."""
    sample.load_sample(conn.info.dsn)
    endereco = "Rua Sete, 10, Campo Largo, Porto Sereno"
    antes = _contexto(conn, endereco)
    assert antes.municipio is not None and antes.municipio.nome == "Porto Sereno"
    campo_largo = conn.execute(
        "SELECT unidade_civica_id, geometria::text AS geometria FROM core.uc_polygons "
        "WHERE nivel = 4 AND nome = 'Campo Largo'"
    ).fetchone()
    assert campo_largo is not None
    conn.execute(
        "INSERT INTO core.uc_polygons (id, unidade_civica_id, nivel, parent_uc_id, nome, "
        "geometria, fonte) VALUES (gen_random_uuid(), gen_random_uuid(), 2, %s, "
        "'Porto Sereno', %s::jsonb, 'comunitario')",
        [campo_largo["unidade_civica_id"], campo_largo["geometria"]],
    )
    sincronizar_mirror(conn)  # as the worker applies it: the names held move with it
    depois = _contexto(conn, endereco)
    assert depois.municipio is not None and depois.municipio.nome == "Porto Sereno"
    assert depois.bairro is None
    # Named where the official names put the address in Campo Largo, it is its bairro.
    dentro = _contexto(conn, "Rua Sete, 10, Bairro Porto Sereno, Campo Largo")
    assert dentro.municipio is not None and dentro.municipio.nome == "Campo Largo"
    assert dentro.bairro is not None and dentro.bairro.nome == "Porto Sereno"
