"""Finding and reading IBGE files: official names, column layouts, encodings, CRS.

Everything here turns one layer's files into a GeoDataFrame with the same canonical
columns (codigo, nome, codigo_pai, metadados, arquivo, geometry), whatever the vintage
(2022 to 2025 column names), the format GDAL reads, or the file's encoding.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import geopandas
import numpy
import pandas
import pyogrio
import pyogrio.errors

from d2 import errors

CAMADAS = ("pais", "regioes", "ufs", "municipios", "bairros")
"""The layers in import order, parents first (orphans are counted against the database)."""

# Preferred format first when one file exists in several formats (unpacked .zip next to
# its .shp, a .gpkg and a .shp of the same product).
_EXTENSOES = (".shp", ".gpkg", ".geojson", ".json", ".geojson.gz", ".json.gz", ".zip")

_PADROES: dict[str, tuple[re.Pattern[str], ...]] = {
    "municipios": (re.compile(r"^(?P<escopo>[a-z]{2})_municipios(?:_(?P<ano>\d{4}))?$", re.I),),
    "ufs": (re.compile(r"^(?P<escopo>[a-z]{2})_uf(?:_(?P<ano>\d{4}))?$", re.I),),
    "regioes": (re.compile(r"^(?P<escopo>br)_regioes(?:_(?P<ano>\d{4}))?$", re.I),),
    "pais": (re.compile(r"^(?P<escopo>br)_pais(?:_(?P<ano>\d{4}))?$", re.I),),
    "bairros": (
        re.compile(r"^(?P<escopo>[a-z]{2})_bairros_cd(?P<ano>\d{4})$", re.I),
        # the name used in ../shared/data
        re.compile(r"^bairros_(?P<escopo>[a-z]{2})_cd(?P<ano>\d{4})$", re.I),
    ),
}

# Windows code pages as .cpg files write them ("1252") and as Python names them.
_CODEPAGES = {"1252": "cp1252", "65001": "utf-8", "88591": "latin-1", "28591": "latin-1"}

_SIRGAS_OU_WGS84 = (4674, 4326)


def _primeiros(valor: str, n: int) -> str:
    return valor[:n]


@dataclass(frozen=True)
class Layout:
    """How one layer's columns map onto a UC: code, name, parent code, metadados."""

    camada: str
    nivel: int
    chave: str  # the metadados key of the official code (spec 8.5)
    codigo: tuple[str, ...]  # accepted column names, any vintage
    nome: tuple[str, ...]
    pai: Callable[[str, dict[str, Any]], str | None]
    extras: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exige: tuple[str, ...] = ()  # further columns without which the layout is unknown
    codigo_fixo: str | None = None  # BR_Pais has no code column: IBGE has one país
    # A finer layer's file also carries the coarser codes (a municipios file has CD_UF,
    # NM_UF): these columns say the file is not this layer.
    exclui: tuple[str, ...] = ()


def _pai_uf(codigo: str, linha: dict[str, Any]) -> str | None:
    regiao = _texto(linha.get("CD_REGIAO", linha.get("CD_REGIA")))
    return regiao or codigo[:1]


LAYOUTS: dict[str, Layout] = {
    "pais": Layout(
        "pais",
        7,
        "codigo_pais",
        ("CD_PAIS",),
        ("PAIS", "NM_PAIS"),
        lambda codigo, linha: None,
        (("area_km2", ("AREA_KM2",)),),
        codigo_fixo="BR",
        exclui=("CD_REGIAO", "CD_REGIA", "CD_UF", "CD_MUN", "CD_BAIRRO"),
    ),
    "regioes": Layout(
        "regioes",
        6,
        "codigo_regiao",
        ("CD_REGIAO", "CD_REGIA"),
        ("NM_REGIAO", "NM_REGIA"),
        lambda codigo, linha: "BR",
        (("sigla_rg", ("SIGLA_RG",)), ("area_km2", ("AREA_KM2",))),
        exclui=("CD_UF", "CD_MUN", "CD_BAIRRO"),
    ),
    "ufs": Layout(
        "ufs",
        5,
        "codigo_uf",
        ("CD_UF",),
        ("NM_UF",),
        _pai_uf,
        (("sigla_uf", ("SIGLA_UF",)), ("area_km2", ("AREA_KM2",))),
        exclui=("CD_MUN", "CD_BAIRRO"),
    ),
    "municipios": Layout(
        "municipios",
        4,
        "codigo_municipio",
        ("CD_MUN",),
        ("NM_MUN",),
        lambda codigo, linha: _primeiros(codigo, 2),
        (
            ("sigla_uf", ("SIGLA_UF",)),
            ("codigo_rgi", ("CD_RGI",)),
            ("nome_rgi", ("NM_RGI",)),
            ("codigo_rgint", ("CD_RGINT",)),
            ("nome_rgint", ("NM_RGINT",)),
            ("codigo_concurb", ("CD_CONCURB", "CD_CONCU")),
            ("nome_concurb", ("NM_CONCURB", "NM_CONCU")),
            ("area_km2", ("AREA_KM2",)),
        ),
        exclui=("CD_BAIRRO",),
    ),
    "bairros": Layout(
        "bairros",
        2,
        "codigo_bairro",
        ("CD_BAIRRO",),
        ("NM_BAIRRO",),
        lambda codigo, linha: _texto(linha.get("CD_MUN")),
        (
            ("codigo_distrito", ("CD_DIST",)),
            ("nome_distrito", ("NM_DIST",)),
            ("codigo_subdistrito", ("CD_SUBDIST",)),
            ("nome_subdistrito", ("NM_SUBDIST",)),
        ),
        exige=("CD_MUN",),
    ),
}


