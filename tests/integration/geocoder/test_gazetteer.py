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
    # Campo Largo is a município too: the street must be found in the one named last.
    antes = _contexto(conn, endereco)
    assert (antes.municipio, [h.nome for h in antes.homonimos]) == (None, ["Vila Aurora"])
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
