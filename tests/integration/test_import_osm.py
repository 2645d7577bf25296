"""`d2 import-osm`: OSM admin_level=10 bairros as level 2 where IBGE has none.

The OSM extract is synthetic, built here in the two shapes exporters write (Overpass /
osmtogeojson and `osmium export`), over the test territory of tests/support/territorio.py.
"""

from __future__ import annotations

import gzip
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from d2.importers import osm
from tests.support import Conn
from tests.support.territorio import Territorio, inserir_uc, poligono, quadrado


def feature(geometria: dict[str, Any], props: dict[str, Any], fid: Any = None) -> dict[str, Any]:
    f: dict[str, Any] = {"type": "Feature", "properties": props, "geometry": geometria}
    if fid is not None:
        f["id"] = fid
    return f


def extrato() -> dict[str, Any]:
    """Município B gets three bairros; the rest must be skipped, each for its reason."""
    bowtie = {
        "type": "Polygon",
        "coordinates": [[[-41, -29], [-40, -28], [-40, -29], [-41, -28], [-41, -29]]],
    }
    return {
        "type": "FeatureCollection",
        "features": [
            # Overpass (osmtogeojson): id on the feature and as @id.
            feature(
                poligono(quadrado(-45, -30, -43, -25)),
                {"@id": "relation/101", "admin_level": "10", "name": "Centro B", "wikidata": "Q1"},
                "relation/101",
            ),
            # osmium export -a type,id: numeric @id beside @type; a MultiPolygon.
            feature(
                {
                    "type": "MultiPolygon",
                    "coordinates": [poligono(quadrado(-43, -30, -41, -25))["coordinates"]],
                },
                {"@type": "relation", "@id": 102, "admin_level": 10, "name": "Vila B"},
            ),
            # Self-intersecting ring: repaired, not dropped.
            feature(bowtie, {"osm_id": "r105", "admin_level": "10", "name": "Gravata"}),
            # In Município A, which has IBGE bairros.
            feature(
                poligono(quadrado(-49, -29, -48, -28)),
                {"id": "relation/103", "admin_level": "10", "name": "Bairro OSM em A"},
            ),
            # Outside every município.
            feature(
                poligono(quadrado(-36, -29, -35, -28)),
                {"@id": "relation/104", "admin_level": "10", "name": "Longe"},
            ),
            feature(  # a município boundary: another admin_level
                poligono(quadrado(-45, -30, -40, -25)),
                {"@id": "relation/9", "admin_level": "8", "name": "Município B"},
            ),
            feature(  # not polygonal
                {"type": "LineString", "coordinates": [[-44, -27], [-43, -27]]},
                {"@id": "way/7", "admin_level": "10", "name": "Linha"},
            ),
            feature(  # repeated id
                poligono(quadrado(-44, -29, -43.5, -28.5)),
                {"@id": "relation/101", "admin_level": "10", "name": "Centro B de novo"},
            ),
            feature(poligono(quadrado(-44, -27, -43.9, -26.9)), {"admin_level": "10", "name": "?"}),
        ],
    }


@pytest.fixture
def territorio_com_ibge(conn: Conn) -> Territorio:
    """The test territory, with one IBGE bairro in município A (which OSM must not
    shadow)."""
    t = Territorio(conn)
    # Município A has an IBGE bairro layer (the Territorio's own bairros are fonte 'teste').
    inserir_uc(
        conn, 2, "Bairro IBGE", poligono(quadrado(-50, -30, -49.5, -29.5)), t.mun_a, fonte="ibge"
    )
    return t


def escrever(tmp_path: Path, dados: dict[str, Any], nome: str = "bairros.geojson") -> Path:
    arquivo = tmp_path / nome
    texto = json.dumps(dados)
    if nome.endswith(".gz"):
        arquivo.write_bytes(gzip.compress(texto.encode()))
    else:
        arquivo.write_text(texto, encoding="utf-8")
    return arquivo


