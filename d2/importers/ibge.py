"""The IBGE importer: files → repaired, coverage-simplified polygons → core.uc_polygons.

One run is one transaction: every layer is prepared in Python (read, repair, simplify,
round), streamed with COPY into a staging table, and SQL decides what is new, changed
or unchanged (sql/queries/importer.sql). A failed run leaves the table as it was; a
second run of the same files writes nothing.
"""

from __future__ import annotations

import contextlib
import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import geopandas
import numpy
import shapely
import tqdm

from d2 import config, db, errors, locks
from d2.importers import ibge_read
from d2.importers.ibge_summary import Count, LayerSummary, Occurrence, Summary
from d2.territorio import mirror, replica

FONTE = "ibge"  # also Summary.fonte's default
NOME_MAX = 255  # core.uc_polygons.nome is varchar(255)

NAMESPACE = uuid.UUID("5b0f2d8e-3c1a-5e47-9d2b-6a8c4e1f7d30")
"""Fixed forever: changing it would give every IBGE UC a new id on the next import."""

TOLERANCIA_PADRAO = {"pais": 0.001, "regioes": 0.001, "ufs": 0.001, "municipios": 0.001}
TOLERANCIA_BAIRROS = 0.0001  # spec 8.5: about 11 m, bairros are small
AREA_MINIMA_M2 = 100.0  # spec 8.5
CASAS_DECIMAIS = 7  # about 1 cm; also what makes two runs write identical JSONB

# Albers equal-area for Brazil (the projection ../shared/data used for AREA_KM2).
_ALBERS = "+proj=aea +lat_0=-12 +lon_0=-54 +lat_1=-2 +lat_2=-22 +ellps=GRS80 +units=m"
# A polygon of at least this many square degrees has well over 100 m² anywhere below
# 60° of latitude, so only smaller ones need the projection.
_GRAUS2_SEGURO = 1e-6
_NIVEL_PAI = {2: 4, 4: 5, 5: 6, 6: 7}


def uc_id(nivel: int, codigo: str, fonte: str = FONTE) -> uuid.UUID:
    """The deterministic UC id: uuid5 over (fonte, nivel, official code).

    The same value is written to id and unidade_civica_id: IBGE gives one polygon per
    UC, so the polygon row and its UC share an identity, and L-2 or another
    installation computes either from the official code alone.
    """
    return uuid.uuid5(NAMESPACE, f"{fonte}:{nivel}:{codigo}")


# --- geometry ------------------------------------------------------------------------------


def _poligonal(geom: shapely.Geometry) -> shapely.Geometry:
    """Only the polygonal parts (make_valid may add lines and points along the way)."""
    if isinstance(geom, shapely.Polygon | shapely.MultiPolygon):
        return geom
    partes = [p for p in shapely.get_parts(geom) if isinstance(p, shapely.Polygon)]
    partes = [q for p in partes for q in shapely.get_parts(p) if not q.is_empty]
    if not partes:
        return shapely.Polygon()
    return partes[0] if len(partes) == 1 else shapely.MultiPolygon(partes)


def reparar(geoms: numpy.ndarray) -> tuple[numpy.ndarray, dict[int, str]]:
    """make_valid on the invalid ones, keeping polygonal parts; {position: reason}."""
    invalidas = numpy.flatnonzero(~shapely.is_valid(geoms))
    motivos: dict[int, str] = {}
    saida = geoms.copy()
    for pos in invalidas.tolist():
        motivos[pos] = str(shapely.is_valid_reason(geoms[pos]))
        saida[pos] = _poligonal(shapely.make_valid(geoms[pos]))
    return saida, motivos


