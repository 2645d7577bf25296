"""pip: points per second of the set-based resolver, against plain ST_Contains over the
unsubdivided mirror and an in-process shapely STRtree, on the same points.

Every figure is taken twice: wall-clock points/s (what a caller sees) and points per
CPU-second of the server process (stable on a shared machine: other load on the cores
does not move it). Batches of LOTE points, as the worker sends them.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy
import shapely

from d2 import db
from d2.bench import common, data

BATCH = 5000
CAPS = (16, 32, 64, 128, 256)
CAPS_RAPIDO = (32, 64, 128)
Pontos = tuple[list[float], list[float]]


def pontos(url: str, n: int) -> dict[str, Pontos]:
    """n random points inside Brazil and n within about 100 m of a municipal border."""
    with common.connect(url) as conn:
        conn.execute(db.q("bench_seed"), {"seed": 0.25})
        brasil = conn.execute(db.q("bench_points_in_brasil"), {"n": n, "seed": 11}).fetchall()
        borda = conn.execute(db.q("bench_border_points"), {"n": n}).fetchall()
    return {
        "brasil": ([r["lat"] for r in brasil], [r["lng"] for r in brasil]),
        "fronteira": ([r["lat"] for r in borda], [r["lng"] for r in borda]),
    }


def _sql_rate(conn: common.Conn, query: str, pts: Pontos) -> tuple[float, float | None, int]:
    """(points/s wall, points per server CPU-second, resolved) of one pass in batches."""
    lats, lngs = pts
    cpu0 = common.backend_cpu_s(conn)
    inicio = time.perf_counter()
    resolvidos = 0
    for i in range(0, len(lats), BATCH):
        row = conn.execute(
            query, {"lats": lats[i : i + BATCH], "lngs": lngs[i : i + BATCH]}
        ).fetchone()
        assert row is not None
        resolvidos += int(row["resolvidos"])
    wall = time.perf_counter() - inicio
    cpu1 = common.backend_cpu_s(conn)
    cpu = None if cpu0 is None or cpu1 is None else max(cpu1 - cpu0, 0.01)
    return len(lats) / wall, None if cpu is None else len(lats) / cpu, resolvidos


def _best(
    fn: Callable[[], tuple[float, float | None, int]], vezes: int
) -> tuple[float, float | None, int]:
    """Best of a few passes: the pass least disturbed by other load."""
    melhores = [fn() for _ in range(vezes)]
    wall = max(m[0] for m in melhores)
    cpus = [m[1] for m in melhores if m[1] is not None]
    return wall, max(cpus) if cpus else None, melhores[0][2]


class Tree:
    """The in-process baseline: shapely 2 STRtree over the mirror's unsubdivided geometry,
    every polygon prepared (GEOS prepared geometry: an indexed point-in-polygon), same
    answer rule (intersects, smallest nivel, then UC id). Its best use: one vectorized
    bbox query for the batch, then one vectorized prepared intersects on the candidates."""

    def __init__(self, url: str) -> None:
        with common.connect(url) as conn:
            linhas = conn.execute(db.q("bench_geometries")).fetchall()
        # Sorted as the resolver ranks them: the smallest matching index is the answer.
        self.geoms = shapely.from_wkb([bytes(r["wkb"]) for r in linhas])
        self.ucs = [str(r["unidade_civica_id"]) for r in linhas]
        inicio = time.perf_counter()
        self.tree = shapely.STRtree(self.geoms)
        shapely.prepare(self.geoms)
        self.construcao_s = time.perf_counter() - inicio

    def _casos(self, p: Any) -> tuple[Any, Any]:
        idx_ponto, idx_geom = self.tree.query(p)
        dentro = shapely.intersects(self.geoms[idx_geom], p[idx_ponto])
        return idx_ponto[dentro], idx_geom[dentro]

    def rate(self, pts: Pontos) -> tuple[float, int]:
        return _medir_arvore(pts, len(self.geoms), self._casos)

    def cpu(self, pts: Pontos, vezes: int) -> float:
        """Points per CPU-second of this process over vezes passes."""
        inicio = time.process_time()
        for _ in range(vezes):
            self.rate(pts)
        return vezes * len(pts[0]) / max(time.process_time() - inicio, 0.01)

    def respostas(self, pts: Pontos) -> list[str | None]:
        """The peer's answer per point: its UC, or None where no polygon holds it."""
        melhor = _melhores(pts, len(self.geoms), self._casos)
        return [self.ucs[i] if i < len(self.ucs) else None for i in melhor.tolist()]

    def rate_predicado(self, pts: Pontos) -> tuple[float, int]:
        """The plain API: tree.query(points, predicate="intersects") on unprepared copies."""
        crus = shapely.from_wkb(shapely.to_wkb(self.geoms))
        arvore = shapely.STRtree(crus)
        return _medir_arvore(pts, len(crus), lambda p: arvore.query(p, predicate="intersects"))


