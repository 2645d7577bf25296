"""regeo: how fast answers follow the territory (spec 8.3).

Over N stored resolutions (random points in Brazil, resolved on the shared data):
- the full pass (`d2 regeorreferenciar`: d2.regeo_comparar, one batch resolver call per
  page), against the page as it was before (d2.resolver_territorio once per row through
  LATERAL) on the first pages of the same rows;
- the follow-up after one município's polygon changes (the one holding the most points):
  rows examined against the rows inside the changed area, and the time from the mirror
  being up to date to the follow-up's end (the mirror's own update is reported beside it).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

from d2 import config, db
from d2.bench import common
from d2.ops import regeo
from d2.territorio import mirror, resolver

BATCH_GUARDAR = 50_000
BATCH_PAGINA = 5_000


def guardar(url: str, n: int) -> int:
    """n resolutions of random points in Brazil; returns how many were stored (resolved)."""
    with common.connect(url) as conn:
        pts = conn.execute(db.q("bench_points_in_brasil"), {"n": n, "seed": 7}).fetchall()
        lats = [float(p["lat"]) for p in pts]
        lngs = [float(p["lng"]) for p in pts]
        for i in range(0, len(lats), BATCH_GUARDAR):
            conn.execute(
                db.q("bench_regeo_store"),
                {"lats": lats[i : i + BATCH_GUARDAR], "lngs": lngs[i : i + BATCH_GUARDAR]},
            )
        conn.execute("DELETE FROM d2.regeo_areas")
        conn.execute("ANALYZE d2.resolucoes_geo")
        row = conn.execute("SELECT count(*) AS n FROM d2.resolucoes_geo").fetchone()
    assert row is not None
    return int(row["n"])


def por_linha(url: str, linhas: int) -> float:
    """Rows/s of the baseline page (one resolver call per row) over the first rows."""
    apos = uuid.UUID(int=0)
    vistas = 0
    with common.connect(url) as conn:
        inicio = time.perf_counter()
        while vistas < linhas:
            pagina = conn.execute(
                db.q("bench_regeo_page_by_row"), {"apos": apos, "lote": BATCH_PAGINA}
            ).fetchall()
            if not pagina:
                break
            vistas += len(pagina)
            apos = pagina[-1]["id"]
        return vistas / (time.perf_counter() - inicio)


def passe_completo(url: str) -> tuple[float, int]:
    """(rows/s, rows) of `d2 regeorreferenciar --dry-run` over every stored resolution."""
    with common.connect(url) as conn:
        inicio = time.perf_counter()
        relatorio = regeo.regeorreferenciar(
            conn, config.load(), uc=None, desde=None, dry_run=True, batch=BATCH_PAGINA
        )
        segundos = time.perf_counter() - inicio
    return relatorio["examinadas"] / segundos, relatorio["examinadas"]


def acompanhamento(url: str) -> dict[str, Any]:
    """Change the fullest município, then time the follow-up until nothing is pending."""
    with common.connect(url) as conn:
        alvo = conn.execute(db.q("bench_regeo_fullest_municipio")).fetchone()
        assert alvo is not None
        inicio = time.perf_counter()
        mudou = conn.execute(
            db.q("bench_regeo_shrink_municipio"), {"uc": alvo["municipio"]}
        ).fetchone()
        assert mudou is not None
        mirror.aplicar(conn)  # what the worker does at its next poll
        aplicado = time.perf_counter()
        relatorio = regeo.acompanhar(conn, regra=resolver.NearRule())
        fim = time.perf_counter()
    return {
        "segundos": fim - aplicado,
        "mirror_s": aplicado - inicio,
        "examinadas": relatorio["examinadas"],
        "dentro": int(mudou["dentro"]),
        "alteradas": relatorio["alteradas"],
    }


def medir(url: str, n: int, base_linhas: int) -> Iterator[dict[str, Any]]:
    guardadas = guardar(url, n)
    base = por_linha(url, base_linhas)
    taxa, examinadas = passe_completo(url)
    yield common.figure(
        "regeo", "full pass (d2 regeorreferenciar), batch resolver per page", taxa, "rows/s",
        base, "one resolver call per row (LATERAL d2.resolver_territorio)",
        resolutions=guardadas, examined=examinadas, baseline_rows=base_linhas,
    )  # fmt: skip
    a = acompanhamento(url)
    yield common.figure(
        "regeo", "follow-up after one município changes: rows examined", a["examinadas"],
        "rows", a["dentro"], "rows inside the changed area", higher_is_better=False,
        changed=a["alteradas"], resolutions=guardadas,
    )  # fmt: skip
    yield common.figure(
        "regeo", "follow-up after one município changes: mirror up to date to done",
        a["segundos"], "s", 5.0, "target", higher_is_better=False, examined=a["examinadas"],
        mirror_update_s=round(a["mirror_s"], 2),
    )  # fmt: skip
