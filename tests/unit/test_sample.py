"""The synthetic sample territory: IBGE names and columns, exact shared borders."""

from __future__ import annotations

from pathlib import Path

import pyogrio
import shapely

from d2.importers import sample


def test_write_sample__ibge_file_names_and_2025_columns(tmp_path: Path) -> None:
    escritos = sample.write_sample(tmp_path)

    assert sorted(p.name for p in escritos) == [
        "BR_Municipios_2025.geojson",
        "BR_Pais_2025.geojson",
        "BR_Regioes_2025.geojson",
        "BR_UF_2025.geojson",
        "BR_bairros_CD2022.geojson",
    ]
    campos = {p.name: list(pyogrio.read_info(p)["fields"]) for p in escritos}
    assert campos["BR_Pais_2025.geojson"] == ["Pais", "AREA_KM2"]
    assert campos["BR_UF_2025.geojson"][:4] == ["CD_UF", "NM_UF", "SIGLA_UF", "CD_REGIAO"]
    assert "CD_BAIRRO" in campos["BR_bairros_CD2022.geojson"]
    assert len(campos["BR_bairros_CD2022.geojson"]) == 18
    assert len(campos["BR_Municipios_2025.geojson"]) == 15


def test_municipios__form_a_valid_coverage_with_an_enclave_and_an_island() -> None:
    muns = sample.municipios()
    geoms = [g for _, g in muns.values()]

    assert shapely.coverage_is_valid(geoms)
    assert all(shapely.is_valid(geoms))
    _, enclave = muns["1100031"]
    _, porto_sereno = muns["1100023"]
    assert shapely.Polygon(porto_sereno.exterior).contains(enclave)
    assert porto_sereno.intersection(enclave).area == 0
    _, ilhas = muns["2200087"]
    assert isinstance(ilhas, shapely.MultiPolygon) and len(ilhas.geoms) == 3


def test_bairros__inside_their_municipality_and_a_valid_coverage() -> None:
    muns = sample.municipios()
    bairros = sample.bairros()

    assert shapely.coverage_is_valid([g for *_, g in bairros.values()])
    for codigo, (mun, _, geom) in bairros.items():
        assert codigo.startswith(mun) and len(codigo) == 10
        assert muns[mun][1].covers(geom)


def test_sample_points__mix_of_bairros_municipalities_and_outside() -> None:
    pontos = sample.sample_points(30, seed=7)
    bairros = shapely.union_all([g for *_, g in sample.bairros().values()])
    territorio = shapely.union_all([g for _, g in sample.municipios().values()])

    assert len(pontos) == 30
    assert pontos == sample.sample_points(30, seed=7)
    dentro_bairro = sum(bairros.covers(shapely.Point(lng, lat)) for lat, lng in pontos)
    fora = sum(not territorio.covers(shapely.Point(lng, lat)) for lat, lng in pontos)
    assert dentro_bairro >= 10
    assert fora >= 1
    assert 30 - dentro_bairro - fora >= 10