Casos = Callable[[Any], tuple[Any, Any]]


def _melhores(pts: Pontos, n_geoms: int, casos: Casos) -> Any:
    """Each point's smallest intersecting polygon index (n_geoms where none): casos(points)
    gives the (point, polygon) index pairs that intersect, in batches of LOTE."""
    lats = numpy.round(numpy.asarray(pts[0]), 5)
    lngs = numpy.round(numpy.asarray(pts[1]), 5)
    partes = []
    for i in range(0, len(lats), BATCH):
        p = shapely.points(lngs[i : i + BATCH], lats[i : i + BATCH])
        idx_ponto, idx_geom = casos(p)
        melhor = numpy.full(len(p), n_geoms)
        numpy.minimum.at(melhor, idx_ponto, idx_geom)
        partes.append(melhor)
    return numpy.concatenate(partes)


def _medir_arvore(pts: Pontos, n_geoms: int, casos: Casos) -> tuple[float, int]:
    """Points/s and points resolved of the answer rule over casos (see _melhores)."""
    inicio = time.perf_counter()
    melhor = _melhores(pts, n_geoms, casos)
    return len(pts[0]) / (time.perf_counter() - inicio), int((melhor < n_geoms).sum())


def cpu_sql(conn: common.Conn, query: str, pts: Pontos, vezes: int) -> float | None:
    """Points per server CPU-second over vezes passes (one pass is too short for the
    clock's ticks of 10 ms)."""
    cpu0 = common.backend_cpu_s(conn)
    for _ in range(vezes):
        _sql_rate(conn, query, pts)
    cpu1 = common.backend_cpu_s(conn)
    if cpu0 is None or cpu1 is None:
        return None
    return vezes * len(pts[0]) / max(cpu1 - cpu0, 0.01)


def respostas_sql(conn: common.Conn, pts: Pontos) -> list[str | None]:
    """The batch resolver's answer per point (its UC, or None), in batches of LOTE."""
    lats, lngs = pts
    saida: list[str | None] = [None] * len(lats)
    for i in range(0, len(lats), BATCH):
        linhas = conn.execute(
            db.q("bench_resolve_answers"),
            {"lats": lats[i : i + BATCH], "lngs": lngs[i : i + BATCH]},
        ).fetchall()
        for r in linhas:
            saida[i + int(r["ordem"]) - 1] = str(r["unidade_civica_id"])
    return saida


def concordancia(a: list[str | None], b: list[str | None]) -> float:
    """The share of points with the same answer (None = no UC) on both sides."""
    return sum(x == y for x, y in zip(a, b, strict=True)) / max(len(a), 1)