def osm_rows(conn: Conn) -> dict[str, dict[str, Any]]:
    rows = conn.execute(
        "SELECT * FROM core.uc_polygons WHERE fonte = 'osm' ORDER BY nome"
    ).fetchall()
    return {r["nome"]: r for r in rows}


def versao(conn: Conn) -> int:
    row = conn.execute("SELECT versao FROM d2.mirror_state").fetchone()
    assert row is not None
    return int(row["versao"])


def test_importar_osm__loads_bairros_where_ibge_has_none(
    conn: Conn, db_url: str, territorio_com_ibge: Territorio, tmp_path: Path
) -> None:
    resumo = osm.importar_osm(db_url, escrever(tmp_path, extrato()))

    assert (resumo.read, resumo.inserted, resumo.updated, resumo.unchanged) == (9, 3, 0, 0)
    assert resumo.repaired == 1
    assert dict(resumo.skipped) == {
        "admin_level 8 (not 10)": 1,
        "not polygonal (LineString)": 1,
        "OSM id repeated in the file": 1,
        "no OSM id (@id, id or osm_id)": 1,
        "município has IBGE bairros": 1,
        "inside no município (level 4) of the database": 1,
    }
    rows = osm_rows(conn)
    assert sorted(rows) == ["Centro B", "Gravata", "Vila B"]
    for ident, nome in (
        ("relation/101", "Centro B"),
        ("relation/102", "Vila B"),
        ("relation/105", "Gravata"),
    ):
        row = rows[nome]
        esperado = uuid.uuid5(osm.ibge.NAMESPACE, f"osm:2:{ident}")
        assert row["id"] == row["unidade_civica_id"] == esperado == osm.uc_id(ident)
        assert row["nivel"] == 2 and row["parent_uc_id"] == territorio_com_ibge.mun_b
        assert row["metadados"]["osm_id"] == ident
    assert rows["Centro B"]["metadados"]["wikidata"] == "Q1"
    assert rows["Gravata"]["geometria"]["type"] == "MultiPolygon"  # the bowtie, repaired

    # The resolver now answers level 2 inside Município B, with the full chain.
    found = conn.execute("SELECT * FROM d2.resolver_territorio(-27.0, -44.0)").fetchone()
    assert found is not None
    assert found["unidade_civica_id"] == rows["Centro B"]["id"]
    assert found["cadeia_ucs"] == [
        rows["Centro B"]["id"],
        territorio_com_ibge.mun_b,
        territorio_com_ibge.uf,
        territorio_com_ibge.regiao,
        territorio_com_ibge.brasil,
    ]

    texto = resumo.format_text()
    assert "município has IBGE bairros" in texto and "Bairro OSM em A" in texto
    js = resumo.as_json()
    assert js["inserted"] == 3 and js["skipped"] == 6 and js["fonte"] == "osm"
    json.dumps(js)


def test_importar_osm__rerun_writes_nothing_and_a_change_updates_one(
    conn: Conn, db_url: str, territorio_com_ibge: Territorio, tmp_path: Path
) -> None:
    dados = extrato()
    arquivo = escrever(tmp_path, dados, "bairros.geojson.gz")
    osm.importar_osm(db_url, arquivo)
    antes = versao(conn)
    atualizado_em = {n: r["atualizado_em"] for n, r in osm_rows(conn).items()}

    again = osm.importar_osm(db_url, arquivo)
    assert (again.inserted, again.updated, again.unchanged) == (0, 0, 3)
    assert versao(conn) == antes  # nothing written: no worker cache emptied
    assert {n: r["atualizado_em"] for n, r in osm_rows(conn).items()} == atualizado_em

    dados["features"][0]["properties"]["name"] = "Centro Histórico B"
    mudou = osm.importar_osm(db_url, escrever(tmp_path, dados, "bairros.geojson.gz"))
    assert (mudou.inserted, mudou.updated, mudou.unchanged) == (0, 1, 2)
    assert "Centro Histórico B" in osm_rows(conn)