@dataclass(frozen=True)
class Source:
    """One file read: its name, CRS as found, and whether it was transformed."""

    arquivo: str
    crs: str
    transformado: bool


def _texto(valor: object) -> str:
    """An attribute as text: codes stored as numbers lose no zeros nor gain '.0'."""
    if valor is None:
        return ""
    if isinstance(valor, float):
        if math.isnan(valor):
            return ""
        if valor.is_integer():
            return str(int(valor))
    return str(valor).strip()


def _extensao(path: Path) -> str | None:
    nome = path.name.lower()
    return next((ext for ext in _EXTENSOES if nome.endswith(ext)), None)


def descobrir(diretorio: Path) -> dict[str, list[Path]]:
    """The files of each layer in a directory, by IBGE (or ../shared/data) names.

    National files (BR_...) win over per-UF files; the newest vintage wins; per-UF
    files (MS_bairros_CD2022, AC_Municipios_2024, ...) are all taken, one per UF.
    """
    if not diretorio.is_dir():
        raise errors.ImportFailed(f"directory not found: {diretorio}")
    candidatos: dict[str, dict[tuple[str, int], Path]] = {camada: {} for camada in CAMADAS}
    for path in sorted(diretorio.iterdir()):
        ext = _extensao(path)
        if ext is None or not path.is_file():
            continue
        base = path.name[: -len(ext)]
        for camada, padroes in _PADROES.items():
            achado = next((m for p in padroes if (m := p.match(base))), None)
            if achado is None:
                continue
            chave = (achado["escopo"].upper(), int(achado["ano"] or 0))
            atual = candidatos[camada].get(chave)
            if atual is None or _EXTENSOES.index(ext) < _EXTENSOES.index(_extensao(atual) or ""):
                candidatos[camada][chave] = path
    escolhidos: dict[str, list[Path]] = {}
    for camada, por_chave in candidatos.items():
        nacionais = {ano: p for (escopo, ano), p in por_chave.items() if escopo == "BR"}
        if nacionais:
            escolhidos[camada] = [nacionais[max(nacionais)]]
            continue
        por_uf: dict[str, tuple[int, Path]] = {}
        for (escopo, ano), p in por_chave.items():
            if escopo not in por_uf or ano > por_uf[escopo][0]:
                por_uf[escopo] = (ano, p)
        if por_uf:
            escolhidos[camada] = [p for _, p in sorted(por_uf.values(), key=lambda t: str(t[1]))]
    return escolhidos


def _encoding(path: Path) -> str | None:
    """The encoding to ask pyogrio for: the .cpg's, else UTF-8 (GDAL would guess Latin-1)."""
    if path.suffix.lower() != ".shp":
        return None  # GeoJSON/GPKG are UTF-8 by definition; GDAL reads a .cpg inside a .zip
    cpg = path.with_suffix(".cpg")
    if not cpg.exists():
        cpg = path.with_suffix(".CPG")
    if not cpg.exists():
        return "utf-8"
    declarado = cpg.read_text(encoding="ascii", errors="replace").strip()
    return _CODEPAGES.get(declarado.replace("-", "").upper(), declarado or "utf-8")


