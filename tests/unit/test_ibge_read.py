"""Finding IBGE files by name and reading them whatever the vintage or encoding."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from d2 import errors
from d2.importers import ibge_read, sample


def _tocar(diretorio: Path, *nomes: str) -> None:
    for nome in nomes:
        (diretorio / nome).write_bytes(b"")


def test_descobrir__national_newest_vintage_preferred_format(tmp_path: Path) -> None:
    _tocar(
        tmp_path,
        "BR_Municipios_2024.shp",
        "BR_Municipios_2025.zip",
        "BR_Municipios_2025.shp",
        "AC_Municipios_2025.shp",
        "BR_UF_2025.gpkg",
        "br_regioes.geojson",
        "BR_Pais_2025.geojson.gz",
        "MS_bairros_CD2022.shp",
        "RJ_bairros_CD2022.zip",
        "bairros_ms_cd2022.geojson",
        "LEIAME.txt",
    )

    achados = ibge_read.descobrir(tmp_path)

    assert {c: [p.name for p in ps] for c, ps in achados.items()} == {
        "municipios": ["BR_Municipios_2025.shp"],
        "ufs": ["BR_UF_2025.gpkg"],
        "regioes": ["br_regioes.geojson"],
        "pais": ["BR_Pais_2025.geojson.gz"],
        "bairros": ["MS_bairros_CD2022.shp", "RJ_bairros_CD2022.zip"],
    }


def test_descobrir__missing_directory(tmp_path: Path) -> None:
    with pytest.raises(errors.ImportFailed, match="directory not found"):
        ibge_read.descobrir(tmp_path / "nada")


def test_ler_arquivo__canonical_columns_and_parent_codes(tmp_path: Path) -> None:
    sample.write_sample(tmp_path)

    gdf, fonte = ibge_read.ler_arquivo("bairros", tmp_path / "BR_bairros_CD2022.geojson")

    assert fonte.crs == "EPSG:4674" and not fonte.transformado
    linha = gdf.set_index("codigo").loc["1100015002"]
    assert linha["nome"] == "Jardim das Flores"
    assert linha["codigo_pai"] == "1100015"
    assert linha["metadados"]["codigo_bairro"] == "1100015002"
    ufs, _ = ibge_read.ler_arquivo("ufs", tmp_path / "BR_UF_2025.geojson")
    assert dict(zip(ufs["codigo"], ufs["codigo_pai"], strict=True)) == {
        "11": "1",
        "21": "2",
        "22": "2",
    }
    pais, _ = ibge_read.ler_arquivo("pais", tmp_path / "BR_Pais_2025.geojson")
    assert pais["codigo"].tolist() == ["BR"] and pais["nome"].tolist() == ["Brasil Fictício"]


def test_ler_arquivo__other_crs_is_transformed(tmp_path: Path) -> None:
    sample.write_sample(tmp_path)
    gdf, _ = ibge_read.ler_arquivo("ufs", tmp_path / "BR_UF_2025.geojson")
    gdf[["geometry"]].assign(CD_UF=gdf["codigo"], NM_UF=gdf["nome"]).to_crs(3857).to_file(
        tmp_path / "mercator.gpkg"
    )

    lida, fonte = ibge_read.ler_arquivo("ufs", tmp_path / "mercator.gpkg")

    assert fonte.transformado and fonte.crs == "EPSG:3857"
    assert lida.geometry.total_bounds == pytest.approx(gdf.geometry.total_bounds, abs=1e-6)


@pytest.fixture
def acre(shared_data: Path, tmp_path: Path) -> Path:
    origem = shared_data / "ibge_original"
    for ext in ("shp", "shx", "dbf", "prj", "cpg"):
        shutil.copy(origem / f"AC_Municipios_2024.{ext}", tmp_path)
    return tmp_path / "AC_Municipios_2024.shp"


def test_ler_arquivo__acre_2024_cpg_1252_and_short_column_names(acre: Path) -> None:
    gdf, _ = ibge_read.ler_arquivo("municipios", acre)

    assert {"Tarauacá", "Feijó", "Mâncio Lima", "Jordão"} <= set(gdf["nome"])
    assert len(gdf) == 22
    assert all(m["codigo_municipio"].startswith("12") for m in gdf["metadados"])


def test_ler_arquivo__without_cpg_utf8_is_assumed_and_1252_fails_clearly(acre: Path) -> None:
    acre.with_suffix(".cpg").unlink()

    with pytest.raises(errors.ImportFailed, match="unreadable encoding"):
        ibge_read.ler_arquivo("municipios", acre)


def test_ler_arquivo__unknown_layout_names_the_columns_found(acre: Path) -> None:
    with pytest.raises(errors.ImportFailed, match=r"unknown layout for ufs.*CD_MUN, NM_MUN"):
        ibge_read.ler_arquivo("ufs", acre)
