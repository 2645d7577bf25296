"""The mesh's drawing error, which the near rule's default distance must cover beside a
phone's GPS error (part of `d2 bench revisoes`; docs/design.md, decision 12).

How far a border as loaded lies from where IBGE draws it at full resolution, in metres,
each measured in an azimuthal projection centred on the unit (under 0.1 % of scale error
within 100 km):
- Acre, IBGE 2024 at full resolution (ibge_original/AC_Municipios_2024): its boundary
  vertices against the same município as loaded, and against the same full-resolution
  mesh simplified as `d2 import-ibge` simplifies (d2.importers.ibge.simplificar_camada at
  its default tolerance): the first is the shared data's own generalisation (and 14 years
  of redrawn borders), the second what the importer adds to an official-resolution mesh.
- The MS bairros (IBGE Censo 2022, full resolution): their vertices that fall outside
  their município as loaded, and how far.
- The municipal seats (municipios_sedes.csv) outside their own município, and how far
  (those more than 5 km away are the list's errors, counted apart).
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from typing import Any

import numpy
import pyogrio
import shapely
from pyproj import Transformer

from d2 import db
from d2.bench import common
from d2.importers import ibge

# The importer's default tolerance for municípios (`d2 import-ibge --tolerance`).
TOLERANCIA = 0.001
LONGE_M = 5000.0


def medir(conn: db.Connection) -> Iterator[dict[str, Any]]:
    with db.mapped_errors():
        malha = {
            r["codigo"]: shapely.from_wkb(r["wkb"])
            for r in conn.execute(db.q("bench_revisoes_municipios"))
        }
    dados = common.SHARED_DATA
    acre = dados / "ibge_original" / "AC_Municipios_2024.shp"
    if acre.exists():
        yield from _acre(malha, acre)
    bairros = dados / "bairros_ms_cd2022.geojson"
    if bairros.exists():
        yield _bairros(malha, bairros)
    sedes = dados / "municipios_sedes.csv"
    if sedes.exists():
        yield _sedes(malha, sedes)


def _metrico(geom: Any, centro: Any) -> Any:
    """geom (lon/lat degrees) in metres, in an azimuthal equidistant projection at centro."""
    transformador = Transformer.from_crs(
        "EPSG:4326", f"+proj=aeqd +lat_0={centro.y} +lon_0={centro.x} +ellps=GRS80", always_xy=True
    )
    return shapely.transform(
        geom, lambda xy: numpy.column_stack(transformador.transform(xy[:, 0], xy[:, 1]))
    )


def _distancias_ao_contorno(cheia: Any, outra: Any) -> Any:
    """Metres from each vertex of cheia's boundary to outra's boundary."""
    centro = cheia.centroid
    pontos = shapely.points(shapely.get_coordinates(_metrico(cheia, centro).boundary))
    return shapely.distance(pontos, _metrico(outra, centro).boundary)


def _percentis(nome: str, distancias: Any, **extra: Any) -> dict[str, Any]:
    if not distancias.size:
        return common.figure("revisoes", nome, 0.0, "m (p90)", None, None, n=0, **extra)
    p50, p90, p99 = (float(numpy.percentile(distancias, p)) for p in (50, 90, 99))
    return common.figure(
        "revisoes", nome, p90, "m (p90)", None, None, higher_is_better=False,
        p50_m=round(p50, 1), p99_m=round(p99, 1), max_m=round(float(distancias.max()), 1),
        n=int(distancias.size), **extra,
    )  # fmt: skip


def _acre(malha: dict[str, Any], arquivo: Any) -> Iterator[dict[str, Any]]:
    tabela = pyogrio.read_dataframe(arquivo)
    codigos = [str(c) for c in tabela["CD_MUN"]]
    cheias = shapely.make_valid(tabela.geometry.to_crs(4326).values)
    simplificadas, _ = ibge.simplificar_camada(cheias, TOLERANCIA)
    na_malha = [
        _distancias_ao_contorno(g, malha[c]) for g, c in zip(cheias, codigos, strict=True)
        if c in malha
    ]  # fmt: skip
    yield _percentis(
        "drawing error: IBGE 2024 full-resolution borders (Acre) against the shared mesh",
        numpy.concatenate(na_malha), municipios=len(na_malha),
    )  # fmt: skip
    yield _percentis(
        f"drawing error: the same full-resolution borders simplified as d2 import-ibge does "
        f"({TOLERANCIA:g}°)",
        numpy.concatenate(
            [_distancias_ao_contorno(g, s) for g, s in zip(cheias, simplificadas, strict=True)]
        ),
        municipios=len(codigos),
    )  # fmt: skip


def _bairros(malha: dict[str, Any], arquivo: Any) -> dict[str, Any]:
    """Full-resolution bairro vertices outside their município as loaded: how far."""
    tabela = pyogrio.read_dataframe(arquivo)
    fora: list[Any] = []
    total = 0
    for geom, codigo in zip(tabela.geometry.to_crs(4326).values, tabela["CD_MUN"], strict=True):
        municipio = malha.get(str(codigo))
        if municipio is None:
            continue
        centro = geom.centroid
        vertices = shapely.points(shapely.get_coordinates(_metrico(geom, centro)))
        total += len(vertices)
        distancias = shapely.distance(vertices, _metrico(municipio, centro))
        fora.append(distancias[distancias > 0])
    distancias = numpy.concatenate(fora)
    return _percentis(
        "drawing error: MS bairros (Censo 2022, full resolution) outside their município",
        distancias, vertices=total, vertices_fora=int(distancias.size),
    )  # fmt: skip


def _sedes(malha: dict[str, Any], arquivo: Any) -> dict[str, Any]:
    """Municipal seats outside their own município as loaded: how far."""
    distancias = []
    with open(arquivo, encoding="utf-8", newline="") as f:
        sedes = list(csv.DictReader(f))
    for sede in sedes:
        municipio = malha.get(sede["codigo_ibge"])
        if municipio is None:
            continue
        ponto = shapely.Point(float(sede["lng"]), float(sede["lat"]))
        if not municipio.covers(ponto):
            distancias.append(_metrico(municipio, ponto).distance(shapely.Point(0, 0)))
    # Farther than 5 km is no drawing error: the list's coordinates of a homonym or of
    # another place (a seat 746 km from its município).
    perto = numpy.array([d for d in distancias if d <= LONGE_M])
    return _percentis(
        "drawing error: municipal seats outside their own município (within 5 km)",
        perto, sedes=len(sedes), fora=len(distancias), mais_longe=len(distancias) - perto.size,
    )  # fmt: skip
