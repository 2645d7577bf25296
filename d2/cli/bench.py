"""`d2 demo` (the sample territory end to end) and `d2 bench` (figures against a
baseline measured in the same run)."""

from __future__ import annotations

import argparse
from typing import Any

from d2 import config, logs
from d2.cli.common import comando, emitir_linha


def cmd_bench(args: argparse.Namespace) -> int:
    from d2 import bench  # shapely, numpy, geopandas: ~1.3 s the other commands need not pay
    from d2.bench import geocode_quality_corpora, geocode_quality_national

    # The worker's per-event warnings (reviews, discards) are noise in a benchmark.
    logs.configure("ERROR")
    # Unset, each benchmark starts a throw-away cluster of its own rather than ./.d2/.
    url = config.load().database_url
    ufs = tuple(u.strip().upper() for grupo in args.uf or [] for u in grupo.split(",") if u.strip())
    formas = tuple(f.strip() for grupo in args.form or [] for f in grupo.split(",") if f.strip())
    selecao = geocode_quality_national.Selecao(ufs, formas, args.limit, args.ufs_only, args.seed)
    partes = geocode_quality_corpora.citizen.PARTES if args.part == "all" else (args.part,)
    anterior = {None: geocode_quality_corpora.ANTERIOR, "none": None}.get(
        args.previous, args.previous
    )
    escolha = geocode_quality_corpora.Escolha(partes=partes, anterior=anterior)
    figuras = bench.run(
        args.names,
        url=url,
        quick=args.quick,
        corpus=args.corpus,
        selecao=selecao,
        escolha=escolha,
        baseline_commit=args.baseline_commit,
    )
    for figura in figuras:
        emitir_linha(figura)
    return 0


