"""The benchmark data sets: ../shared/data as it is, and at the official mesh's density.

Loaded straight into core.uc_polygons (then d2.mirror_aplicar builds the mirror and the
chains), with the importer's deterministic ids. The dense set densifies the mirror in
place (ST_Segmentize) and cuts it again; core.uc_polygons keeps the generalized geometry.
"""

from __future__ import annotations

import json
import math
import uuid
from pathlib import Path
from typing import Any

import pyogrio
import shapely

from d2 import db
from d2.bench import common
from d2.territorio import mirror

NAMESPACE = uuid.UUID("5b0f2d8e-3c1a-5e47-9d2b-6a8c4e1f7d30")  # = d2.importers.ibge
BATCH = 500


def uc_id(nivel: int, codigo: str) -> uuid.UUID:
    return uuid.uuid5(NAMESPACE, f"ibge:{nivel}:{codigo}")


def _camada(path: Path | str) -> list[dict[str, Any]]:
    tabela = pyogrio.read_dataframe(path)
    linhas = []
    for registro, geom in zip(
        tabela.drop(columns="geometry").to_dict("records"), tabela.geometry, strict=True
    ):
        registro["geometria"] = json.loads(shapely.to_geojson(geom))
        linhas.append(registro)
    return linhas


def _linhas(data: Path, bairros: bool) -> list[dict[str, Any]]:
    pais = uc_id(7, "BR")
    linhas: list[dict[str, Any]] = []
    for r in _camada(data / "br_pais.geojson"):
        linhas.append(dict(id=pais, nivel=7, parent=None, nome="Brasil", geometria=r["geometria"]))
    for r in _camada(data / "br_regioes.geojson"):
        linhas.append(
            dict(id=uc_id(6, r["CD_REGIAO"]), nivel=6, parent=pais, nome=r["NM_REGIAO"],
                 geometria=r["geometria"])
        )  # fmt: skip
    for r in _camada(data / "br_uf.geojson"):
        linhas.append(
            dict(id=uc_id(5, r["CD_UF"]), nivel=5, parent=uc_id(6, r["CD_REGIAO"]),
                 nome=r["NM_UF"], geometria=r["geometria"])
        )  # fmt: skip
    for r in _camada("/vsigzip/" + str(data / "br_municipios.geojson.gz")):
        linhas.append(
            dict(id=uc_id(4, r["CD_MUN"]), nivel=4, parent=uc_id(5, r["CD_UF"]),
                 nome=r["NM_MUN"], geometria=r["geometria"])
        )  # fmt: skip
    if bairros and (data / "bairros_ms_cd2022.geojson").exists():
        for r in _camada(data / "bairros_ms_cd2022.geojson"):
            linhas.append(
                dict(id=uc_id(2, r["CD_BAIRRO"]), nivel=2, parent=uc_id(4, r["CD_MUN"]),
                     nome=r["NM_BAIRRO"], geometria=r["geometria"])
            )  # fmt: skip
    return linhas


def load_shared(url: str, data: Path = common.SHARED_DATA, *, bairros: bool = True) -> int:
    """Load país, regiões, UFs, municípios (and the MS bairros) into core.uc_polygons."""
    linhas = _linhas(data, bairros)
    with common.connect(url, autocommit=False) as conn:
        for inicio in range(0, len(linhas), BATCH):
            batch = linhas[inicio : inicio + BATCH]
            conn.execute(db.q("bench_uc_insert"), {"rows": json.dumps(batch, default=str)})
        conn.commit()
        conn.autocommit = True
        mirror.aplicar(conn)  # the mirror, chains and bands, once, after the commit
        conn.execute("ANALYZE")
    return len(linhas)


def add_synthetic_bairros(url: str, total: int = 17_500) -> int:
    """The synthetic bairro layer (level 2, Voronoi cells inside municipalities)."""
    with common.connect(url) as conn:
        conn.execute(db.q("bench_seed"), {"seed": 0.42})
        cur = conn.execute(db.q("bench_synthetic_bairros"), {"total": total})
        n = cur.rowcount
        conn.execute("ANALYZE")
    return n


def vertices(url: str) -> dict[int, dict[str, float]]:
    with common.connect(url) as conn:
        return {
            int(r["nivel"]): {"n": r["n"], "perimetro": r["perimetro"], "vertices": r["vertices"]}
            for r in conn.execute(db.q("bench_total_perimeter"))
        }


def densify(url: str, alvo_vertices: int = 20_000_000) -> tuple[float, int]:
    """Densify the mirror so it holds about alvo_vertices vertices in all; returns
    (segment length in degrees, vertices after)."""
    por_nivel = vertices(url)
    perimetro = sum(v["perimetro"] for v in por_nivel.values())
    passo = perimetro / alvo_vertices
    with common.connect(url) as conn:
        conn.execute(db.q("bench_densify"), {"passo": passo})
    depois = sum(int(v["vertices"]) for v in vertices(url).values())
    return passo, depois


def cap(url: str) -> int:
    """The mirror's vertex cap per piece as the database has it (d2.mirror_state)."""
    with common.connect(url) as conn:
        row = conn.execute("SELECT max_vertices FROM d2.mirror_state").fetchone()
    assert row is not None
    return int(row["max_vertices"])


def repiece(url: str, cap: int) -> dict[str, Any]:
    """Cut the mirror again into pieces of at most cap vertices, and build the bands
    again (their lists name pieces); ANALYZE."""
    with common.connect(url) as conn:
        conn.execute("UPDATE d2.mirror_state SET max_vertices = %(cap)s", {"cap": cap})
        conn.execute(db.q("bench_split_clear"))
        conn.execute(db.q("bench_split"), {"cap": cap})
        conn.execute(db.q("bench_split_index"))
        conn.execute(db.q("bench_bands_clear"))
        conn.execute(db.q("bench_bands_pending"))
        conn.execute(db.q("bench_bands_build"))
        conn.execute("VACUUM ANALYZE d2.mirror_pieces")
        conn.execute("VACUUM ANALYZE d2.mirror_faixas")
        row = conn.execute(db.q("bench_pieces_stats")).fetchone()
    assert row is not None
    return dict(row)


def tamanho(url: str, nome: str) -> dict[str, Any]:
    """The mirror's size on disk (and so in shared buffers once read), indexes included."""
    with common.connect(url) as conn:
        row = conn.execute(db.q("bench_mirror_size")).fetchone()
    assert row is not None
    return {
        "bench": "setup",
        "figure": f"mirror size, {nome} (d2.mirror_uc, _pieces, _cadeias, _faixas, indexes)",
        "value": round(float(row["mb"]), 1),
        "unit": "MB",
    }


def faixas(url: str) -> dict[str, Any]:
    """Build the pending bands of d2.mirror_faixas (after a change that bypassed
    core.uc_polygons, like densify); returns bands built, intervals and seconds."""
    with common.connect(url) as conn:
        segundos, row = common.timed(lambda: conn.execute(db.q("bench_bands_build")).fetchone())
        conn.execute("VACUUM ANALYZE d2.mirror_faixas")
        total = conn.execute(db.q("bench_bands_count")).fetchone()
    assert row is not None and total is not None
    return {"bands": row["faixas"], "intervals": total["n"], "s": round(segundos, 1)}


def metros(graus: float) -> float:
    """A length in degrees as metres (of latitude)."""
    return graus * math.pi / 180 * 6_371_000
