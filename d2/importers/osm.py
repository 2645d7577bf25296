"""OSM bairros (spec 8.5, layer 3): admin_level=10 boundaries where IBGE has none.

Reads GeoJSON as Overpass (osmtogeojson) or `osmium export` write it; keeps the
admin_level=10 polygons; repairs, simplifies (as a coverage) and rounds them like the
IBGE bairros; then SQL, in one transaction, finds each one's município (the level-4
polygon covering a point inside it), skips those outside every município and those in a
município that has IBGE bairros, and upserts the rest as level 2 with fonte 'osm'.
Ids are uuid5 over ("osm", 2, OSM id): a rerun of the same file writes nothing.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import json
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy
import shapely
import shapely.geometry

from d2 import config, db, errors, locks
from d2.importers import ibge
from d2.terminal import visivel
from d2.territorio import mirror, replica

FONTE = "osm"
NIVEL = 2
CASAS_DECIMAIS = 7
_TIPOS = {"r": "relation", "w": "way", "n": "node", "a": "area"}


def uc_id(osm_id: str) -> uuid.UUID:
    """The deterministic UC id of an OSM bairro: uuid5 over ("osm", 2, "relation/123")."""
    return ibge.uc_id(NIVEL, osm_id, fonte=FONTE)


@dataclass(frozen=True)
class Occurrence:
    osm_id: str
    nome: str
    motivo: str


@dataclass
class Summary:
    """What one run did: read = inserted + updated + unchanged + skipped (by reason)."""

    arquivo: str
    read: int = 0
    inserted: int = 0
    updated: int = 0
    unchanged: int = 0
    repaired: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    exemplos: list[Occurrence] = field(default_factory=list)
    simplificacao: str = ""
    segundos: float = 0.0
    mirror: mirror.Applied | None = None
    eventos: dict[str, int] = field(default_factory=dict)
    """uc.poligono_* events published with the changes (replica.publicar_estado)."""

    def as_json(self) -> dict[str, Any]:
        return {
            "fonte": FONTE,
            "arquivo": self.arquivo,
            "segundos": round(self.segundos, 2),
            "read": self.read,
            "inserted": self.inserted,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "repaired": self.repaired,
            "skipped": sum(self.skipped.values()),
            "skipped_by_reason": dict(sorted(self.skipped.items())),
            "skipped_examples": [vars(o) for o in self.exemplos],
            "simplificacao": self.simplificacao,
            "espelho": self.mirror.as_json() if self.mirror else None,
            "eventos": self.eventos,
        }

    def format_text(self) -> str:
        linhas = [f"OSM import of {self.arquivo} in {self.segundos:.1f} s (level 2, fonte osm)"]
        cabecalho = ("read", "inserted", "updated", "unchanged", "repaired", "skipped")
        linhas.append("{:>8}{:>10}{:>9}{:>11}{:>10}{:>9}".format(*cabecalho))
        linhas.append(
            f"{self.read:>8}{self.inserted:>10}{self.updated:>9}{self.unchanged:>11}"
            f"{self.repaired:>10}{sum(self.skipped.values()):>9}"
        )
        for motivo, quantidade in sorted(self.skipped.items()):
            linhas.append(f"  skipped {quantidade:>6}  {motivo}")
        for o in self.exemplos:
            linhas.append(f"    {visivel(f'{o.osm_id} {o.nome}: {o.motivo}')}")
        if self.simplificacao:
            linhas.append(f"simplification: {self.simplificacao}")
        if self.mirror is not None:
            e = self.mirror
            linhas.append(
                f"mirror: {e.changes} changes applied in {e.segundos:.1f} s, version {e.versao}"
            )
        return "\n".join(linhas)


# --- reading ---------------------------------------------------------------------------------


def _carregar(arquivo: Path, max_bytes: int) -> list[dict[str, Any]]:
    if not arquivo.exists():
        raise errors.ImportFailed(f"file not found: {arquivo}")
    abrir: Any = open
    if arquivo.name.endswith(".gz"):
        abrir = gzip.open
    elif arquivo.name.endswith(".bz2"):
        abrir = bz2.open
    try:
        # At most max_bytes + 1 decompressed bytes are ever held: a small .gz can expand
        # to gigabytes (a compression bomb), and json would need several times that.
        with abrir(arquivo, "rb") as fh:
            bruto = fh.read(max_bytes + 1)
        if len(bruto) > max_bytes:
            raise errors.ImportFailed(
                f"{arquivo}: larger than {max_bytes} bytes once decompressed "
                "(D2_OSM_MAX_BYTES; raise it for a file you trust)"
            )
        dados = json.loads(bruto)
    except (OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise errors.ImportFailed(f"{arquivo}: not readable GeoJSON: {exc}") from exc
    if not isinstance(dados, dict) or dados.get("type") != "FeatureCollection":
        raise errors.ImportFailed(f"{arquivo}: expected a GeoJSON FeatureCollection")
    features = dados.get("features")
    if not isinstance(features, list):
        raise errors.ImportFailed(f"{arquivo}: FeatureCollection without a features list")
    return [f for f in features if isinstance(f, dict)]


def _propriedades(feature: dict[str, Any]) -> dict[str, Any]:
    props = feature.get("properties")
    props = dict(props) if isinstance(props, dict) else {}
    tags = props.pop("tags", None)  # older osmtogeojson nests the tags
    if isinstance(tags, dict):
        props = tags | props
    return props


def osm_id(feature: dict[str, Any], props: dict[str, Any]) -> str | None:
    """The OSM id as "relation/123", from whichever form the exporter used: the feature
    id or @id/id/osm_id, written "relation/123", "r123", or a number with @type/type/
    osm_type beside it. None when there is none."""
    for bruto in (props.get("@id"), feature.get("id"), props.get("id"), props.get("osm_id")):
        if bruto is None or isinstance(bruto, bool) or str(bruto).strip() == "":
            continue
        texto = str(bruto).strip()
        if "/" in texto:
            tipo, _, numero = texto.partition("/")
            return f"{tipo.lower()}/{numero}"
        if texto[:1].lower() in _TIPOS and texto[1:].lstrip("-").isdigit():
            return f"{_TIPOS[texto[:1].lower()]}/{texto[1:]}"
        declarado = props.get("@type") or props.get("type") or props.get("osm_type")
        if isinstance(declarado, str) and declarado.lower() in _TIPOS.values():
            return f"{declarado.lower()}/{texto}"
        return texto
    return None


def _ler(
    features: list[dict[str, Any]], summary: Summary
) -> list[tuple[str, str, Any, dict[str, Any]]]:
    """(osm_id, nome, shapely geometry, metadados) of the usable admin_level=10 features."""
    vistos: set[str] = set()
    linhas = []
    for feature in features:
        props = _propriedades(feature)
        nivel = str(props.get("admin_level", "")).strip()
        if nivel != "10":
            summary.skipped[f"admin_level {nivel or 'missing'} (not 10)"] += 1
            continue
        ident = osm_id(feature, props)
        nome = str(props.get("name") or "").strip()
        if ident is None:
            _pular(summary, "?", nome, "no OSM id (@id, id or osm_id)")
            continue
        if not nome:
            _pular(summary, ident, "", "no name")
            continue
        if ident in vistos:
            _pular(summary, ident, nome, "OSM id repeated in the file")
            continue
        try:
            geom = shapely.geometry.shape(feature.get("geometry") or {})
        except (AttributeError, KeyError, TypeError, ValueError, shapely.errors.GEOSException):
            _pular(summary, ident, nome, "unreadable geometry")
            continue
        if geom.is_empty or not isinstance(geom, shapely.Polygon | shapely.MultiPolygon):
            _pular(summary, ident, nome, f"not polygonal ({geom.geom_type})")
            continue
        vistos.add(ident)
        metadados = {"osm_id": ident, "admin_level": 10}
        if props.get("wikidata"):
            metadados["wikidata"] = str(props["wikidata"])
        linhas.append((ident, nome[:255], geom, metadados))
    return linhas


def _pular(summary: Summary, ident: str, nome: str, motivo: str) -> None:
    summary.skipped[motivo] += 1
    if len(summary.exemplos) < 20:
        summary.exemplos.append(Occurrence(ident, nome, motivo))


def _preparar(
    linhas: list[tuple[str, str, Any, dict[str, Any]]], summary: Summary
) -> list[tuple[str, str, Any, dict[str, Any]]]:
    """Repair, simplify as one coverage, round; drop what ends empty or too small."""
    if not linhas:
        return []
    geoms = numpy.array([g for _, _, g, _ in linhas], dtype=object)
    geoms, motivos = ibge.reparar(geoms)
    if bool(shapely.coverage_is_valid(geoms)):
        geoms, summary.simplificacao = ibge.simplificar_camada(geoms, ibge.TOLERANCIA_BAIRROS)
    else:
        # OSM bairros may overlap; coverage simplification is undefined for those.
        geoms = shapely.simplify(geoms, ibge.TOLERANCIA_BAIRROS, preserve_topology=True)
        summary.simplificacao = (
            f"per polygon, {ibge.TOLERANCIA_BAIRROS:g}° (the bairros overlap: not a coverage)"
        )
    geoms = shapely.transform(geoms, lambda xy: numpy.round(xy, CASAS_DECIMAIS))
    geoms, depois = ibge.reparar(geoms)
    summary.repaired = len(set(motivos) | set(depois))
    areas = ibge.areas_m2(geoms)
    prontas = []
    for i, (ident, nome, _, metadados) in enumerate(linhas):
        if shapely.is_empty(geoms[i]):
            _pular(summary, ident, nome, "empty after repair")
        elif areas[i] < ibge.AREA_MINIMA_M2:
            _pular(summary, ident, nome, f"smaller than {ibge.AREA_MINIMA_M2:g} m²")
        else:
            prontas.append((ident, nome, geoms[i], metadados))
    return prontas


# --- writing ---------------------------------------------------------------------------------


def _escrever(
    conn: db.Connection, prontas: list[tuple[str, str, Any, dict[str, Any]]], summary: Summary
) -> None:
    textos = shapely.to_geojson(numpy.array([g for _, _, g, _ in prontas], dtype=object))
    with db.mapped_errors(), conn.transaction():
        conn.execute(db.q("osm_staging_create"))
        with conn.cursor() as cursor, cursor.copy(db.q("osm_staging_copy")) as copy:
            for (ident, nome, _, metadados), texto in zip(prontas, textos, strict=True):
                copy.write_row(
                    (uc_id(ident), ident, nome, texto, json.dumps(metadados, sort_keys=True))
                )
        conn.execute(db.q("osm_parent"))
        conn.execute(db.q("osm_skip"))
        conn.execute(db.q("osm_match"))
        conn.execute(db.q("osm_match_uc"))
        conn.execute(db.q_com("staging_classify", staging="osm_staging"))
        mudou = False
        for row in conn.execute(db.q("osm_counts")).fetchall():
            n = int(row["quantidade"])
            if row["estado"] == "ignorado":
                summary.skipped[row["motivo"]] += n
                continue
            campo = {"novo": "inserted", "alterado": "updated", "igual": "unchanged"}
            setattr(summary, campo[row["estado"]], n)
            mudou = mudou or row["estado"] != "igual"
        restantes = max(0, 20 - len(summary.exemplos))
        for row in conn.execute(db.q("osm_ignored"), {"limite": restantes}).fetchall():
            summary.exemplos.append(Occurrence(row["osm_id"], row["nome"], row["motivo"]))
        if mudou:
            # Skipped when nothing changed: any write on core.uc_polygons records a change
            # that moves the mirror version and empties every worker's cache.
            conn.execute(db.q_com("staging_upsert", staging="osm_staging"))
            # Replicas follow core.uc_polygons by events (spec Phase 2).
            summary.eventos = replica.publicar_estado(conn)


def importar_osm(url: str, arquivo: Path, *, max_bytes: int | None = None) -> Summary:
    """Import the admin_level=10 boundaries of `arquivo` (GeoJSON, optionally .gz or .bz2)
    as OSM bairros, in one transaction. Raises ImportFailed for a missing or unreadable
    file, or one larger than max_bytes decompressed (default D2_OSM_MAX_BYTES), before
    touching the database."""
    inicio = time.monotonic()
    summary = Summary(arquivo=Path(arquivo).name)
    limite = config.load().osm_max_bytes if max_bytes is None else max_bytes
    features = _carregar(Path(arquivo), limite)
    summary.read = len(features)
    prontas = _preparar(_ler(features, summary), summary)
    if prontas:
        espera = config.load().lock_timeout_s
        with contextlib.closing(db.connect(url, autocommit=True)) as conn:
            # The parents come from the mirror: first every change committed so far
            # (an IBGE import just before, say), then this import's own.
            try:
                mirror.aplicar(conn, lock_s=espera)
            except errors.LockTimeout as exc:
                raise errors.LockTimeout(
                    f"nothing was imported: the parents come from the mirror, and {exc}",
                    sessoes=exc.sessoes,
                ) from exc
            with locks.limites(conn, lock_s=espera):
                try:
                    _escrever(conn, prontas, summary)
                except errors.LockTimeout as exc:
                    raise locks.locks_held(
                        conn, ibge.TABELAS_ESCRITAS, espera, "nothing was imported"
                    ) from exc
            summary.mirror = ibge.aplicar_ao_mirror(conn, espera)
    summary.segundos = time.monotonic() - inicio
    return summary
