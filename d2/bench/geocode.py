"""geocode: address demands through the worker against the sample Nominatim (issue 14).

The sample Nominatim is built once (Nominatim's own importer over the sample OSM file)
in a d2_bench_nominatim_* database; each run drains a clone of the same prepared D-2
database. Figures, each with its same-run baseline:

* cache-missing addresses/s through the batch path (distinct texts: real streets of the
  sample with house numbers that make every text new) against one request at a time
  with no cache (batch size 1, concurrency 1, cache off);
* the cache's effect: the same texts again, through the same worker's warm cache;
* GPS events/s of the handler's pass over a backlog where 10% of the events carry only
  an address, against the same GPS events alone (the stage runs after that pass in a
  drain, so this is what the addresses cost the GPS demands: parking them).
"""

from __future__ import annotations

import dataclasses
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from d2 import config, db
from d2.bench import common
from d2.geocoder import nominatim_import
from d2.handler import handler
from d2.importers import sample, sample_osm
from d2.worker import loop


def enderecos(n: int) -> list[str]:
    """n distinct address texts, all in the sample: street, a house number, município."""
    ruas = [
        (rua.nome, nome)
        for codigo, (_, _, lista) in sample_osm.LUGARES.items()
        for rua in lista
        for nome in [sample.municipios()[codigo][0]]
    ]
    return [f"{ruas[i % len(ruas)][0]}, {1000 + i}, {ruas[i % len(ruas)][1]}" for i in range(n)]


def construir_nominatim(srv: common.Server, home: Path) -> tuple[str, float]:
    """The sample Nominatim on srv; (its URL, seconds the import took)."""
    arquivo = sample_osm.write_osm(home / "amostra.osm")
    url = common.with_dbname(srv.admin_url, f"d2_bench_nominatim_{int(time.time())}")
    settings = dataclasses.replace(config.load(), home=home, nominatim_dsn=url)
    nominatim_import.verificar(settings, srv.admin_url, arquivo, criar_papel_web=True)
    return url, nominatim_import.construir(
        settings, url, arquivo, database_url=srv.admin_url, threads=2
    )


def _publicar(url: str, textos: list[str], pontos: list[tuple[float, float]]) -> int:
    with common.connect(url, autocommit=False) as conn:
        row = conn.execute(db.q("bench_max_sequence")).fetchone()
        assert row is not None
        antes = int(row["seq"])
        sem_gps: list[float | None] = [None] * len(textos)
        conn.execute(
            db.q("bench_events_insert"),
            {
                "lats": [p[0] for p in pontos] + sem_gps,
                "lngs": [p[1] for p in pontos] + sem_gps,
                "enderecos": [None] * len(pontos) + textos,
            },
        )
        conn.execute(db.q("bench_cursor_at"), {"seq": antes})
        conn.commit()
    return antes


def _settings(nominatim_url: str, home: Path, **mudar: Any) -> config.Settings:
    return dataclasses.replace(
        config.load(), home=home, nominatim_dsn=nominatim_url, nominatim_url=None, **mudar
    )


def _drenar(runner: loop.Worker) -> tuple[float, float, handler.Result]:
    """(seconds of the whole drain, seconds of the handler's pass, result)."""
    ultimo = [0.0]

    def marcar(_: handler.Result) -> None:
        ultimo[0] = time.perf_counter()

    runner._on_batch = marcar
    inicio = time.perf_counter()
    resultado = runner.executar(drain=True)
    fim = time.perf_counter()
    return fim - inicio, (ultimo[0] or fim) - inicio, resultado


def medir(srv: common.Server, n: int, n_um: int, n_gps: int) -> Iterator[dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="d2-bench-geo-") as tmp:
        home = Path(tmp)
        nominatim_url, import_s = construir_nominatim(srv, home)
        try:
            yield {"bench": "setup", "figure": "sample Nominatim import", "value": round(
                import_s, 1), "unit": "s"}  # fmt: skip
            yield from _medir(srv, home, nominatim_url, n, n_um, n_gps)
        finally:
            common.drop_db(srv, common.dbname(nominatim_url))


def _medir(
    srv: common.Server, home: Path, nominatim_url: str, n: int, n_um: int, n_gps: int
) -> Iterator[dict[str, Any]]:
    textos = enderecos(n)
    with common.scratch_db(srv, "geo") as base:
        sample.load_sample(base)
        loop.Worker(_settings(nominatim_url, home), url=base).executar(drain=True)  # boot
        template = common.dbname(base)
        with common.scratch_db(srv, "geolote", template=template) as url:
            _publicar(url, textos, [])
            runner = loop.Worker(_settings(nominatim_url, home), url=url, batch_size=500)
            s_lote, _, r = _drenar(runner)
            _publicar(url, textos, [])
            s_cache, _, _ = _drenar(runner)
            with common.connect(url) as conn:
                metodos = {row["metodo_resolucao"]: row["n"] for row in conn.execute(
                    db.q("bench_geocode_results"))}  # fmt: skip
        with common.scratch_db(srv, "geoum", template=template) as url:
            _publicar(url, textos[:n_um], [])
            um = _settings(
                nominatim_url, home, geocoder_concorrencia=1, geocoder_lote=1, geocoder_cache_max=0
            )
            s_um, _, _ = _drenar(loop.Worker(um, url=url, batch_size=1))
        yield common.figure(
            "geocode", "cache-missing addresses through the batch path", n / s_lote,
            "addresses/s", n_um / s_um, "one request at a time, no cache (batch size 1)",
            addresses=n, seconds=round(s_lote, 2), baseline_addresses=n_um,
            resolved_by=metodos, outcomes=dict(r.contagem),
        )  # fmt: skip
        yield common.figure(
            "geocode", "the same addresses again, from the worker's cache", n / s_cache,
            "addresses/s", n / s_lote, "cache-missing (the figure above)",
            addresses=n, seconds=round(s_cache, 2),
        )  # fmt: skip
        pontos = sample.sample_points(n_gps, seed=3)
        with common.scratch_db(srv, "geogps", template=template) as url:
            _publicar(url, [], pontos)
            _, s_gps, _ = _drenar(loop.Worker(_settings(nominatim_url, home), url=url))
        with common.scratch_db(srv, "geomisto", template=template) as url:
            _publicar(url, enderecos(n_gps // 9), pontos)
            _, s_misto, _ = _drenar(loop.Worker(_settings(nominatim_url, home), url=url))
        yield common.figure(
            "geocode", "GPS events/s, handler pass, 10% of events address-only",
            n_gps / s_misto, "events/s", n_gps / s_gps, "the same GPS events alone",
            gps_events=n_gps, address_events=n_gps // 9,
        )  # fmt: skip
