"""geocode: address demands through the worker, against the sample Nominatim
and, where ../shared/data is, against the address corpus's.

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

On the address corpus (d2.bench.geocode_quality_run's environment):

* Nominatim searches per cache-missing address (each demand of the corpus without GPS,
  through a fresh worker), against the target of 1.5; their distribution where
  d2.v_geocodificacoes gives each address's searches;
* D-2's own cost around each search: cache-missing addresses/s of the geocoding stage times
  searches per address (= the stage's searches/s), against nominatim-api called bare in
  the same process, with the same concurrency, on the very searches D-2 made (recorded
  as it made them); the target is a ratio of at least 0.8;
* addresses decided with no Nominatim call (a place named in the text, a locality's CEP:
  the names in SQL, the CEP table) per second through the worker, against GPS demands
  through the same worker (target: 1,000/s);
* every address-only demand of the corpus with no Nominatim at all (D2_NOMINATIM=off):
  addresses/s through the geocoding stage against the same demands with the corpus's
  Nominatim, their verdicts, and the wrong municípios (which must stay 0).
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from d2 import config, db, errors
from d2.bench import common, geocode_quality, geocode_quality_run
from d2.handler import handler
from d2.importers import sample, sample_osm
from d2.worker import loop

ALVO_BUSCAS = 1.5  # Nominatim searches per cache-missing address (the ladder's target)
ALVO_CUSTO = 0.8  # D-2's searches/s against nominatim-api's bare
ALVO_SEM_NOMINATIM = 1000.0  # addresses/s decided with no Nominatim call


def enderecos(n: int) -> list[str]:
    """n distinct address texts, all in the sample: street, a house number, município."""
    ruas = [
        (rua.nome, nome)
        for codigo, (_, _, lista) in sample_osm.LUGARES.items()
        for rua in lista
        for nome in [sample.municipios()[codigo][0]]
    ]
    return [f"{ruas[i % len(ruas)][0]}, {1000 + i}, {ruas[i % len(ruas)][1]}" for i in range(n)]


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
        handler.CURSOR.colocar(conn, antes)
        conn.commit()
    return antes


def _settings(nominatim_url: str, home: Path, **mudar: Any) -> config.Settings:
    return dataclasses.replace(
        config.load(), home=home, nominatim_dsn=nominatim_url, nominatim_url=None, **mudar
    )


def medir(
    srv: common.Server, n: int, n_um: int, n_gps: int, n_sem_nominatim: int
) -> Iterator[dict[str, Any]]:
    yield from _medir_amostra(srv, n, n_um, n_gps)
    yield from medir_corpus(srv, n_sem_nominatim)


def _medir_amostra(srv: common.Server, n: int, n_um: int, n_gps: int) -> Iterator[dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="d2-bench-geo-") as tmp:
        home = Path(tmp)
        arquivo = sample_osm.write_osm(home / "amostra.osm")
        with common.nominatim(srv, home, arquivo, "d2_bench_nominatim") as (
            nominatim_url,
            import_s,
        ):
            yield {"bench": "setup", "figure": "sample Nominatim import", "value": round(
                import_s, 1), "unit": "s"}  # fmt: skip
            yield from _medir(srv, home, nominatim_url, n, n_um, n_gps)


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
            s_batch, _, r = geocode_quality_run.drenar(runner)
            _publicar(url, textos, [])
            s_cache, _, _ = geocode_quality_run.drenar(runner)
            with common.connect(url) as conn:
                metodos = {row["metodo_resolucao"]: row["n"] for row in conn.execute(
                    db.q("bench_geocode_results"))}  # fmt: skip
        with common.scratch_db(srv, "geoum", template=template) as url:
            _publicar(url, textos[:n_um], [])
            um = _settings(
                nominatim_url, home, geocoder_concorrencia=1, geocoder_batch=1, geocoder_cache_max=0
            )
            s_um, _, _ = geocode_quality_run.drenar(loop.Worker(um, url=url, batch_size=1))
        yield common.figure(
            "geocode", "cache-missing addresses through the batch path", n / s_batch,
            "addresses/s", n_um / s_um, "one request at a time, no cache (batch size 1)",
            addresses=n, seconds=round(s_batch, 2), baseline_addresses=n_um,
            resolved_by=metodos, outcomes=dict(r.contagem),
        )  # fmt: skip
        yield common.figure(
            "geocode", "the same addresses again, from the worker's cache", n / s_cache,
            "addresses/s", n / s_batch, "cache-missing (the figure above)",
            addresses=n, seconds=round(s_cache, 2),
        )  # fmt: skip
        pontos = sample.sample_points(n_gps, seed=3)
        with common.scratch_db(srv, "geogps", template=template) as url:
            _publicar(url, [], pontos)
            _, s_gps, _ = geocode_quality_run.drenar(
                loop.Worker(_settings(nominatim_url, home), url=url)
            )
        with common.scratch_db(srv, "geomisto", template=template) as url:
            _publicar(url, enderecos(n_gps // 9), pontos)
            _, s_misto, _ = geocode_quality_run.drenar(
                loop.Worker(_settings(nominatim_url, home), url=url)
            )
        yield common.figure(
            "geocode", "GPS events/s, handler pass, 10% of events address-only",
            n_gps / s_misto, "events/s", n_gps / s_gps, "the same GPS events alone",
            gps_events=n_gps, address_events=n_gps // 9,
        )  # fmt: skip


# --- on the address corpus ------------------------------------------------------------------------


def medir_corpus(srv: common.Server, n_sem_nominatim: int) -> Iterator[dict[str, Any]]:
    if not (common.SHARED_DATA / "br_municipios.geojson.gz").exists():
        yield {"bench": "geocode", "figure": "skipped: the address corpus figures",
               "note": f"they need the shared data at {common.SHARED_DATA}"}  # fmt: skip
        return
    with geocode_quality_run.ambiente(srv) as amb:
        yield {"bench": "setup", "figure": "address corpus environment",
               "seconds": {k: round(v, 1) for k, v in amb.segundos.items()},
               "cep_import": amb.cep_import}  # fmt: skip
        casos = [c for c in amb.corpus.casos if c["payload"]["coordenadas_validadas"] is None]
        concorrencia = amb.settings().geocoder_concorrencia
        # The first pass warms PostgreSQL's caches for both sides; the second is measured.
        primeira = geocode_quality_run.executar(amb, casos)
        geocode_quality_run.repetir_buscas(primeira.gravacao, concorrencia)
        segunda = geocode_quality_run.executar(amb, casos)
        nua_s = geocode_quality_run.repetir_buscas(segunda.gravacao, concorrencia)
        buscas = geocode_quality.buscas_por_endereco(segunda)
        yield common.figure(
            "geocode", "Nominatim searches per cache-missing address, address corpus",
            buscas["mean"] or 0.0, "searches", ALVO_BUSCAS, "target", higher_is_better=False,
            **{k: v for k, v in buscas.items() if k != "mean"},
        )  # fmt: skip
        n_buscas = len(segunda.gravacao.buscas)
        if n_buscas and nua_s > 0:
            enderecos_s = segunda.enderecos / segunda.segundos_stage
            yield common.figure(
                "geocode",
                "D-2's searches/s (cache-missing addresses/s x searches per address), "
                "address corpus", n_buscas / segunda.segundos_stage, "searches/s",
                n_buscas / nua_s, "nominatim-api called bare on the same searches",
                target_ratio=ALVO_CUSTO, addresses_per_s=round(enderecos_s, 1),
                searches_per_address=buscas["mean"], stage_seconds=round(
                    segunda.segundos_stage, 2), bare_seconds=round(nua_s, 2),
                concurrency=concorrencia,
            )  # fmt: skip
        yield from _sem_nominatim(amb, n_sem_nominatim)
        yield from _nenhum_nominatim(amb, casos, segunda)


def _nenhum_nominatim(
    amb: geocode_quality_run.Ambiente,
    casos: list[dict[str, Any]],
    com: geocode_quality_run.Execucao,
) -> Iterator[dict[str, Any]]:
    """The corpus's address-only demands with no Nominatim at all, judged as the quality
    benchmark judges them: what a deployment without one answers, and how fast."""
    sem = geocode_quality_run.executar(amb, casos, nominatim_ativo=False)
    placar = geocode_quality.Placar()
    for caso in casos:
        placar.somar(caso, sem.respostas[caso["id"]])
    yield common.figure(
        "geocode", "address-only demands of the corpus with no Nominatim (D2_NOMINATIM=off)",
        sem.enderecos / sem.segundos_stage, "addresses/s",
        com.enderecos / com.segundos_stage, "the same demands with the corpus's Nominatim",
        addresses=sem.enderecos, nominatim_searches=len(sem.gravacao.buscas),
        verdicts=placar.linha(sem.com_passos),
        stage_seconds=round(sem.segundos_stage, 3),
    )  # fmt: skip


def textos_sem_nominatim(amb: geocode_quality_run.Ambiente, n: int) -> list[dict[str, Any]]:
    """n distinct demands that name only a place (bairro and município, município and
    UF) or carry only a locality's CEP: what the names in SQL and the CEP table decide."""
    t = amb.corpus.territorio
    bairros = []
    for b in sorted(t.bairros.values(), key=lambda b: b.codigo):
        m = t.municipios.get(b.municipio)
        if m is not None:
            bairros.append((f"{b.nome}, {m.nome} - {m.uf}", f"Bairro {b.nome}, {m.nome}/{m.uf}"))
    municipios = [
        (f"{m.nome} - {m.uf}", f"{m.nome}/{m.uf}", f"município de {m.nome}, {m.uf}")
        for m in sorted(t.municipios.values(), key=lambda m: m.codigo)
    ]
    fontes: list[list[dict[str, str]]] = [
        [{"endereco": texto} for formas in bairros for texto in formas],
        [{"endereco": texto} for formas in municipios for texto in formas],
        [{"cep": cep} for cep in amb.corpus.ceps_gerais],
    ]
    entidades: list[dict[str, str]] = []
    for k in range(max(len(f) for f in fontes)):
        entidades += [f[k] for f in fontes if k < len(f)]
    if len(entidades) < n:
        raise errors.InvalidInput(f"only {len(entidades)} place-only demands; asked {n}")
    return [
        {"id": f"sem-nominatim-{k:05d}", "payload": {"entidades_extraidas": e}}
        for k, e in enumerate(entidades[:n])
    ]


def _sem_nominatim(amb: geocode_quality_run.Ambiente, n: int) -> Iterator[dict[str, Any]]:
    lugares = textos_sem_nominatim(amb, n)
    ruas = amb.corpus.ruas
    gps: list[dict[str, Any]] = []
    for k in range(n):  # points along the corpus's streets, inside the territory
        lng, lat = ruas[k % len(ruas)].ponto((k // len(ruas)) % 10 / 10)
        payload = {"entidades_extraidas": {}, "coordenadas_validadas": {"lat": lat, "lng": lng}}
        gps.append({"id": f"gps-{k:05d}", "payload": payload})
    sem = geocode_quality_run.executar(amb, lugares)
    com_gps = geocode_quality_run.executar(amb, gps)
    decididos = sum(1 for r in sem.respostas.values() if r.get("unidade_civica_id"))
    yield common.figure(
        "geocode", "addresses decided with no Nominatim call (names in SQL, CEP table)",
        n / sem.segundos, "addresses/s", n / com_gps.segundos,
        "GPS demands through the same worker", target=ALVO_SEM_NOMINATIM, addresses=n,
        resolved=decididos, nominatim_searches=len(sem.gravacao.buscas),
        seconds=round(sem.segundos, 2),
    )  # fmt: skip
