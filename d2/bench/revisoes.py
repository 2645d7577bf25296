"""`d2 bench revisoes`: GPS points drawn off the coast of every coastal município of the
territory `d2 import-ibge` loads from the shared data, and inland of them, through the
resolver and the near rule (docs/design.md, decision 12).

For each coastal município, points on its sea-facing boundary are drawn at seeded
positions (the sea's edge: the país's outer rings and its holes of 1 km² or more, on the
Atlantic side; every such point has the município's polygon on one side and no polygon on
the other). From each, a point 5, 15, 30, 60, 100, 200 and 500 m out to sea (along the
boundary's normal, on the ellipsoid) and one as far inland. Out at sea a point is kept
only if no polygon holds it (a point across a channel inside another município is no
review). Each figure says, per distance: answered at the município it was drawn from,
left in review, answered at another município (the bar: none), beside the baseline of the
same run, the resolver alone (no rule: 0 answered). Inland points show the polygons'
own answer for the same places. A sweep of the rule's distance and margin over the same
points shows what each setting would answer and where. The mesh's drawing error, which
the default distance must cover beside a phone's GPS error, is d2.bench.mesh_error's.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pyproj import Geod

from d2 import config, db
from d2.bench import common, mesh_error
from d2.importers import ibge
from d2.territorio import resolver

DISTANCIAS = (5, 15, 30, 60, 100, 200, 500)
# The rules the sweep tries: (distance, margin) in metres.
VARREDURA = (
    (30, 30), (50, 50), (100, 0), (100, 100), (100, 200), (100, 300), (100, 400),
    (100, 500), (150, 450), (200, 400), (300, 300), (500, 500),
)  # fmt: skip
# Points drawn per município (full run, --quick), and the spacing of the candidates.
_POR_MUNICIPIO = (6, 2)
_ESPACO_M = (250, 1000)
_WGS84 = Geod(ellps="WGS84")


def medir(srv: common.Server, quick: bool, seed: int = 42) -> Iterator[dict[str, Any]]:
    """The figures of `d2 bench revisoes` (the territory imported as `d2 import-ibge`
    does, into a database of its own)."""
    i = 1 if quick else 0
    regra = resolver.NearRule.de(config.load())
    with common.scratch_db(srv, "revisoes") as url:
        segundos, _ = common.timed(
            lambda: ibge.run_import(url, directory=Path(common.SHARED_DATA), progress=False)
        )
        yield {"bench": "setup", "figure": "d2 import-ibge of the shared data", "unit": "s",
               "value": round(segundos, 1)}  # fmt: skip
        with common.connect(url) as conn:
            bases = escolher(sortear(conn, _ESPACO_M[i]), _POR_MUNICIPIO[i], seed)
            pontos = deslocar(bases)
            no_mar = resolver.resolver_muitos(conn, [p["mar"] for p in pontos])
            # A point out at sea that a polygon holds (across a channel) is no review.
            mar = [p for p, achado in zip(pontos, no_mar, strict=True) if achado is None]
            terra = resolver.resolver_muitos(conn, [p["terra"] for p in pontos])
            municipios = len({b["uc"] for b in bases})
            yield from _figuras(conn, mar, regra, municipios)
            yield from _em_terra(pontos, terra, municipios)
            yield from _varredura(conn, mar, regra)
            yield from mesh_error.medir(conn)


def sortear(conn: db.Connection, espaco_m: float) -> list[dict[str, Any]]:
    """Candidate points on the coast (bench_revisoes_points), each kept when its
    município's polygon holds the point 1 m inland of it and no polygon the point 1 m out
    to sea: the boundary there is the sea's edge, and which side is which is known."""
    with db.mapped_errors():
        conn.execute(db.q("bench_revisoes_coast"))
        conn.execute(db.q("bench_revisoes_coast_index"))
        candidatos = conn.execute(db.q("bench_revisoes_points"), {"espaco_m": espaco_m}).fetchall()
    lados = [
        _projetar(c["lat"], c["lng"], c["az"] + sinal, 1.0)
        for c in candidatos
        for sinal in (90, -90)
    ]
    respostas = resolver.resolver_muitos(conn, lados)
    bases = []
    for n, c in enumerate(candidatos):
        mais, menos = respostas[2 * n], respostas[2 * n + 1]  # the az + 90 side, az - 90
        for terra, mar, para_o_mar in ((mais, menos, -90), (menos, mais, 90)):
            if mar is None and terra is not None and c["uc"] in terra.cadeia_ucs:
                bases.append(c | {"az_mar": c["az"] + para_o_mar})
    return bases