def simplificar_camada(geoms: numpy.ndarray, tolerancia: float) -> tuple[numpy.ndarray, str]:
    """Simplify a whole layer as one coverage, so neighbours keep sharing their border.

    Coverage simplification assumes neighbours share identical edges. Real files have
    sub-metre slivers where they do not, and there it would open new overlaps, so such a
    layer is cleaned first (GEOS CoverageCleaner: slivers merged, edges snapped); the
    cleaning is kept only if no polygon lost more than 0.1 % of its area. Falls back to
    per-polygon topology-preserving simplification only when GEOS refuses the coverage.
    The returned text says what ran.
    """
    if tolerancia <= 0 or len(geoms) == 0:
        return geoms, "none"
    modo = f"coverage, {tolerancia:g}°"
    try:
        arestas = shapely.coverage_invalid_edges(geoms)
        sem_par = int((~shapely.is_empty(arestas)).sum())
        if sem_par:
            limpas = shapely.coverage_clean(geoms)
            perda = 1 - shapely.area(limpas) / numpy.maximum(shapely.area(geoms), 1e-300)
            if perda.max() <= 0.001 and not shapely.is_empty(limpas).any():
                geoms = limpas
                modo += f", after cleaning the edges of {sem_par} polygons that did not match"
            else:
                modo += f" ({sem_par} polygons with unmatched edges; cleaning refused)"
        return shapely.coverage_simplify(geoms, tolerancia), modo
    except shapely.errors.GEOSException as exc:
        motivo = str(exc).splitlines()[0]
        simples = shapely.simplify(geoms, tolerancia, preserve_topology=True)
        return simples, f"per polygon, {tolerancia:g}° (coverage simplification failed: {motivo})"


def _arredondar(geoms: numpy.ndarray) -> numpy.ndarray:
    return shapely.transform(geoms, lambda xy: numpy.round(xy, CASAS_DECIMAIS))


def areas_m2(geoms: numpy.ndarray) -> numpy.ndarray:
    """Area in m² (equal-area projection) where it matters; a lower bound elsewhere."""
    areas = shapely.area(geoms) * 1e10  # far below the true m² area of a big polygon
    pequenas = numpy.flatnonzero(shapely.area(geoms) < _GRAUS2_SEGURO)
    if len(pequenas):
        projetadas = geopandas.GeoSeries(geoms[pequenas], crs=4326).to_crs(_ALBERS)
        areas[pequenas] = projetadas.area.to_numpy()
    return areas


def preparar(
    gdf: geopandas.GeoDataFrame, tolerancia: float, resumo: LayerSummary
) -> geopandas.GeoDataFrame:
    """Repair, simplify as a coverage, round; drop only what is empty or too small."""
    n = len(gdf)
    codigos = gdf["codigo"].tolist()
    nomes = gdf["nome"].tolist()
    descartar: dict[int, str] = {}

    geoms = numpy.array(gdf.geometry.to_numpy(), dtype=object)
    nulas = shapely.is_missing(geoms) | shapely.is_empty(geoms)
    geoms[nulas] = shapely.Polygon()
    for pos in numpy.flatnonzero(nulas).tolist():
        descartar[pos] = "empty geometry in the file"
    tipos = shapely.get_type_id(geoms)
    for pos in numpy.flatnonzero(~numpy.isin(tipos, (3, 6)) & ~nulas).tolist():
        descartar.setdefault(pos, f"not polygonal ({geoms[pos].geom_type})")
    vistos: set[str] = set()
    for i, codigo in enumerate(codigos):
        if not codigo:
            descartar.setdefault(i, "no official code")
        elif codigo in vistos:
            descartar.setdefault(i, "official code repeated in the layer")
        vistos.add(codigo)

    geoms, motivos = reparar(geoms)
    manter = numpy.array([i not in descartar for i in range(n)], dtype=bool)
    simplificadas, resumo.simplificacao = simplificar_camada(geoms[manter], tolerancia)
    geoms[manter] = simplificadas
    geoms = _arredondar(geoms)
    # Simplifying or rounding a valid polygon can still make it invalid (a spike that
    # folds over); repair those too rather than store an invalid ring.
    geoms, depois = reparar(geoms)
    for i, motivo in depois.items():
        if i not in descartar:
            motivos.setdefault(i, f"after simplification: {motivo}")

    areas = areas_m2(geoms)
    for i in range(n):
        if i in descartar:
            continue
        if shapely.is_empty(geoms[i]):
            descartar[i] = "empty after repair"
        elif areas[i] < AREA_MINIMA_M2:
            descartar[i] = f"area {areas[i]:.1f} m² below the minimum of {AREA_MINIMA_M2:g} m²"

    resumo.repaired = [Occurrence(codigos[i], nomes[i], m) for i, m in sorted(motivos.items())]
    resumo.dropped = [Occurrence(codigos[i], nomes[i], m) for i, m in sorted(descartar.items())]
    resultado = gdf.copy()
    resultado["geometry"] = geoms
    return resultado.iloc[[i for i in range(n) if i not in descartar]]


# --- database ------------------------------------------------------------------------------


_CHAVE_DO_NIVEL = {layout.nivel: layout.chave for layout in ibge_read.LAYOUTS.values()}


