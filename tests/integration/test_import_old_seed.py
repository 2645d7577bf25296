"""A database the old seed populated: random ids, official codes in
metadados (spec 8.5: codigo_municipio, codigo_uf, codigo_regiao, codigo_bairro; fonte
'ibge'). The importers continue those rows in place, ids kept, never duplicated, in a
D-2-created core.uc_polygons and in one the monolith created before `d2 migrate`.
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import psycopg
import pytest
from psycopg.rows import dict_row

from d2 import migrations
from d2.bench import capture
from d2.importers import ibge, osm, sample
from d2.territorio import resolver
from tests.support import Conn
from tests.support.territorio import poligono, quadrado

# (nivel, metadados key, code) of the rows the old seed left, with a parent by code.
SEED_ANTIGO = (
    (7, None, None, None),  # the old seed's país: no code among spec 8.5's keys
    (6, "codigo_regiao", "1", None),
    (5, "codigo_uf", "11", "1"),
    (4, "codigo_municipio", "1100015", "11"),
    (4, "codigo_municipio", "1100023", "11"),
    (2, "codigo_bairro", "1100015002", "1100015"),
)
PAI = {6: 7, 5: 6, 4: 5, 2: 4}


@pytest.fixture
def amostra(tmp_path: Path) -> Path:
    sample.write_sample(tmp_path / "ibge")
    return tmp_path / "ibge"


def semear_como_o_seed_antigo(conn: Conn) -> dict[tuple[int, str | None], dict[str, uuid.UUID]]:
    """Rows shaped like the old seed's: random id and unidade_civica_id (distinct), the
    code in metadados as text, parents by UC id; a square for geometry (the import
    replaces it). Returns {(nivel, code): {"id", "uc"}}."""
    ids: dict[tuple[int, str | None], dict[str, uuid.UUID]] = {}
    for nivel, chave, codigo, codigo_pai in SEED_ANTIGO:
        pai = None
        if nivel in PAI:
            pai = ids[(PAI[nivel], codigo_pai)]["uc"]
        linha = {"id": uuid.uuid4(), "uc": uuid.uuid4()}
        metadados = {chave: codigo, "seed": "prisma"} if chave else {}
        conn.execute(
            "INSERT INTO core.uc_polygons (id, unidade_civica_id, nivel, parent_uc_id, nome, "
            "geometria, fonte, metadados) VALUES (%s, %s, %s, %s, %s, %s::jsonb, 'ibge', %s)",
            [linha["id"], linha["uc"], nivel, pai, f"antigo {codigo}",
             json.dumps(poligono(quadrado(100, 0, 101, 1))), json.dumps(metadados)],
        )  # fmt: skip
        ids[(nivel, codigo)] = linha
    return ids


def _contagem(conn: Conn) -> dict[int, int]:
    rows = conn.execute("SELECT nivel, count(*) AS n FROM core.uc_polygons GROUP BY nivel")
    return {r["nivel"]: r["n"] for r in rows}


def _verificar_continuados(
    conn: Conn, ids: dict[tuple[int, str | None], dict[str, uuid.UUID]]
) -> None:
    # The sample's UCs, each once: no old row left beside a new one.
    assert _contagem(conn) == {7: 1, 6: 2, 5: 3, 4: 8, 2: 5}
    for (nivel, codigo), linha in ids.items():
        row = conn.execute(
            "SELECT unidade_civica_id, nome, metadados FROM core.uc_polygons WHERE id = %s",
            [linha["id"]],
        ).fetchone()
        assert row is not None, (nivel, codigo)
        assert row["unidade_civica_id"] == linha["uc"]
        assert not str(row["nome"]).startswith("antigo")
    # Children imported now hang from the old rows' UC ids.
    mun = ids[(4, "1100015")]["uc"]
    filho = conn.execute(
        "SELECT parent_uc_id FROM core.uc_polygons WHERE id = %s", [ibge.uc_id(2, "1100015001")]
    ).fetchone()
    assert filho == {"parent_uc_id": mun}
    mun_novo = conn.execute(
        "SELECT parent_uc_id FROM core.uc_polygons WHERE id = %s", [ibge.uc_id(4, "1100031")]
    ).fetchone()
    assert mun_novo == {"parent_uc_id": ids[(5, "11")]["uc"]}
    # The resolver answers with the old ids, the chain up through them.
    achado = resolver.resolver(conn, *_ponto_em(conn, ids[(2, "1100015002")]["id"]))
    assert achado is not None
    assert [str(u) for u in achado.cadeia_ucs] == [
        str(ids[k]["uc"])
        for k in ((2, "1100015002"), (4, "1100015"), (5, "11"), (6, "1"), (7, None))
    ]


def _ponto_em(conn: Conn, poligono_id: uuid.UUID) -> tuple[float, float]:
    row = conn.execute(
        "SELECT ST_Y(p) AS lat, ST_X(p) AS lng FROM (SELECT ST_PointOnSurface(geom) AS p "
        "FROM d2.mirror_uc WHERE uc_polygon_id = %s) x",
        [poligono_id],
    ).fetchone()
    assert row is not None
    return float(row["lat"]), float(row["lng"])


def test_import__old_seed_rows_are_continued_in_place(
    db_url: str, conn: Conn, amostra: Path
) -> None:
    ids = semear_como_o_seed_antigo(conn)
    resumo = ibge.run_import(db_url, directory=amostra, progress=False)
    assert resumo.total().updated == len(SEED_ANTIGO)
    assert resumo.total().inserted == 19 - len(SEED_ANTIGO)
    assert resumo.total().orphans == 0
    _verificar_continuados(conn, ids)
    de_novo = ibge.run_import(db_url, directory=amostra, progress=False)
    assert de_novo.total().unchanged == 19 and de_novo.total().inserted == 0
    assert _contagem(conn) == {7: 1, 6: 2, 5: 3, 4: 8, 2: 5}


def test_import__bairros_alone_find_old_seed_parents_by_code(
    db_url: str, conn: Conn, amostra: Path
) -> None:
    ids = semear_como_o_seed_antigo(conn)
    bairros = next(amostra.glob("*bairros*"))
    resumo = ibge.run_import(db_url, files={"bairros": bairros}, progress=False)
    # 2100055's bairros have no município in the database; 1100015's find the old row.
    assert resumo.camadas["bairros"].orphan_codes == ["2100055001", "2100055002"]
    pais = conn.execute(
        "SELECT DISTINCT parent_uc_id FROM core.uc_polygons WHERE nivel = 2 "
        "AND metadados->>'codigo_bairro' LIKE '1100015%%'"
    ).fetchall()
    assert pais == [{"parent_uc_id": ids[(4, "1100015")]["uc"]}]


def test_import__monolith_created_table_with_old_seed_imports_like_a_d2_one(
    empty_db_url: str, db_url: str, conn: Conn, amostra: Path
) -> None:
    """The shape of the 900 s import: the monolith created core.uc_polygons (the spec's
    columns and indexes), the old seed filled it, then `d2 migrate`. Same result as in a
    D-2-created table, in comparable time."""
    with psycopg.connect(empty_db_url, autocommit=True, row_factory=dict_row) as mono:
        mono.execute(capture.TABELA_DA_SPEC)  # the spec's table, as the monolith makes it
        ids = semear_como_o_seed_antigo(mono)
        migrations.upgrade(empty_db_url)
        inicio = time.monotonic()
        resumo = ibge.run_import(empty_db_url, directory=amostra, progress=False)
        no_monolito = time.monotonic() - inicio
        assert resumo.total().updated == len(SEED_ANTIGO)
        _verificar_continuados(mono, ids)

    semear_como_o_seed_antigo(conn)
    inicio = time.monotonic()
    ibge.run_import(db_url, directory=amostra, progress=False)
    na_d2 = time.monotonic() - inicio
    # Generous: a shared machine; the bug this guards against was 100x and more.
    assert no_monolito < 5 * na_d2 + 2.0


def test_import_osm__old_rows_found_by_osm_id_keep_their_ids(
    db_url: str, conn: Conn, tmp_path: Path
) -> None:
    from tests.integration.test_import_osm import extrato
    from tests.support.territorio import Territorio

    territorio = Territorio(conn)
    antigo = {"id": uuid.uuid4(), "uc": uuid.uuid4()}
    conn.execute(
        "INSERT INTO core.uc_polygons (id, unidade_civica_id, nivel, parent_uc_id, nome, "
        "geometria, fonte, metadados) VALUES (%s, %s, 2, %s, 'antigo', %s::jsonb, 'osm', %s)",
        [antigo["id"], antigo["uc"], territorio.mun_b,
         json.dumps(poligono(quadrado(100, 0, 101, 1))),
         json.dumps({"osm_id": "relation/102", "admin_level": 10})],
    )  # fmt: skip
    caminho = tmp_path / "osm.geojson"
    caminho.write_text(json.dumps(extrato()), encoding="utf-8")
    primeiro = osm.importar_osm(db_url, caminho)
    segundo = osm.importar_osm(db_url, caminho)
    row = conn.execute(
        "SELECT unidade_civica_id, nome FROM core.uc_polygons WHERE id = %s", [antigo["id"]]
    ).fetchone()
    assert row is not None and row["unidade_civica_id"] == antigo["uc"] and row["nome"] != "antigo"
    assert primeiro.updated == 1
    assert segundo.inserted == 0 and segundo.updated == 0
    dup = conn.execute(
        "SELECT count(*) AS n FROM core.uc_polygons WHERE metadados->>'osm_id' = 'relation/102'"
    ).fetchone()
    assert dup == {"n": 1}