def escolher(bases: list[dict[str, Any]], k: int, seed: int) -> list[dict[str, Any]]:
    """k bases per município, drawn with the seed (all of them where it has fewer)."""
    por_uc: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for base in bases:
        por_uc[base["uc"]].append(base)
    sorteio = random.Random(seed)
    escolhidas: list[dict[str, Any]] = []
    for uc in sorted(por_uc):
        escolhidas += sorteio.sample(por_uc[uc], min(k, len(por_uc[uc])))
    return escolhidas


def deslocar(bases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """From each base, a point at each distance out to sea and one as far inland."""
    return [
        {
            "uc": base["uc"],
            "d": d,
            "mar": _projetar(base["lat"], base["lng"], base["az_mar"], d),
            "terra": _projetar(base["lat"], base["lng"], base["az_mar"] + 180, d),
        }
        for base in bases
        for d in DISTANCIAS
    ]


def _projetar(lat: float, lng: float, azimute: float, metros: float) -> tuple[float, float]:
    """(lat, lng) metros from (lat, lng) along azimute (degrees from north), on WGS 84."""
    x, y, _ = _WGS84.fwd(lng, lat, azimute, metros)
    return y, x


def classificar(
    pontos: list[dict[str, Any]], achados: list[resolver.Resolucao | None]
) -> dict[int, Counter[str]]:
    """Per distance: answered at the município the point was drawn from (mesmo), at
    another (outro), or not at all (revisao)."""
    por_d: dict[int, Counter[str]] = {d: Counter() for d in DISTANCIAS}
    for ponto, achado in zip(pontos, achados, strict=True):
        if achado is None:
            por_d[ponto["d"]]["revisao"] += 1
        elif ponto["uc"] in achado.cadeia_ucs:
            por_d[ponto["d"]]["mesmo"] += 1
        else:
            por_d[ponto["d"]]["outro"] += 1
    return por_d


def _figuras(
    conn: db.Connection, mar: list[dict[str, Any]], regra: resolver.NearRule, municipios: int
) -> Iterator[dict[str, Any]]:
    """Per distance out to sea: the near rule in force against the resolver alone."""
    achados = resolver.resolver_proximos(conn, [p["mar"] for p in mar], regra)
    for d, c in classificar(mar, achados).items():
        n = sum(c.values())
        yield common.figure(
            "revisoes", f"{d} m out to sea: answered at its município", c["mesmo"], "points",
            0, "d2.resolver_territorio alone (no rule)",
            pontos=n, em_revisao=c["revisao"], outro_municipio=c["outro"],
            municipios=municipios, distancia_m=regra.limite_m, margem_m=regra.margem_m,
        )  # fmt: skip


def _em_terra(
    pontos: list[dict[str, Any]], achados: list[resolver.Resolucao | None], municipios: int
) -> Iterator[dict[str, Any]]:
    """The same places moved inland: the polygons' own answer."""
    for d, c in classificar(pontos, achados).items():
        yield common.figure(
            "revisoes", f"{d} m inland: resolved at its município", c["mesmo"], "points",
            sum(c.values()), "points drawn",
            nenhum=c["revisao"], outro_municipio=c["outro"], municipios=municipios,
        )  # fmt: skip


def _varredura(
    conn: db.Connection, mar: list[dict[str, Any]], regra: resolver.NearRule
) -> Iterator[dict[str, Any]]:
    """The same points under other distances and margins: answered at their município
    within each distance, and answered at another, for each setting."""
    for limite, margem in sorted({*VARREDURA, (regra.limite_m, regra.margem_m)}):
        teste = resolver.NearRule(limite, margem)
        por_d = classificar(mar, resolver.resolver_proximos(conn, [p["mar"] for p in mar], teste))
        respondidos = {str(d): c["mesmo"] for d, c in por_d.items()}
        pontos = {str(d): sum(c.values()) for d, c in por_d.items()}
        outro = sum(c["outro"] for c in por_d.values())
        dentro = [d for d in DISTANCIAS if d <= limite]
        yield common.figure(
            "revisoes",
            f"rule at {limite:g} m, margin {margem:g} m: answered within {limite:g} m",
            sum(por_d[d]["mesmo"] for d in dentro), "points",
            sum(pontos[str(d)] for d in dentro), "points drawn within that distance",
            respondidos_por_distancia=respondidos, pontos_por_distancia=pontos,
            outro_municipio=outro,
        )  # fmt: skip