def medir(
    url: str, nome: str, pts: dict[str, Pontos], *, vezes: int, contains_n: int
) -> Iterator[dict[str, Any]]:
    """The figures of one data set (already loaded and cut at its cap). The ST_Contains
    baseline runs on the first contains_n points only (it is slow); rates compare."""
    arvore = Tree(url)
    with common.connect(url) as conn:
        for tipo, p in pts.items():
            batch = _best(functools.partial(_sql_rate, conn, db.q("bench_resolve_batch"), p), vezes)
            sub = (p[0][:contains_n], p[1][:contains_n])
            base = _best(
                functools.partial(_sql_rate, conn, db.q("bench_contains_unsubdivided"), sub), 1
            )
            arv = max((arvore.rate(p) for _ in range(vezes)), key=lambda r: r[0])
            acordo = concordancia(respostas_sql(conn, p), arvore.respostas(p))
            extra: dict[str, Any] = {
                "dataset": nome,
                "points": tipo,
                "n": len(p[0]),
                "resolved": batch[2],
                "baseline_n": len(sub[0]),
            }
            yield common.figure(
                "pip", f"resolver_territorios {nome} {tipo}", batch[0], "points/s",
                base[0], "ST_Contains over unsubdivided d2.mirror_uc (wall)", **extra,
            )  # fmt: skip
            if batch[1] is not None and base[1] is not None:
                yield common.figure(
                    "pip", f"resolver_territorios {nome} {tipo} (server CPU)", batch[1],
                    "points/cpu-s", base[1], "ST_Contains over unsubdivided (server CPU)",
                    **extra,
                )  # fmt: skip
            yield common.figure(
                "pip", f"resolver_territorios {nome} {tipo} vs STRtree", batch[0], "points/s",
                arv[0], "shapely 2 STRtree + prepared polygons, in process, vectorized",
                strtree_build_s=round(arvore.construcao_s, 2),
                strtree_resolved=arv[1], agreement=round(acordo, 6), **extra,
            )  # fmt: skip
            cpu_batch = cpu_sql(conn, db.q("bench_resolve_batch"), p, 5)
            if cpu_batch is not None:
                yield common.figure(
                    "pip", f"resolver_territorios {nome} {tipo} vs STRtree (CPU)", cpu_batch,
                    "points/cpu-s", arvore.cpu(p, 5),
                    "STRtree + prepared, points per CPU-second of the Python process",
                    agreement=round(acordo, 6), **extra,
                )  # fmt: skip
            um = _best(
                functools.partial(_sql_rate, conn, db.q("bench_resolve_one_by_one"), p), vezes
            )
            assert um[2] == batch[2], "the one-point resolver must answer the same points"
            yield common.figure(
                "pip", f"resolver_territorio one point per LATERAL row {nome} {tipo}", um[0],
                "points/s", batch[0], "resolver_territorios, the batch form, same points",
                **extra,
            )  # fmt: skip
            cru = arvore.rate_predicado(p)
            yield common.figure(
                "pip", f"resolver_territorios {nome} {tipo} vs STRtree predicate", batch[0],
                "points/s", cru[0], "shapely 2 STRtree.query(predicate='intersects'), unprepared",
                strtree_resolved=cru[1], **extra,
            )  # fmt: skip


def caps(
    url: str, pts: dict[str, Pontos], lista: tuple[int, ...], instalado: int
) -> Iterator[dict[str, Any]]:
    """Points per server CPU-second at each vertex cap (same points), against the cap the
    migrations install (instalado, read from the database), which is always tried."""
    resultados: dict[int, dict[str, Any]] = {}
    for cap in sorted({*lista, instalado}):
        stats = data.repiece(url, cap)
        with common.connect(url) as conn:
            taxas = {
                t: _best(functools.partial(_sql_rate, conn, db.q("bench_resolve_batch"), p), 3)
                for t, p in pts.items()
            }
        resultados[cap] = {"stats": stats, "taxas": taxas}
    base = resultados[instalado]
    for cap, r in resultados.items():
        for tipo, (wall, cpu, _) in r["taxas"].items():
            valor = cpu if cpu is not None else wall
            b = base["taxas"][tipo][1] if cpu is not None else base["taxas"][tipo][0]
            yield common.figure(
                "pip", f"cap {cap} {tipo}", valor, "points/cpu-s" if cpu else "points/s",
                b, f"cap {instalado} (installed)", pieces=r["stats"]["n"],
                avg_vertices=round(float(r["stats"]["media_vertices"]), 1),
                pieces_mb=round(r["stats"]["bytes"] / 2**20, 1), wall_points_s=round(wall),
            )  # fmt: skip
