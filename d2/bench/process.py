"""process: `d2 worker --drain` as an operator runs it, a process with its start
included, on the whole IBGE territory, beside another commit's worker in the same run
(d2.bench.previous; the commit before the address path's work by default).

The database, built once: `d2 import-ibge` of the shared data, one `d2 worker --drain` over
the empty log (the cursor seeded and the import's follow-up done, as on any database a
worker has run on), then N demanda.normalizada with GPS only, at random points inside
Brazil. Each run drains a clone of it, so every run starts equal: the process is timed
from its launch to its exit; its start is the time from the launch to its first batch
committed (the earliest processado_em of the run); its CPU is the worker's own (its
rusage) and the server's (the backends it ended, which the postmaster has reaped).

The baseline drains the same database when its worker accepts a schema migrated by this
checkout (81cd24f checks no migration revision at boot); when it fails on it or leaves
events unhandled, a database of its own is built the same way with its own `d2 migrate`,
`d2 import-ibge` and worker, holding the same points, and its rows say so.
"""

from __future__ import annotations

import contextlib
import os
import resource
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from d2 import db, errors
from d2.bench import common, previous


@dataclass(frozen=True)
class Run:
    """One drain as a process."""

    seconds: float
    events: int
    start_s: float  # launch → first batch committed
    worker_cpu_s: float
    server_cpu_s: float | None

    @property
    def rate(self) -> float:
        return self.events / self.seconds


def medir(
    srv: common.Server, n: int, rounds: int, commit: str = previous.PADRAO
) -> Iterator[dict[str, Any]]:
    """The figures of `d2 bench process`: each run, then this checkout against commit."""
    este = previous.este_checkout()
    with (
        previous.checkout(commit) as antigo,
        tempfile.TemporaryDirectory(prefix="d2-bench-home-") as pasta,
        contextlib.ExitStack() as pilha,
    ):
        home = Path(pasta)
        inicio = time.perf_counter()
        proprio = pilha.enter_context(common.scratch_db(srv, "proc", migrar=False))
        pontos = _preparar(proprio, este, home, None, n)
        modelos = {este.commit: common.dbname(proprio), antigo.commit: common.dbname(proprio)}
        # A first drain of each, not counted: the files in the page cache, and the
        # baseline's worker tried on this schema.
        _drenar(srv, modelos[este.commit], este, home, n)
        esquema = "this checkout's"
        try:
            _drenar(srv, modelos[antigo.commit], antigo, home, n)
        except errors.D2Error as exc:
            yield {"bench": "process", "figure": "baseline on this checkout's schema",
                   "value": None, "note": str(exc)[:300]}  # fmt: skip
            dele = pilha.enter_context(common.scratch_db(srv, "procbase", migrar=False))
            _preparar(dele, antigo, home, pontos, n)
            modelos[antigo.commit] = common.dbname(dele)
            _drenar(srv, modelos[antigo.commit], antigo, home, n)
            esquema = "its own"
        yield {"bench": "setup", "figure": "process: databases built, first drains",
               "value": round(time.perf_counter() - inicio, 1), "unit": "s",
               "baseline_schema": esquema}  # fmt: skip
        feitas = previous.alternar(
            [antigo, este], rounds, lambda code: _drenar(srv, modelos[code.commit], code, home, n)
        )
    for code, run in feitas:
        yield {
            "bench": "process",
            "figure": f"run: {code.label}",
            "value": round(run.rate),
            "unit": "events/s",
            "seconds": round(run.seconds, 2),
            "start_s": round(run.start_s, 2),
            "worker_cpu_s": round(run.worker_cpu_s, 2),
            "server_cpu_s": None if run.server_cpu_s is None else round(run.server_cpu_s, 2),
        }
    nossas = [r for c, r in feitas if c is este]
    delas = [r for c, r in feitas if c is antigo]
    base = f"commit {antigo.label}, same run (schema: {esquema})"
    yield common.figure(
        "process", f"`d2 worker --drain` as a process, {n:,} GPS events, start included",
        statistics.median(r.rate for r in nossas), "events/s",
        statistics.median(r.rate for r in delas), base,
        runs=len(nossas), each=[round(r.rate) for r in nossas],
        baseline_each=[round(r.rate) for r in delas],
    )  # fmt: skip
    yield common.figure(
        "process", "the worker's start: launch to first batch committed",
        statistics.median(r.start_s for r in nossas), "s",
        statistics.median(r.start_s for r in delas), base, higher_is_better=False,
        each=[round(r.start_s, 2) for r in nossas],
        baseline_each=[round(r.start_s, 2) for r in delas],
    )  # fmt: skip
    yield common.figure(
        "process", "the worker's CPU for the drain", statistics.median(
            r.worker_cpu_s for r in nossas), "s",
        statistics.median(r.worker_cpu_s for r in delas), base, higher_is_better=False,
    )  # fmt: skip