def _linhas_copy(nivel: int, gdf: geopandas.GeoDataFrame) -> Iterator[tuple[Any, ...]]:
    textos = shapely.to_geojson(gdf.geometry.to_numpy())
    nivel_pai = _NIVEL_PAI.get(nivel)
    for (codigo, pai, nome, metadados, arquivo), texto in zip(
        gdf[["codigo", "codigo_pai", "nome", "metadados", "arquivo"]].itertuples(index=False),
        textos,
        strict=True,
    ):
        tem_pai = bool(pai) and nivel_pai is not None
        yield (
            uc_id(nivel, codigo),
            nivel,
            codigo,
            _CHAVE_DO_NIVEL[nivel],
            uc_id(nivel_pai, pai) if tem_pai and nivel_pai else None,
            nivel_pai if tem_pai else None,
            pai if tem_pai else None,
            _CHAVE_DO_NIVEL[nivel_pai] if tem_pai and nivel_pai else None,
            # The column is varchar(255): one longer name would abort the whole import.
            nome[:NOME_MAX] if isinstance(nome, str) else nome,
            texto,
            FONTE,
            json.dumps(metadados, ensure_ascii=False, sort_keys=True),
            arquivo,
        )


def _escrever(
    conn: db.Connection,
    preparadas: dict[str, geopandas.GeoDataFrame],
    summary: Summary,
    progress: bool,
) -> None:
    with db.mapped_errors(), conn.transaction():
        conn.execute(db.q("importer_staging_create"))
        total = sum(len(g) for g in preparadas.values())
        with (
            conn.cursor() as cursor,
            cursor.copy(db.q("importer_staging_copy")) as copy,
            tqdm.tqdm(total=total, desc="COPY", unit="UC", disable=not progress) as barra,
        ):
            for camada, gdf in preparadas.items():
                for linha in _linhas_copy(ibge_read.LAYOUTS[camada].nivel, gdf):
                    copy.write_row(linha)
                    barra.update()
        for nome in (
            "importer_match_id",
            "importer_match_codigo",
            "importer_match_pais",
            "importer_match_new",
        ):
            conn.execute(db.q(nome))
        conn.execute(db.q("importer_parents"))
        por_nivel = {c.nivel: c for c in summary.camadas.values()}
        for row in conn.execute(db.q("importer_orphans")).fetchall():
            resumo = por_nivel[row["nivel"]]
            resumo.orphan_codes.append(row["codigo"])
            resumo.por_arquivo[row["arquivo"]].orphans += 1
        conn.execute(db.q_com("staging_classify", staging="importer_staging"))
        mudou = False
        for row in conn.execute(db.q("importer_counts")).fetchall():
            contagem = por_nivel[row["nivel"]].por_arquivo[row["arquivo"]]
            campo = {"novo": "inserted", "alterado": "updated", "igual": "unchanged"}
            setattr(contagem, campo[row["estado"]], row["quantidade"])
            mudou = mudou or row["estado"] != "igual"
        if mudou:
            # Skipped when nothing changed: even a zero-row statement records a change
            # for the mirror, which would move its version and empty every worker's cache.
            conn.execute(db.q_com("staging_upsert", staging="importer_staging"))
            # Replicas follow core.uc_polygons by events (spec Phase 2): the changes
            # commit with their uc.poligono_* events.
            summary.eventos = replica.publicar_estado(conn)


# --- the run -------------------------------------------------------------------------------


def _arquivos(directory: Path | None, files: dict[str, Path] | None) -> dict[str, list[Path]]:
    escolhidos = ibge_read.descobrir(directory) if directory is not None else {}
    for camada, path in (files or {}).items():
        if camada not in ibge_read.LAYOUTS:
            validas = ", ".join(ibge_read.CAMADAS)
            raise errors.ImportFailed(f"unknown layer {camada!r} (layers: {validas})")
        if not Path(path).exists():
            raise errors.ImportFailed(f"file not found for {camada}: {path}")
        escolhidos[camada] = [Path(path)]
    if not escolhidos:
        onde = f"in {directory}" if directory is not None else "(no directory, no files)"
        raise errors.ImportFailed(
            f"no IBGE files found {onde}: expected names like BR_Municipios_2025.shp, "
            "BR_UF_2025, BR_Regioes_2025, BR_Pais_2025, BR_bairros_CD2022"
        )
    return {c: escolhidos[c] for c in ibge_read.CAMADAS if c in escolhidos}