def _abrir(path: Path) -> geopandas.GeoDataFrame:
    if not path.exists():
        raise errors.ImportFailed(f"file not found: {path}")
    alvo = str(path.resolve())
    if path.name.lower().endswith(".gz"):
        alvo = "/vsigzip/" + alvo
    encoding = _encoding(path)
    try:
        return pyogrio.read_dataframe(alvo, encoding=encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        raise errors.ImportFailed(
            f"{path.name}: unreadable encoding (tried {encoding or 'the declared one'}; "
            f"a .cpg next to the .shp says which): {exc}"
        ) from exc
    except (pyogrio.errors.DataSourceError, pyogrio.errors.DataLayerError) as exc:
        primeira = str(exc).strip().splitlines()[0] if str(exc).strip() else "unreadable"
        raise errors.ImportFailed(f"cannot read {path.name}: {primeira}") from exc


def _coluna(colunas: dict[str, str], nomes: tuple[str, ...]) -> str | None:
    return next((colunas[n] for n in nomes if n in colunas), None)


def ler_arquivo(camada: str, path: Path) -> tuple[geopandas.GeoDataFrame, Source]:
    """One file as canonical columns; ImportFailed when the layout is not recognised."""
    layout = LAYOUTS[camada]
    bruto = _abrir(path)
    colunas = {str(c).upper(): str(c) for c in bruto.columns if c != bruto.geometry.name}
    col_codigo = _coluna(colunas, layout.codigo)
    col_nome = _coluna(colunas, layout.nome)
    faltam = col_codigo is None and layout.codigo_fixo is None
    sobram = any(c in colunas for c in layout.exclui)
    if faltam or col_nome is None or sobram or any(c not in colunas for c in layout.exige):
        esperado = [layout.codigo[0], layout.nome[0], *layout.exige]
        if layout.codigo_fixo is not None:
            esperado.remove(layout.codigo[0])
        demais = f" and none of {', '.join(layout.exclui)}" if layout.exclui else ""
        raise errors.ImportFailed(
            f"{path.name}: unknown layout for {camada} (expected {', '.join(esperado)}"
            f"{demais}); "
            f"columns found: {', '.join(colunas.values()) or 'none'}"
        )

    gdf, fonte = _para_4326(bruto, path)
    linhas: list[dict[str, Any]] = []
    for registro in gdf.drop(columns=gdf.geometry.name).to_dict("records"):
        linha = {k.upper(): v for k, v in registro.items()}
        codigo = _texto(linha[col_codigo.upper()]) if col_codigo else ""
        codigo = codigo or (layout.codigo_fixo or "")
        metadados: dict[str, Any] = {layout.chave: codigo}
        for chave, nomes in layout.extras:
            valor = next((linha[n] for n in nomes if n in linha), None)
            if chave == "area_km2" and isinstance(valor, int | float) and not math.isnan(valor):
                metadados[chave] = float(valor)
            elif texto := _texto(valor):
                metadados[chave] = texto
        pai = layout.pai(codigo, linha) if codigo else None
        if pai:
            metadados["codigo_pai"] = pai
        linhas.append(
            {
                "codigo": codigo,
                "nome": _texto(linha[col_nome.upper()]),
                "codigo_pai": pai or None,
                "metadados": metadados,
            }
        )
    tabela = pandas.DataFrame(linhas, columns=["codigo", "nome", "codigo_pai", "metadados"])
    tabela["arquivo"] = path.name
    geometria = numpy.asarray(gdf.geometry.to_numpy(), dtype=object)
    return geopandas.GeoDataFrame(tabela, geometry=geometria, crs=4326), fonte


def _para_4326(gdf: geopandas.GeoDataFrame, path: Path) -> tuple[geopandas.GeoDataFrame, Source]:
    """SIRGAS 2000 is taken as WGS 84 (spec 8.5: under a metre apart); others transformed."""
    crs = gdf.crs
    if crs is None:
        # IBGE meshes are SIRGAS 2000; a file without CRS is taken as lon/lat.
        return gdf, Source(path.name, "none (taken as EPSG:4674)", False)
    epsg = crs.to_epsg(min_confidence=70)
    nome = f"EPSG:{epsg}" if epsg else crs.name
    if epsg in _SIRGAS_OU_WGS84:
        return gdf, Source(path.name, nome, False)
    return gdf.to_crs(4326), Source(path.name, nome, True)


def ler_camada(camada: str, paths: list[Path]) -> tuple[geopandas.GeoDataFrame, list[Source]]:
    """All files of a layer concatenated (per-UF bairros files make one layer)."""
    partes = [ler_arquivo(camada, p) for p in paths]
    fontes = [f for _, f in partes]
    if len(partes) == 1:
        return partes[0][0], fontes
    junto = pandas.concat([g for g, _ in partes], ignore_index=True)
    return geopandas.GeoDataFrame(junto, geometry="geometry", crs=4326), fontes
