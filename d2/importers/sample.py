"""A synthetic, IBGE-shaped territory for the demo and for tests that must run anywhere.

País "Brasil Fictício" → 2 regiões → 3 UFs → 8 municípios, written as GeoJSON files
with IBGE 2025 names and columns. Municipalities are built first from shared vertex
lists, so neighbours share their borders exactly; UFs, regiões and the país are unions
of them. It has: municipalities with and without bairros, an enclave (Enclave do Meio,
entirely inside Porto Sereno) and a multi-part island municipality (Arquipélago das
Garças: mainland plus two islands).
"""

from __future__ import annotations

import math
import random
import tempfile
from pathlib import Path
from typing import Any

import geopandas
import shapely

from d2.importers import ibge

_ALBERS = "+proj=aea +lat_0=-12 +lon_0=-54 +lat_1=-2 +lat_2=-22 +ellps=GRS80 +units=m"

UFS = {
    "11": ("Aurora", "AU", "1"),
    "21": ("Boreal", "BO", "2"),
    "22": ("Cerrado Alto", "CA", "2"),
}
REGIOES = {"1": ("Norte Fictício", "NF"), "2": ("Sul Fictício", "SF")}


def _onda() -> list[tuple[float, float]]:
    """The wavy border at lng ≈ -56 between Vila Aurora and Campo Largo, south to north.

    It starts and ends exactly on lng -56, where Porto Sereno's corner is, so every
    shared edge has the same vertices on both sides (a valid coverage).
    """
    passos = 100
    meio = [
        (-56 + 0.05 * math.sin(6 * math.pi * i / passos), -15 + 5 * i / passos)
        for i in range(1, passos)
    ]
    return [(-56.0, -15.0), *meio, (-56.0, -10.0)]


def _retangulo(x0: float, y0: float, x1: float, y1: float) -> shapely.Polygon:
    return shapely.box(x0, y0, x1, y1)


def municipios() -> dict[str, tuple[str, shapely.Geometry]]:
    """CD_MUN → (NM_MUN, geometry)."""
    onda = _onda()
    vila_aurora = shapely.Polygon([(-60, -15), *onda, (-60, -10)])
    campo_largo = shapely.Polygon([*onda, (-56, -5), (-52, -5), (-52, -15)])
    enclave = _retangulo(-58.5, -8, -57.5, -7)
    porto_sereno = shapely.Polygon(
        _retangulo(-60, -10, -56, -5).exterior.coords,
        [enclave.exterior.coords],
    )
    ilhas = [_retangulo(-39.5, -8, -39, -7.5), _retangulo(-39, -10, -38.5, -9.5)]
    return {
        "1100015": ("Vila Aurora", vila_aurora),
        "1100023": ("Porto Sereno", porto_sereno),
        "1100031": ("Enclave do Meio", enclave),
        "1100049": ("Campo Largo", campo_largo),
        "2100055": ("Nova Boreal", _retangulo(-52, -15, -49, -5)),
        "2100063": ("Serra Clara", _retangulo(-49, -15, -46, -5)),
        "2200079": ("Lagoa Funda", _retangulo(-46, -15, -43, -5)),
        "2200087": (
            "Arquipélago das Garças",
            shapely.MultiPolygon([_retangulo(-43, -15, -40, -5), *ilhas]),
        ),
    }


def bairros() -> dict[str, tuple[str, str, shapely.Geometry]]:
    """CD_BAIRRO → (CD_MUN, NM_BAIRRO, geometry). Vila Aurora east of -57.5 has none."""
    return {
        "1100015001": ("1100015", "Centro", _retangulo(-60, -15, -58, -12.5)),
        "1100015002": ("1100015", "Jardim das Flores", _retangulo(-58, -15, -57.5, -12.5)),
        # the vertex at -58 is where Centro and Jardim das Flores meet below it
        "1100015003": (
            "1100015",
            "Alto da Serra",
            shapely.Polygon([(-60, -12.5), (-58, -12.5), (-57.5, -12.5), (-57.5, -10), (-60, -10)]),
        ),
        "2100055001": ("2100055", "Beira-Rio", _retangulo(-52, -15, -50.5, -10)),
        "2100055002": ("2100055", "São Cristóvão", _retangulo(-50.5, -15, -49, -10)),
    }


def _area_km2(geoms: list[shapely.Geometry]) -> list[float]:
    projetadas = geopandas.GeoSeries(geoms, crs=4326).to_crs(_ALBERS)
    return [round(a / 1e6, 3) for a in projetadas.area]


def _gravar(linhas: list[dict[str, Any]], geoms: list[shapely.Geometry], path: Path) -> Path:
    gdf = geopandas.GeoDataFrame(linhas, geometry=geoms, crs=4674)
    gdf.to_file(path, driver="GeoJSON", engine="pyogrio")
    return path


