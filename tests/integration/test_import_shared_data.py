"""The IBGE importer on the real IBGE-derived data in ../shared/data (skipped without it)."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy
import pytest
import shapely

from d2.importers import ibge, ibge_read
from d2.territorio import resolver
from tests.support import Conn

pytestmark = pytest.mark.shared_data


def _contagem(conn: Conn) -> dict[int, int]:
    rows = conn.execute("SELECT nivel, count(*) AS n FROM core.uc_polygons GROUP BY nivel")
    return {r["nivel"]: r["n"] for r in rows}


def test_import__all_layers_published_counts_none_dropped_and_idempotent(
    db_url: str, conn: Conn, shared_data: Path
) -> None:
    resumo = ibge.run_import(db_url, directory=shared_data, progress=False)

    assert _contagem(conn) == {4: 5564, 5: 27, 6: 5, 7: 1, 2: 296}
    assert resumo.total().dropped == 0
    assert resumo.total().orphans == 0
    assert resumo.total().inserted == 5564 + 27 + 5 + 1 + 296
    rejeitados = conn.execute("SELECT count(*) AS n FROM d2.mirror_rejected").fetchone()
    assert rejeitados == {"n": 0}

    de_novo = ibge.run_import(db_url, directory=shared_data, progress=False)

    total = de_novo.total()
    assert (total.inserted, total.updated, total.unchanged) == (0, 0, 5893)
    # Timings are measured by `d2 bench import`, not asserted here (shared, noisy machine).


def test_import__parents_follow_the_official_codes(brasil_conn: Conn) -> None:
    conn = brasil_conn
    bairros = conn.execute(
        "SELECT DISTINCT parent_uc_id FROM core.uc_polygons"
        " WHERE nivel = 2 AND metadados->>'codigo_bairro' LIKE '5002704%%'"
    ).fetchall()
    assert bairros == [{"parent_uc_id": ibge.uc_id(4, "5002704")}]
    cadeia = conn.execute(
        "SELECT d2.cadeia_ucs(%(uc)s) AS c", {"uc": ibge.uc_id(4, "5002704")}
    ).fetchone()
    assert cadeia == {
        "c": [
            ibge.uc_id(4, "5002704"),
            ibge.uc_id(5, "50"),
            ibge.uc_id(6, "5"),
            ibge.uc_id(7, "BR"),
        ]
    }
    nomes = conn.execute(
        "SELECT nivel, nome FROM core.uc_polygons WHERE id = ANY(%(ids)s) ORDER BY nivel",
        {"ids": cadeia["c"]},
    ).fetchall()
    assert [n["nome"] for n in nomes] == [
        "Campo Grande",
        "Mato Grosso do Sul",
        "Centro-oeste",
        "Brasil",
    ]
    sem_pai = conn.execute(
        "SELECT nivel, count(*) AS n FROM core.uc_polygons"
        " WHERE parent_uc_id IS NULL GROUP BY nivel"
    ).fetchall()
    assert sem_pai == [{"nivel": 7, "n": 1}]


def test_import__municipality_seats_resolve_to_their_own_municipality(
    brasil_conn: Conn, shared_data: Path
) -> None:
    conn = brasil_conn
    with (shared_data / "municipios_sedes.csv").open(encoding="utf-8") as f:
        sedes = list(csv.DictReader(f))
    existentes = {
        r["codigo"]
        for r in conn.execute(
            "SELECT metadados->>'codigo_municipio' AS codigo FROM core.uc_polygons WHERE nivel = 4"
        )
    }
    sedes = [s for s in sedes if s["codigo_ibge"] in existentes]

    resolvidas = resolver.resolver_muitos(conn, [(float(s["lat"]), float(s["lng"])) for s in sedes])

    certas = sum(
        1
        for sede, r in zip(sedes, resolvidas, strict=True)
        if r is not None and str(ibge.uc_id(4, sede["codigo_ibge"])) in r.cadeia_ucs
    )
    assert len(sedes) >= 5500
    assert certas / len(sedes) >= 0.99, f"{certas} of {len(sedes)}"


def test_import__acre_2024_windows_1252_keeps_accents(
    db_url: str, conn: Conn, shared_data: Path
) -> None:
    acre = shared_data / "ibge_original" / "AC_Municipios_2024.shp"

    resumo = ibge.run_import(db_url, files={"municipios": acre}, progress=False)

    nomes = {r["nome"] for r in conn.execute("SELECT nome FROM core.uc_polygons")}
    assert {"Tarauacá", "Feijó", "Mâncio Lima", "Plácido de Castro", "Brasiléia"} <= nomes
    assert len(nomes) == 22
    assert resumo.camadas["municipios"].total.orphans == 22  # no UF 12 in the database
    row = conn.execute(
        "SELECT metadados FROM core.uc_polygons WHERE id = %(id)s", {"id": ibge.uc_id(4, "1200401")}
    ).fetchone()
    assert row is not None and row["metadados"]["sigla_uf"] == "AC"


def _sobreposicao(geoms: numpy.ndarray) -> float:
    arvore = shapely.STRtree(geoms)
    pares = arvore.query(geoms, predicate="intersects")
    i, j = pares[:, pares[0] < pares[1]]
    return float(shapely.area(shapely.intersection(geoms[i], geoms[j])).sum())


def _lacunas(geoms: numpy.ndarray) -> float:
    uniao = shapely.union_all(geoms)
    aneis = [r for p in shapely.get_parts(uniao) for r in p.interiors]
    return float(sum(shapely.Polygon(r).area for r in aneis))


@pytest.mark.parametrize(
    "uf", ["26", "35", pytest.param("", marks=pytest.mark.slow)], ids=["PE", "SP", "BR"]
)
def test_coverage_simplify__creates_no_overlap_nor_gap_between_municipalities(
    shared_data: Path, uf: str
) -> None:
    gdf, _ = ibge_read.ler_camada("municipios", [shared_data / "br_municipios.geojson.gz"])
    geoms = gdf[gdf["codigo"].str.startswith(uf)].geometry.to_numpy()

    simples, modo = ibge.simplificar_camada(geoms, 0.001)

    assert modo.startswith("coverage")
    assert shapely.get_num_coordinates(simples).sum() < shapely.get_num_coordinates(geoms).sum()
    assert not shapely.is_empty(simples).any()
    area = shapely.union_all(geoms).area
    ruido = 1e-9 * area
    assert _sobreposicao(simples) <= _sobreposicao(geoms) + ruido
    assert _lacunas(simples) <= _lacunas(geoms) + ruido
    # every municipality keeps its size (simplification moves borders by metres)
    relativa = numpy.abs(shapely.area(simples) / shapely.area(geoms) - 1)
    assert relativa.max() < 0.05