def _tolerancia(camada: str, tolerancia: float | None) -> float:
    if tolerancia is not None:
        return tolerancia
    return TOLERANCIA_BAIRROS if camada == "bairros" else TOLERANCIA_PADRAO[camada]


def run_import(
    url: str,
    *,
    directory: Path | None = None,
    files: dict[str, Path] | None = None,
    tolerancia: float | None = None,
    progress: bool = True,
) -> Summary:
    """Import the IBGE layers found in `directory` and/or given in `files` (explicit
    files win for their layer) into core.uc_polygons, in one transaction.

    `tolerancia` in degrees applies to every layer; None means the spec's defaults
    (0.001° for levels 4 to 7, 0.0001° for bairros); 0 keeps geometry as it is.
    Raises ImportFailed (missing file, unknown layout, unreadable encoding) before
    touching the database.
    """
    inicio = time.monotonic()
    if tolerancia is not None and tolerancia < 0:
        raise errors.ImportFailed(f"tolerance must be 0 or more, got {tolerancia}")
    arquivos = _arquivos(directory, files)
    summary = Summary()
    preparadas: dict[str, geopandas.GeoDataFrame] = {}
    etapas = tqdm.tqdm(arquivos.items(), desc="IBGE layers", unit="layer", disable=not progress)
    for camada, paths in etapas:
        etapas.set_postfix_str(camada)
        resumo = LayerSummary(camada, ibge_read.LAYOUTS[camada].nivel)
        gdf, resumo.fontes = ibge_read.ler_camada(camada, paths)
        preparadas[camada] = preparar(gdf, _tolerancia(camada, tolerancia), resumo)
        _contar_leitura(resumo, gdf)
        summary.camadas[camada] = resumo

    espera = config.load().lock_timeout_s
    with contextlib.closing(db.connect(url, autocommit=True)) as conn:
        # One transaction (conn.transaction() in _escrever); a lock another writer of
        # core.uc_polygons holds is waited for D2_LOCK_TIMEOUT at most.
        with locks.limites(conn, lock_s=espera):
            try:
                _escrever(conn, preparadas, summary, progress)
            except errors.LockTimeout as exc:
                raise locks.locks_held(
                    conn, TABELAS_ESCRITAS, espera, "nothing was imported"
                ) from exc
        # The import's changes reach the mirror before it returns (a running worker would
        # apply them within a poll anyway): the next command resolves against them.
        summary.mirror = aplicar_ao_mirror(conn, espera)
    for resumo in summary.camadas.values():
        for nome in ("inserted", "updated", "unchanged", "orphans"):
            valor = sum(getattr(c, nome) for c in resumo.por_arquivo.values())
            setattr(resumo.total, nome, valor)
    summary.segundos = time.monotonic() - inicio
    return summary


# Where an import may wait for another writer (rows it updates), to name who holds them.
TABELAS_ESCRITAS = ["core.uc_polygons"]


def aplicar_ao_mirror(conn: db.Connection, espera_s: float) -> mirror.Applied | None:
    """After an importer's commit: its changes into the mirror, waiting at most espera_s
    for an applier at work; past it, one line saying the import is in and who holds the
    mirror's lock."""
    try:
        return mirror.aplicar(conn, lock_s=espera_s)
    except errors.LockTimeout as exc:
        raise errors.LockTimeout(
            f"the import is committed, but not yet in the mirror: {exc}; the worker "
            "applies it at its next poll, or run `d2 mirror sync --wait`",
            sessoes=exc.sessoes,
        ) from exc


def _contar_leitura(resumo: LayerSummary, gdf: geopandas.GeoDataFrame) -> None:
    por_codigo = dict(zip(gdf["codigo"], gdf["arquivo"], strict=True))
    for arquivo in gdf["arquivo"]:
        resumo.por_arquivo.setdefault(arquivo, Count()).read += 1
    for nome, lista in (("repaired", resumo.repaired), ("dropped", resumo.dropped)):
        for o in lista:
            contagem = resumo.por_arquivo[por_codigo.get(o.codigo, gdf["arquivo"].iloc[0])]
            setattr(contagem, nome, getattr(contagem, nome) + 1)
    resumo.total.read = len(gdf)
    resumo.total.repaired = len(resumo.repaired)
    resumo.total.dropped = len(resumo.dropped)