def _preparar(
    url: str,
    code: previous.Code,
    home: Path,
    pontos: tuple[list[float], list[float]] | None,
    n: int,
) -> tuple[list[float], list[float]]:
    """url made what the docstring says, with code's own commands; n points drawn at
    random inside Brazil unless given. Returns the points."""
    code.executar("migrate", home=home, DATABASE_URL=url)
    code.executar("import-ibge", str(common.SHARED_DATA), home=home, DATABASE_URL=url)
    code.executar("worker", "--drain", "--log-level", "WARNING", home=home, DATABASE_URL=url)
    with common.connect(url) as conn:
        if pontos is None:
            conn.execute(db.q("bench_seed"), {"seed": 0.25})
            # A few more than n: the generator may give a point or two fewer than asked.
            achados = conn.execute(
                db.q("bench_points_in_brasil"), {"n": n + n // 50 + 10, "seed": 11}
            ).fetchall()[:n]
            if len(achados) < n:
                raise errors.D2Error(f"process: {len(achados)} points drawn, {n} needed")
            pontos = ([r["lat"] for r in achados], [r["lng"] for r in achados])
        conn.execute(
            db.q("bench_events_insert"), {"lats": pontos[0], "lngs": pontos[1], "enderecos": []}
        )
        conn.execute("VACUUM ANALYZE core.event_log")
    return pontos


def _drenar(srv: common.Server, modelo: str, code: previous.Code, home: Path, n: int) -> Run:
    """code's `d2 worker --drain` over a clone of modelo; every one of the n events must
    end handled."""
    with common.scratch_db(srv, "procrun", template=modelo) as url:
        postmaster = _postmaster(url)
        time.sleep(0.3)  # the clone's own backend reaped before the server's CPU is read
        cpu_servidor = _cpu_reaped(postmaster)
        antes = resource.getrusage(resource.RUSAGE_CHILDREN)
        lancado, inicio = time.time(), time.perf_counter()
        feito = subprocess.run(
            code.comando("worker", "--drain", "--log-level", "WARNING"),
            cwd=code.root,
            env=code.ambiente(home, DATABASE_URL=url),
            capture_output=True,
            text=True,
            check=False,
        )
        segundos = time.perf_counter() - inicio
        depois = resource.getrusage(resource.RUSAGE_CHILDREN)
        if feito.returncode != 0:
            cauda = " | ".join(feito.stderr.strip().splitlines()[-3:])
            raise errors.D2Error(f"the worker of {code.label} exited {feito.returncode}: {cauda}")
        time.sleep(0.3)
        depois_servidor = _cpu_reaped(postmaster)
        with common.connect(url) as conn:
            row = conn.execute(db.q("bench_processed")).fetchone()
    assert row is not None
    if int(row["n"]) < n:
        raise errors.D2Error(f"the worker of {code.label} handled {row['n']} of {n} events")
    return Run(
        seconds=segundos,
        events=int(row["n"]),
        start_s=float(row["primeiro"]) - lancado,
        worker_cpu_s=(depois.ru_utime + depois.ru_stime) - (antes.ru_utime + antes.ru_stime),
        server_cpu_s=(
            None
            if cpu_servidor is None or depois_servidor is None
            else depois_servidor - cpu_servidor
        ),
    )


def _postmaster(url: str) -> int | None:
    """The server's main process, when it runs on this machine (its backends' parent)."""
    with common.connect(url) as conn:
        row = conn.execute("SELECT pg_backend_pid() AS pid").fetchone()
        assert row is not None
        try:  # while this session's backend still runs
            return int(Path(f"/proc/{row['pid']}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return None


def _cpu_reaped(postmaster: int | None) -> float | None:
    """CPU seconds of the server's backends that have ended (the postmaster's cutime and
    cstime): a run's sessions, once its worker has exited."""
    if postmaster is None:
        return None
    try:
        campos = Path(f"/proc/{postmaster}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(campos[13]) + int(campos[14])) / os.sysconf("SC_CLK_TCK")
