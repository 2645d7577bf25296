"""The IBGE importer on the synthetic sample territory (runs everywhere)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import geopandas
import pytest
import shapely

from d2 import errors
from d2.importers import ibge, sample
from d2.territorio import resolver
from tests.support import Conn


@pytest.fixture
def amostra(tmp_path: Path) -> Path:
    sample.write_sample(tmp_path / "ibge")
    return tmp_path / "ibge"


def _contagem(conn: Conn) -> dict[int, int]:
    rows = conn.execute("SELECT nivel, count(*) AS n FROM core.uc_polygons GROUP BY nivel")
    return {r["nivel"]: r["n"] for r in rows}


def _resolver_nome(conn: Conn, lat: float, lng: float) -> tuple[str, int] | None:
    achado = resolver.resolver(conn, lat, lng)
    if achado is None:
        return None
    row = conn.execute(
        "SELECT nome, nivel FROM core.uc_polygons WHERE unidade_civica_id = %(uc)s",
        {"uc": achado.unidade_civica_id},
    ).fetchone()
    assert row is not None
    return row["nome"], row["nivel"]


def test_import__sample_levels_counts_and_parents(db_url: str, conn: Conn, amostra: Path) -> None:
    resumo = ibge.run_import(db_url, directory=amostra, progress=False)

    assert _contagem(conn) == {7: 1, 6: 2, 5: 3, 4: 8, 2: 5}
    assert resumo.total().inserted == 19
    assert resumo.total().dropped == 0 and resumo.total().orphans == 0
    row = conn.execute(
        "SELECT parent_uc_id, metadados, fonte FROM core.uc_polygons WHERE id = %(id)s",
        {"id": ibge.uc_id(2, "1100015002")},
    ).fetchone()
    assert row is not None
    assert row["parent_uc_id"] == ibge.uc_id(4, "1100015")
    assert row["metadados"]["codigo_bairro"] == "1100015002"
    assert row["fonte"] == "ibge"
    cadeia = conn.execute(
        "SELECT d2.cadeia_ucs(%(uc)s) AS c", {"uc": ibge.uc_id(2, "1100015002")}
    ).fetchone()
    assert cadeia is not None
    assert cadeia["c"] == [
        ibge.uc_id(2, "1100015002"),
        ibge.uc_id(4, "1100015"),
        ibge.uc_id(5, "11"),
        ibge.uc_id(6, "1"),
        ibge.uc_id(7, "BR"),
    ]
    assert json.loads(json.dumps(resumo.as_json()))["total"]["read"] == 19
    assert "municipios" in resumo.format_text()


def test_import__enclave_island_and_municipality_without_bairros_resolve(
    db_url: str, conn: Conn, amostra: Path
) -> None:
    ibge.run_import(db_url, directory=amostra, progress=False)

    assert _resolver_nome(conn, -7.5, -58.0) == ("Enclave do Meio", 4)
    assert _resolver_nome(conn, -6.0, -59.0) == ("Porto Sereno", 4)
    assert _resolver_nome(conn, -7.75, -39.25) == ("Arquipélago das Garças", 4)
    assert _resolver_nome(conn, -9.75, -38.75) == ("Arquipélago das Garças", 4)
    assert _resolver_nome(conn, -12.0, -54.0) == ("Campo Largo", 4)
    assert _resolver_nome(conn, -14.0, -59.0) == ("Centro", 2)
    assert _resolver_nome(conn, -14.0, -56.5) == ("Vila Aurora", 4)
    assert _resolver_nome(conn, -12.0, -30.0) is None


def test_import__wavy_shared_border_leaves_no_gap(db_url: str, conn: Conn, amostra: Path) -> None:
    ibge.run_import(db_url, directory=amostra, progress=False)

    # Points across the simplified wavy border: each lands in exactly one of the two.
    for i in range(50):
        lat = -14.9 + i * 0.09
        for lng in (-56.06, -56.03, -56.0, -55.97, -55.94):
            achado = _resolver_nome(conn, lat, lng)
            assert achado is not None and achado[0] in {"Vila Aurora", "Campo Largo"}, (lat, lng)


def test_reimport__changes_nothing(db_url: str, conn: Conn, amostra: Path) -> None:
    ibge.run_import(db_url, directory=amostra, progress=False)
    antes = conn.execute("SELECT id, atualizado_em FROM core.uc_polygons ORDER BY id").fetchall()
    versao = conn.execute("SELECT versao FROM d2.mirror_state").fetchone()

    resumo = ibge.run_import(db_url, directory=amostra, progress=False)

    total = resumo.total()
    assert (total.inserted, total.updated, total.unchanged) == (0, 0, 19)
    depois = conn.execute("SELECT id, atualizado_em FROM core.uc_polygons ORDER BY id").fetchall()
    assert depois == antes
    assert conn.execute("SELECT versao FROM d2.mirror_state").fetchone() == versao


def test_reimport__changed_name_updates_exactly_one_row(
    db_url: str, conn: Conn, amostra: Path
) -> None:
    ibge.run_import(db_url, directory=amostra, progress=False)
    path = amostra / "BR_Municipios_2025.geojson"
    path.write_text(
        path.read_text(encoding="utf-8").replace("Serra Clara", "Serra Clara do Norte"),
        encoding="utf-8",
    )

    resumo = ibge.run_import(db_url, directory=amostra, progress=False)

    assert resumo.camadas["municipios"].total.updated == 1
    assert resumo.total().updated == 1 and resumo.total().inserted == 0
    row = conn.execute(
        "SELECT nome, nome_busca, atualizado_em > criado_em AS mudou FROM core.uc_polygons"
        " WHERE id = %(id)s",
        {"id": ibge.uc_id(4, "2100063")},
    ).fetchone()
    assert row == {
        "nome": "Serra Clara do Norte",
        "nome_busca": "serra clara do norte",
        "mudou": True,
    }


def test_import__missing_file_fails_clearly(db_url: str, conn: Conn, tmp_path: Path) -> None:
    with pytest.raises(errors.ImportFailed, match="not found"):
        ibge.run_import(db_url, files={"municipios": tmp_path / "nada.shp"}, progress=False)
    with pytest.raises(errors.ImportFailed, match="no IBGE files"):
        ibge.run_import(db_url, directory=tmp_path, progress=False)
    assert _contagem(conn) == {}


def test_import__unknown_columns_fail_and_leave_the_table_as_it_was(
    db_url: str, conn: Conn, amostra: Path
) -> None:
    ibge.run_import(db_url, directory=amostra, progress=False)
    antes = _contagem(conn)
    path = amostra / "BR_UF_2025.geojson"
    path.write_text(
        path.read_text(encoding="utf-8").replace('"CD_UF"', '"CODIGO"'), encoding="utf-8"
    )

    with pytest.raises(errors.ImportFailed, match=r"unknown layout.*CODIGO"):
        ibge.run_import(db_url, directory=amostra, progress=False)
    assert _contagem(conn) == antes


def test_import__failed_database_step_rolls_back_everything(
    db_url: str, conn: Conn, amostra: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = ibge._linhas_copy

    def quebrado(nivel: int, gdf: Any) -> Any:
        if nivel == 2:
            raise errors.D2Error("boom while streaming bairros")
        return real(nivel, gdf)

    monkeypatch.setattr(ibge, "_linhas_copy", quebrado)
    with pytest.raises(errors.D2Error, match="boom"):
        ibge.run_import(db_url, directory=amostra, progress=False)
    assert _contagem(conn) == {}


def test_import__tolerance_zero_keeps_geometry(db_url: str, conn: Conn, amostra: Path) -> None:
    resumo = ibge.run_import(db_url, directory=amostra, tolerancia=0, progress=False)

    assert resumo.camadas["municipios"].simplificacao == "none"
    row = conn.execute(
        "SELECT jsonb_array_length(geometria->'coordinates'->0) AS n FROM core.uc_polygons"
        " WHERE id = %(id)s",
        {"id": ibge.uc_id(4, "1100015")},
    ).fetchone()
    assert row is not None and row["n"] == len(sample.municipios()["1100015"][1].exterior.coords)


def test_import__orphans_counted_when_parent_missing(
    db_url: str, conn: Conn, amostra: Path
) -> None:
    resumo = ibge.run_import(
        db_url, files={"bairros": amostra / "BR_bairros_CD2022.geojson"}, progress=False
    )

    assert resumo.camadas["bairros"].total.orphans == 5
    assert sorted(resumo.camadas["bairros"].orphan_codes) == sorted(sample.bairros())
    row = conn.execute(
        "SELECT count(*) AS n FROM core.uc_polygons WHERE parent_uc_id IS NULL"
    ).fetchone()
    assert row == {"n": 5}


def test_import__a_10000_character_name_is_cut_not_fatal(
    db_url: str, conn: Conn, amostra: Path
) -> None:
    """One hostile or broken name (the column is varchar(255)) must not abort the import."""
    path = amostra / "BR_Municipios_2025.geojson"
    longo = "Serra Clara " + "x" * 10_000
    path.write_text(
        path.read_text(encoding="utf-8").replace("Serra Clara", longo), encoding="utf-8"
    )

    resumo = ibge.run_import(db_url, directory=amostra, progress=False)

    assert resumo.camadas["municipios"].total.inserted == resumo.camadas["municipios"].total.read
    row = conn.execute(
        "SELECT nome FROM core.uc_polygons WHERE id = %(id)s", {"id": ibge.uc_id(4, "2100063")}
    ).fetchone()
    assert row == {"nome": longo[:255]}


def test_import__invalid_geometry_repaired_and_tiny_one_dropped_both_listed(
    db_url: str, conn: Conn, amostra: Path
) -> None:
    path = amostra / "BR_Municipios_2025.geojson"
    gdf = geopandas.read_file(path)
    extra = gdf.iloc[[0, 0]].copy()
    extra["CD_MUN"] = ["2200095", "2200103"]
    extra["NM_MUN"] = ["Gravata Torta", "Ilhota Mínima"]
    gravata = shapely.Polygon([(-39.5, -12), (-39, -11), (-39, -12), (-39.5, -11)])
    extra["geometry"] = [gravata, shapely.box(-39.5, -13, -39.49995, -12.99995)]
    geopandas.GeoDataFrame(
        [*gdf.to_dict("records"), *extra.to_dict("records")], crs=gdf.crs
    ).to_file(path, driver="GeoJSON")

    resumo = ibge.run_import(db_url, directory=amostra, progress=False)

    municipios = resumo.camadas["municipios"]
    assert [(o.codigo, o.nome) for o in municipios.repaired] == [("2200095", "Gravata Torta")]
    assert "Self-intersection" in municipios.repaired[0].motivo
    assert [(o.codigo, o.nome) for o in municipios.dropped] == [("2200103", "Ilhota Mínima")]
    assert "below the minimum" in municipios.dropped[0].motivo
    assert (municipios.total.read, municipios.total.inserted) == (10, 9)
    assert "DROPPED 2200103 Ilhota Mínima" in resumo.format_text()
    row = conn.execute(
        "SELECT geometria->>'type' AS tipo FROM core.uc_polygons WHERE id = %(id)s",
        {"id": ibge.uc_id(4, "2200095")},
    ).fetchone()
    assert row == {"tipo": "MultiPolygon"}
    assert _resolver_nome(conn, -11.5, -39.45) == ("Gravata Torta", 4)
    assert _resolver_nome(conn, -11.5, -39.05) == ("Gravata Torta", 4)