def registrar(sub: Any) -> None:
    p_bench = comando(
        sub,
        "bench",
        cmd_bench,
        help="performance figures, each with a baseline measured in the same run (JSON lines)",
        description=(
            "Performance figures, one JSON object per line: the figure, the baseline "
            "measured in the same run, their ratio. pip: points/s of the set-based "
            "resolver against plain ST_Contains and an in-process shapely STRtree, on the "
            "shared data and at the official mesh's density. drain: events/s of a worker "
            "draining a backlog, batch path against the per-event path, with the share of "
            "CPU busy meanwhile, and the machine's ceiling (two workers draining copies "
            "at once). memory: the worker's peak RSS. latency: commit to commit under a "
            "trickle, p50 and p99. import: the shared data from empty, and again unchanged. "
            "capture: a writer's bulk insert of the municipalities into core.uc_polygons "
            "with D-2 against the spec's table without it, and the mirror's staleness "
            "after a write (commit to version moved, worker running), p50 and p99. "
            "eventlog: on a cluster of its own with fsync on, 8 producers' commits/s on "
            "core.event_log with D-2 installed against a plain log; the gap run (skips, "
            "commit to delivery p50/p99); the delay a long write transaction causes. "
            "regeo: over 1,000,000 stored resolutions, the full re-georeferencing pass "
            "against one resolver call per row, and the follow-up after one município "
            "changes (rows examined against rows inside, seconds). "
            "geocode: addresses/s through the handler against the sample Nominatim, against "
            "one request at a time with no cache, the cache's effect, and GPS throughput "
            "with 10% address-only events (needs no shared data); with the shared data, on "
            "the address corpus: Nominatim searches per cache-missing address, D-2's "
            "searches/s against nominatim-api called bare on the same searches, and "
            "addresses/s decided with no Nominatim call against GPS demands. "
            "geocode-quality: the address corpus (d2/bench/address_corpus.jsonl, from CEP "
            "Aberto and the shared data) through the worker's address path, beside Nominatim "
            "alone (the whole text as one search, its first match resolved) in the same run: "
            "right, wrong UC, missed, resolved where none was expected, over- and "
            "under-confident, per category and in total, and the address path's targets "
            "(--quick: 5 cases per category; D2_BENCH_CASES=FILE writes every case's answers); "
            "then the national corpus (d2/bench/address_corpus_national.jsonl: CEP Aberto rows "
            "drawn in all 27 UFs, six forms each) against the whole IBGE territory and every "
            "CEP: right, wrong, missed município, bairro, over- and under-confident, "
            "per form, in total and per UF (--quick: 2 rows per UF; --corpus national also "
            "prints each miss with its text, motivo and passo); then the corpora of what "
            "users write (d2/bench/address_corpus_citizen.jsonl: phrasings by writers who "
            "never read the reader, places drawn in all 27 UFs, a seen and an unseen half, "
            "and texts that name no place; d2/bench/address_corpus_municipios.jsonl: the "
            "national corpus drawn per município), each read with its own rows held out of "
            "d2.cep_nomes, beside a previous commit's reading in the same run (--previous). "
            "adversarial: milliseconds per hostile address text (100 kB, hundreds of "
            "segments, names or numbers) against an ordinary address, same run (needs no "
            "shared data). "
            "revisoes: GPS points 5 to 500 m out to sea off every coastal município of the "
            "shared data as d2 import-ibge loads it, and as far inland: answered at their "
            "município by the near rule, left in review, or answered at another (the bar: "
            "none), beside the resolver alone; a sweep of the rule's distance and margin; "
            "the mesh's drawing error against IBGE's full-resolution files, the seats and "
            "the MS bairros. "
            "process: `d2 worker --drain` as a process, its start included, over 20,000 GPS "
            "events on the whole IBGE territory, against another commit's worker "
            "(--baseline-commit, checked out as a git worktree) on clones of the same "
            "database, runs alternated: events/s, the start (launch to first batch "
            "committed) and the worker's CPU, each run and their medians."
        ),
    )
    p_bench.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help="pip, drain, memory, latency, import, capture, eventlog, regeo, geocode, "
        "geocode-quality, adversarial, process, revisoes (default: all)",
    )
    p_bench.add_argument("--quick", action="store_true", help="smaller sizes (a few minutes)")
    p_bench.add_argument(
        "--baseline-commit",
        metavar="REV",
        help="process: the commit whose worker is the baseline (default 81cd24f, before the "
        "address path's work); needs this checkout's git",
    )
    p_bench.add_argument(
        "--corpus",
        choices=("all", "address", "national", "users", "citizen", "no_place", "municipios"),
        default="all",
        help="geocode-quality: the corpus to run (default: all; users: the citizen corpus, "
        "its texts that name no place and the national corpus drawn per município)",
    )
    p_bench.add_argument(
        "--part",
        choices=("seen", "unseen", "all"),
        default="all",
        help="geocode-quality, the citizen corpus and its texts that name no place: the half "
        "the reading rules were written against (seen), the one kept out of sight (unseen: "
        "the figure), or both (default)",
    )
    p_bench.add_argument(
        "--previous",
        metavar="REV",
        default=None,
        help="geocode-quality, users' corpora: the commit whose reading is printed beside "
        "this one (default: the one before the rules that read places only where a reader "
        "does; none: this one alone; needs a git checkout)",
    )
    p_bench.add_argument(
        "--uf",
        action="append",
        metavar="UF",
        help="geocode-quality, national corpus: only these UFs' texts (repeat, or AC,RJ)",
    )
    p_bench.add_argument(
        "--ufs-only",
        action="store_true",
        help="with --uf: load only those UFs' territory and CEPs (seconds instead of "
        "minutes; but a name another UF shares is then easier than in the whole of Brazil)",
    )
    p_bench.add_argument(
        "--form",
        action="append",
        metavar="FORM",
        help="geocode-quality, national corpus: only these forms (completo, sem_cep, "
        "abreviado, minusculas, cep_sozinho, bairro_municipio; repeat, or a,b)",
    )
    p_bench.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="geocode-quality, national corpus: draw the texts again from CEP Aberto with "
        "this seed instead of reading the committed corpus (a sample never tuned on)",
    )
    p_bench.add_argument(
        "--limit",
        type=int,
        metavar="N",
        help="geocode-quality, national corpus: the first N rows of each UF",
    )