def write_sample(out_dir: Path) -> list[Path]:
    """Write BR_Pais_2025, BR_Regioes_2025, BR_UF_2025, BR_Municipios_2025 and
    BR_bairros_CD2022 as .geojson into out_dir (created if missing)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    muns = municipios()
    geo_uf = {
        uf: shapely.union_all([g for cd, (_, g) in muns.items() if cd[:2] == uf]) for uf in UFS
    }
    geo_rg = {
        rg: shapely.union_all([g for uf, g in geo_uf.items() if UFS[uf][2] == rg]) for rg in REGIOES
    }
    pais = shapely.union_all(list(geo_rg.values()))
    escritos = [
        _gravar(
            [{"Pais": "Brasil Fictício", "AREA_KM2": _area_km2([pais])[0]}],
            [pais],
            out_dir / "BR_Pais_2025.geojson",
        )
    ]
    linhas = [
        {"CD_REGIAO": rg, "NM_REGIAO": nome, "SIGLA_RG": sigla, "AREA_KM2": area}
        for (rg, (nome, sigla)), area in zip(
            REGIOES.items(), _area_km2(list(geo_rg.values())), strict=True
        )
    ]
    escritos.append(_gravar(linhas, list(geo_rg.values()), out_dir / "BR_Regioes_2025.geojson"))
    linhas = []
    for (uf, (nome, sigla, rg)), area in zip(
        UFS.items(), _area_km2(list(geo_uf.values())), strict=True
    ):
        nm_rg, sigla_rg = REGIOES[rg]
        linhas.append(
            {
                "CD_UF": uf,
                "NM_UF": nome,
                "SIGLA_UF": sigla,
                "CD_REGIAO": rg,
                "NM_REGIAO": nm_rg,
                "SIGLA_RG": sigla_rg,
                "AREA_KM2": area,
            }
        )
    escritos.append(_gravar(linhas, list(geo_uf.values()), out_dir / "BR_UF_2025.geojson"))
    linhas = []
    geoms = [g for _, g in muns.values()]
    for (cd, (nome, _)), area in zip(muns.items(), _area_km2(geoms), strict=True):
        nm_uf, sigla_uf, rg = UFS[cd[:2]]
        linhas.append(
            {
                "CD_MUN": cd,
                "NM_MUN": nome,
                "CD_RGI": cd[:2] + "0001",
                "NM_RGI": f"RGI de {nm_uf}",
                "CD_RGINT": cd[:2] + "01",
                "NM_RGINT": f"RGInt de {nm_uf}",
                "CD_UF": cd[:2],
                "NM_UF": nm_uf,
                "SIGLA_UF": sigla_uf,
                "CD_REGIAO": rg,
                "NM_REGIAO": REGIOES[rg][0],
                "SIGLA_RG": REGIOES[rg][1],
                "CD_CONCURB": "",
                "NM_CONCURB": "",
                "AREA_KM2": area,
            }
        )
    escritos.append(_gravar(linhas, geoms, out_dir / "BR_Municipios_2025.geojson"))
    linhas = []
    for cd, (mun, nome, _) in bairros().items():
        nm_uf, _, rg = UFS[mun[:2]]
        linhas.append(
            {
                "CD_REGIAO": rg,
                "NM_REGIAO": REGIOES[rg][0],
                "CD_UF": mun[:2],
                "NM_UF": nm_uf,
                "CD_MUN": mun,
                "NM_MUN": muns[mun][0],
                "CD_DIST": mun + "05",
                "NM_DIST": muns[mun][0],
                "CD_SUBDIST": mun + "0500",
                "NM_SUBDIST": "",
                "CD_BAIRRO": cd,
                "NM_BAIRRO": nome,
                "CD_RGINT": mun[:2] + "01",
                "NM_RGINT": f"RGInt de {nm_uf}",
                "CD_RGI": mun[:2] + "0001",
                "NM_RGI": f"RGI de {nm_uf}",
                "CD_CONCURB": "",
                "NM_CONCURB": "",
            }
        )
    geoms = [g for _, _, g in bairros().values()]
    escritos.append(_gravar(linhas, geoms, out_dir / "BR_bairros_CD2022.geojson"))
    return escritos


def sample_points(n: int, seed: int = 0) -> list[tuple[float, float]]:
    """n (lat, lng) points: about a third in bairros, a third in municipalities without
    bairros, the rest anywhere around the territory (some outside everything)."""
    rng = random.Random(seed)
    com_bairro = shapely.union_all([g for _, _, g in bairros().values()])
    sem_bairro = shapely.union_all(
        [g for cd, (_, g) in municipios().items() if cd not in {"1100015", "2100055"}]
    )
    pontos: list[tuple[float, float]] = []
    for i in range(n):
        alvo = (com_bairro, sem_bairro, None)[i % 3]
        while True:
            lng, lat = rng.uniform(-62, -37), rng.uniform(-17, -3)
            if alvo is None or alvo.contains(shapely.Point(lng, lat)):
                pontos.append((round(lat, 6), round(lng, 6)))
                break
    return pontos


def load_sample(url: str) -> ibge.Summary:
    """Write the sample to a temporary directory and import it into the database."""
    with tempfile.TemporaryDirectory(prefix="d2-sample-") as tmp:
        write_sample(Path(tmp))
        return ibge.run_import(url, directory=Path(tmp), progress=False)
