"""`d2 bench`: the performance figures, each next to a baseline measured in the same run.

The benchmarks are the modules of this package; this one runs them and yields one
JSON-able dict per figure:
{"bench", "figure", "value", "unit", "baseline", "baseline_name", "ratio", ...}.
They never touch an existing database's data: on the server at `url` they create and
drop their own `d2_bench_*` databases (the role needs CREATEDB); without `url` they start
a throw-away embedded cluster.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from d2 import errors
from d2.bench import (
    adversarial,
    capture,
    common,
    data,
    drain,
    event_log,
    geocode,
    geocode_quality,
    geocode_quality_corpora,
    geocode_quality_national,
    geocode_quality_national_run,
    pip,
    previous,
    process,
    regeo,
    revisoes,
)
from d2.importers import ibge

NAMES = (
    "pip", "drain", "memory", "latency", "import", "capture", "eventlog", "regeo", "geocode",
    "geocode-quality", "adversarial", "process", "revisoes",
)  # fmt: skip

# Sizes: (full run, --quick).
_PONTOS = (20_000, 4_000)
_DENSO_VERTICES = (20_000_000, 2_000_000)
_BAIRROS = (17_500, 3_000)
_BACKLOG = (100_000, 10_000)
_POR_EVENTO = (5_000, 1_000)
_TRICKLE = (2_000, 300)
_RESOLUCOES = (1_000_000, 100_000)
_REGEO_BASE = (50_000, 10_000)
_INSERCOES = (7, 5)  # runs of each kind of the writer's bulk insert
_ESCRITAS = (60, 20)  # single-row writes timed for the mirror's staleness
# geocode: addresses through the batch path, one at a time, GPS events of the mixed drain.
_ENDERECOS = (2_000, 600)
_ENDERECOS_UM = (300, 100)
_GPS_MISTO = (20_000, 5_000)
# adversarial: hostile address texts (and as many ordinary ones for the baseline).
_ADVERSARIOS = (500, 100)
# geocode on the address corpus: demands decided with no Nominatim call.
_SEM_NOMINATIM = (2_000, 500)
# process: GPS events drained by each commit's worker as a process, and the rounds of
# runs (both commits in each, alternating which goes first).
_PROCESSO = (20_000, 20_000)
_ROUNDS_PROCESSO = (4, 2)
# Workers side by side for the drain's ceiling: with two, both cores stay busy here.
_JUNTOS = 2


# The corpora of geocode-quality: the address corpus, the national one, and those of what
# users write (users: the citizen corpus, its texts that name no place, the national
# corpus drawn per município), or one of these three alone.
CORPORA = ("all", "address", "national", "users", *geocode_quality_corpora.CORPORA)


def run(
    names: list[str],
    *,
    url: str | None,
    quick: bool,
    corpus: str = "all",
    selecao: geocode_quality_national.Selecao | None = None,
    escolha: geocode_quality_corpora.Escolha | None = None,
    baseline_commit: str | None = None,
) -> Iterator[dict[str, Any]]:
    """Run the named benchmarks (all when empty) and yield their figures. geocode-quality
    runs the corpus named (all by default); selecao picks texts of the national one,
    escolha the parts and the previous reading of those of what users write; process
    compares this checkout's worker with baseline_commit's (previous.PADRAO)."""
    escolhidos = list(names) or list(NAMES)
    desconhecidos = [n for n in escolhidos if n not in NAMES]
    if desconhecidos:
        raise errors.InvalidInput(
            f"unknown benchmark {desconhecidos[0]!r}; choose from {', '.join(NAMES)}"
        )
    # geocode (on the sample territory; and, where the shared data is, on the address
    # corpus too) and adversarial need no shared data.
    if (
        not set(escolhidos) <= {"geocode", "adversarial"}
        and not (common.SHARED_DATA / "br_municipios.geojson.gz").exists()
    ):
        raise errors.D2Error(f"the benchmarks need the shared data at {common.SHARED_DATA}")
    i = 1 if quick else 0
    with common.server(url) as srv, contextlib.ExitStack() as pilha:
        template: str | None = None
        for nome in escolhidos:
            if nome == "process":
                yield from process.medir(
                    srv, _PROCESSO[i], _ROUNDS_PROCESSO[i], baseline_commit or previous.PADRAO
                )
                continue
            if nome in (
                "import",
                "eventlog",
                "geocode",
                "geocode-quality",
                "adversarial",
                "revisoes",
            ):
                yield from _sem_modelo(nome, srv, url, quick, corpus, selecao, escolha)
                continue
            if nome == "capture":
                yield from capture.escritor(srv, _INSERCOES[i], anterior=not quick)
            if template is None:
                # Polygons loaded once; every benchmark works on its own clone.
                base_url = pilha.enter_context(common.scratch_db(srv, "base"))
                segundos, n = common.timed(functools.partial(data.load_shared, base_url))
                yield {"bench": "setup", "figure": "load shared data into core.uc_polygons",
                       "value": round(segundos, 1), "unit": "s", "rows": n}  # fmt: skip
                template = common.dbname(base_url)
            yield from _COM_MODELO[nome](srv, template, i)


def _sem_modelo(
    nome: str,
    srv: Any,
    url: str | None,
    quick: bool,
    corpus: str = "all",
    selecao: geocode_quality_national.Selecao | None = None,
    escolha: geocode_quality_corpora.Escolha | None = None,
) -> Iterator[dict[str, Any]]:
    """The benchmarks that do not start from the shared data loaded once."""
    i = 1 if quick else 0
    if nome == "import":
        yield from _importar(srv)
    elif nome == "eventlog":
        # A cluster of its own with fsync on (or the server given): commits/s of a
        # throw-away cluster without fsync say nothing about producers.
        yield from event_log.run(url, quick)
    elif nome == "geocode":
        yield from geocode.medir(
            srv, _ENDERECOS[i], _ENDERECOS_UM[i], _GPS_MISTO[i], _SEM_NOMINATIM[i]
        )
    elif nome == "geocode-quality":
        if corpus in ("all", "address"):
            yield from geocode_quality.medir(srv, quick)
        yield from _nacionais(srv, quick, corpus, selecao, escolha)
    elif nome == "adversarial":
        yield from adversarial.medir(srv, _ADVERSARIOS[i])
    elif nome == "revisoes":
        yield from revisoes.medir(srv, quick)


def _nacionais(
    srv: Any,
    quick: bool,
    corpus: str,
    selecao: geocode_quality_national.Selecao | None,
    escolha: geocode_quality_corpora.Escolha | None,
) -> Iterator[dict[str, Any]]:
    """geocode-quality's corpora read against the whole territory and every CEP, in one
    environment built once: the national corpus, and those of what users write."""
    nacional = corpus in ("all", "national")
    usuarios = corpus in ("all", "users", *geocode_quality_corpora.CORPORA)
    if not (nacional or usuarios):
        return
    selecao = selecao or geocode_quality_national.Selecao()
    if quick and selecao.linhas_por_uf is None:
        selecao = dataclasses.replace(selecao, linhas_por_uf=geocode_quality_national.ROWS_QUICK)
    escolha = escolha or geocode_quality_corpora.Escolha()
    if corpus in geocode_quality_corpora.CORPORA:
        escolha = dataclasses.replace(escolha, corpora=(corpus,))
    escolha = dataclasses.replace(escolha, rapido=escolha.rapido or quick)
    ufs = geocode_quality_national.ufs_do_ambiente(selecao) if not usuarios else None
    with geocode_quality_national_run.ambiente(srv, ufs=ufs) as amb:
        yield geocode_quality_national.ambiente_linha(amb)
        if nacional:
            # The misses, one line each, when the national corpus is asked for alone.
            yield from geocode_quality_national.medir(amb, selecao, falhas=corpus == "national")
        if usuarios:
            yield from geocode_quality_corpora.medir(amb, escolha)


def _captura(srv: Any, template: str, i: int) -> Iterator[dict[str, Any]]:
    yield from capture.staleness(srv, template, _ESCRITAS[i])


def _pip(srv: Any, template: str, i: int) -> Iterator[dict[str, Any]]:
    with common.scratch_db(srv, "pip", template=template) as url:
        pts = pip.pontos(url, _PONTOS[i])
        cap = data.cap(url)  # the migrated one: pip.caps tries others, then it comes back
        yield from pip.caps(url, pts, pip.CAPS_RAPIDO if i else pip.CAPS, cap)
        data.repiece(url, cap)
        yield data.tamanho(url, "shared")
        yield from pip.medir(url, "shared", pts, vezes=2, contains_n=_PONTOS[i] // 4)
    with common.scratch_db(srv, "denso", template=template) as url:
        inicio = time.perf_counter()
        with common.connect(url) as conn:
            conn.execute("DELETE FROM core.uc_polygons WHERE nivel = 2")
        n_bairros = data.add_synthetic_bairros(url, _BAIRROS[i])
        passo, vertices = data.densify(url, _DENSO_VERTICES[i])
        stats = data.repiece(url, cap)
        faixas = data.faixas(url)
        yield {
            "bench": "setup",
            "figure": "official-density data set",
            "value": round(time.perf_counter() - inicio, 1),
            "unit": "s",
            "synthetic_bairros": n_bairros,
            "segment_m": round(data.metros(passo), 1),
            "vertices": vertices,
            "pieces": stats["n"],
            "bands": faixas["bands"],
            "clean_intervals": faixas["intervals"],
            "bands_build_s": faixas["s"],
        }
        yield from (
            dict(f, dataset="dense")
            for f in pip.caps(url, pts, pip.CAPS_RAPIDO if i else pip.CAPS[1:], cap)
        )
        data.repiece(url, cap)
        yield data.tamanho(url, "dense")
        yield from pip.medir(url, "dense", pts, vezes=2, contains_n=_PONTOS[i] // 10)


def _backlog_template(srv: Any, template: str, n: int) -> Iterator[tuple[str, str, int]]:
    with common.scratch_db(srv, "backlog", template=template) as url:
        pts = pip.pontos(url, n // 2)
        lats = pts["brasil"][0] + pts["fronteira"][0]
        lngs = pts["brasil"][1] + pts["fronteira"][1]
        antes = drain.preparar_backlog(url, lats, lngs)
        yield url, common.dbname(url), antes


def _drain(srv: Any, template: str, i: int) -> Iterator[dict[str, Any]]:
    for _, nome, _antes in _backlog_template(srv, template, _BACKLOG[i]):
        with common.scratch_db(srv, "lote", template=nome) as url:
            s_batch, n_batch, ocupada = drain.drenar_medindo_cpu(url, 500)
        with common.scratch_db(srv, "um", template=nome) as url:
            # Same events, fewer of them: the last _POR_EVENTO[i] of the backlog.
            drain.cursor_em(url, drain.ultima(url) - _POR_EVENTO[i])
            s_um, n_um = drain.drenar(url, 1)
        yield common.figure(
            "drain", "worker drain, batch 500", n_batch / s_batch, "events/s",
            n_um / s_um, "per-event path (batch size 1)",
            events=n_batch, per_event_events=n_um, seconds=round(s_batch, 2),
            cpu_busy=None if ocupada is None else round(ocupada, 2),
        )  # fmt: skip
        with contextlib.ExitStack() as copias:
            urls = [
                copias.enter_context(common.scratch_db(srv, f"junto{k}", template=nome))
                for k in range(_JUNTOS)
            ]
            s_juntos, n_juntos = drain.drenar_juntos(urls, 500)
        yield common.figure(
            "drain", f"machine's ceiling: {_JUNTOS} workers draining copies at once, in all",
            n_juntos / s_juntos, "events/s", n_batch / s_batch, "one worker (the figure above)",
            events=n_juntos, seconds=round(s_juntos, 2),
        )  # fmt: skip


def _memory(srv: Any, template: str, i: int) -> Iterator[dict[str, Any]]:
    for _, nome, _antes in _backlog_template(srv, template, _BACKLOG[i]):
        with common.scratch_db(srv, "mem", template=nome) as url:
            segundos, codigo, rss = drain.drenar_subprocesso(url)
        with common.scratch_db(srv, "mem0", template=nome) as url:
            drain.cursor_em(url, drain.ultima(url))
            _, _, rss0 = drain.drenar_subprocesso(url)
        yield common.figure(
            "memory", "worker peak RSS, drain of the backlog", rss / 2**20, "MB",
            rss0 / 2**20, "same worker, nothing to drain", higher_is_better=False,
            events=_BACKLOG[i], seconds=round(segundos, 1), exit_code=codigo,
            cli_drain_events_per_s=round(_BACKLOG[i] / segundos),
        )  # fmt: skip


def _latency(srv: Any, template: str, i: int) -> Iterator[dict[str, Any]]:
    with common.scratch_db(srv, "lat", template=template) as url:
        pts = pip.pontos(url, _TRICKLE[i])
        r = drain.latencia(url, pts["brasil"][0], pts["brasil"][1], por_segundo=50)
    yield common.figure(
        "latency", "normalizada commit -> georreferenciada commit, p50", r["p50_ms"], "ms",
        5.0, "target p50", higher_is_better=False, **r,
    )  # fmt: skip
    yield common.figure(
        "latency", "normalizada commit -> georreferenciada commit, p99", r["p99_ms"], "ms",
        20.0, "target p99", higher_is_better=False, **r,
    )  # fmt: skip


def _regeo(srv: Any, template: str, i: int) -> Iterator[dict[str, Any]]:
    with common.scratch_db(srv, "regeo", template=template) as url:
        yield from regeo.medir(url, _RESOLUCOES[i], _REGEO_BASE[i])


def _importar(srv: Any) -> Iterator[dict[str, Any]]:
    with common.scratch_db(srv, "import") as url:
        try:
            primeira, _ = common.timed(
                lambda: ibge.run_import(url, directory=Path(common.SHARED_DATA), progress=False)
            )
            segunda, resumo = common.timed(
                lambda: ibge.run_import(url, directory=Path(common.SHARED_DATA), progress=False)
            )
        except Exception as exc:  # someone else's module, maybe unfinished: report, go on
            yield {"bench": "import", "figure": "skipped", "note": f"{type(exc).__name__}: {exc}"}
            return
    escritos = sum(
        getattr(c.total, "inserted", 0) + getattr(c.total, "updated", 0)
        for c in getattr(resumo, "camadas", {}).values()
    )
    yield common.figure(
        "import", "import ../shared/data from empty", primeira, "s", 60.0, "target",
        higher_is_better=False,
    )  # fmt: skip
    yield common.figure(
        "import", "re-import, nothing changed", segunda, "s", 20.0, "target",
        higher_is_better=False, rows_written=escritos,
    )  # fmt: skip


_COM_MODELO = {
    "pip": _pip,
    "drain": _drain,
    "memory": _memory,
    "latency": _latency,
    "regeo": _regeo,
    "capture": _captura,
}
