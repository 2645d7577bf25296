"""core.event_log under the monolith's producers: what D-2 costs them, and delivery.

On one cluster with fsync on (a throw-away one unless a server is given), three databases
hold core.event_log as the monolith creates it (a serial sequence_number): `plain` (no
D-2), `numbered at commit` (D-2 up to migration 20261203010000, the commit-time
numbering) and `migrated` (D-2 at head: numbered at INSERT, readers fenced at the
snapshot's xmin). Figures, all from the same run:

* producer commits/s, 8 producers at one event per transaction, rounds alternating
  between the databases (median of the rounds), each against `plain`;
* the gap run: 8 producers inserting 1-3 events, waiting 0-4 ms, committing out of order,
  10% rolling back, while a reader follows with bus.ler_desde (polling every ms): skips,
  duplicates and commit → delivery latency p50/p99; the baseline is a reader on `plain`
  trusting sequence_number order alone (lower latency floor; it skips);
* a long write transaction elsewhere in the database while producers trickle: how much
  it delays delivery, what bus.fence (the metric) showed, and that nothing is lost.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import random
import statistics
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

from d2 import db, migrations
from d2.bench import common
from d2.eventlog import bus

PRODUTORES = 8
TIPO = "demanda.normalizada"  # producers of what D-2 reads: its readers serve only those
ANTES = "20261203010000_event_log_numerar_na_insercao"
PAYLOAD = json.dumps({"demanda_id": str(uuid.UUID(int=1)), "texto": "x" * 200})


@contextlib.contextmanager
def banco(srv: common.Server, rotulo: str, revisao: str | None) -> Iterator[str]:
    """A database holding the monolith's core.event_log, then D-2 migrated to revisao."""
    nome = f"d2_bench_{rotulo}_{uuid.uuid4().hex[:8]}"
    common.create_db(srv, nome)
    url = common.with_dbname(srv.admin_url, nome)
    try:
        with common.connect(url) as conn:
            conn.execute(db.q("bench_monolith_event_log"))
        if revisao is not None:
            migrations.upgrade(url, revisao)
        yield url
    finally:
        common.drop_db(srv, nome)


def commits_por_segundo(url: str, segundos: float) -> float:
    """8 producers, one event per transaction, as fast as they can for segundos."""
    contagens = [0] * PRODUTORES
    inicio = threading.Barrier(PRODUTORES + 1)
    fim = threading.Event()

    def produzir(i: int) -> None:
        with common.connect(url, autocommit=False) as conn:
            inicio.wait()
            while not fim.is_set():
                conn.execute(
                    db.q("bench_producer_insert"),
                    {"event_id": uuid.uuid4(), "tipo": TIPO, "payload": PAYLOAD},
                )
                conn.commit()
                contagens[i] += 1

    threads = [threading.Thread(target=produzir, args=(i,)) for i in range(PRODUTORES)]
    for t in threads:
        t.start()
    inicio.wait()
    t0 = time.perf_counter()
    time.sleep(segundos)
    fim.set()
    for t in threads:
        t.join()
    return sum(contagens) / (time.perf_counter() - t0)


class Reader(threading.Thread):
    """Follows the log, polling every millisecond; notes when each event was in hand."""

    def __init__(self, url: str, ingenuo: bool) -> None:
        super().__init__(daemon=True)
        self.url, self.ingenuo = url, ingenuo
        self.lidos: dict[uuid.UUID, float] = {}
        self.duplicados = 0
        self.ordem: list[bus.Position] = []
        self.retidos_max = 0
        self.medir_fence = threading.Event()
        self.parar = threading.Event()
        self.pronto = threading.Event()
        """Set once the reader has caught up with what the log held when it started
        (earlier rounds' events are not measured)."""

    def run(self) -> None:
        cursor = bus.Position(0, 0)
        seq = 0
        with common.connect(self.url) as conn:
            while True:
                terminou = self.parar.is_set()
                agora = time.perf_counter()
                if self.ingenuo:
                    rows = conn.execute(
                        db.q("bench_naive_read_since"), {"apos": seq, "tipo": TIPO}
                    ).fetchall()
                    novos = [r["event_id"] for r in rows]
                    if rows:
                        seq = rows[-1]["sequence_number"]
                else:
                    eventos = bus.ler_desde(conn, TIPO, cursor)
                    novos = [e.event_id for e in eventos]
                    if eventos:
                        cursor = bus.position(eventos[-1])
                        self.ordem.extend(bus.position(e) for e in eventos)
                    if self.medir_fence.is_set():
                        self.retidos_max = max(self.retidos_max, bus.fence(conn, TIPO).retidos)
                for event_id in novos if self.pronto.is_set() else ():
                    if event_id in self.lidos:
                        self.duplicados += 1
                    self.lidos.setdefault(event_id, agora)
                if not self.pronto.is_set():
                    if not novos:
                        self.pronto.set()
                    continue
                if not novos and terminou:
                    return
                if not novos:
                    time.sleep(0.001)


def round_lacunas(
    url: str, transacoes: int, ingenuo: bool, *, espera_max_s: float = 0.004
) -> dict[str, Any]:
    """8 producers committing out of order (and 10% rolling back) while a reader follows."""
    enviados: dict[uuid.UUID, float] = {}
    lock = threading.Lock()
    leitor = Reader(url, ingenuo)
    leitor.start()
    leitor.pronto.wait(120)

    def produzir(semente: int) -> None:
        rng = random.Random(semente)
        with common.connect(url, autocommit=False) as conn:
            for _ in range(transacoes):
                ids = [uuid.uuid4() for _ in range(rng.randint(1, 3))]
                for event_id in ids:
                    conn.execute(
                        db.q("bench_producer_insert"),
                        {"event_id": event_id, "tipo": TIPO, "payload": PAYLOAD},
                    )
                time.sleep(rng.random() * espera_max_s)
                if rng.random() < 0.1:
                    conn.rollback()
                    continue
                antes = time.perf_counter()
                conn.commit()
                with lock:
                    enviados.update(dict.fromkeys(ids, antes))

    threads = [threading.Thread(target=produzir, args=(i,)) for i in range(PRODUTORES)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    leitor.parar.set()
    leitor.join(120)
    ms = [(leitor.lidos[e] - t) * 1000 for e, t in enviados.items() if e in leitor.lidos]
    return {
        "events": len(enviados),
        "skipped": sum(1 for e in enviados if e not in leitor.lidos),
        "duplicates": leitor.duplicados,
        "out_of_order": sum(1 for a, b in itertools.pairwise(leitor.ordem) if b <= a),
        "p50_ms": round(common.percentile(ms, 50), 2) if ms else None,
        "p99_ms": round(common.percentile(ms, 99), 2) if ms else None,
    }


def transacao_longa(url: str, segure_s: float, por_segundo: float) -> dict[str, Any]:
    """Producers trickle while, from 0.5 s on, a write transaction elsewhere stays open
    for segure_s: events committed meanwhile wait for it, none is lost."""
    enviados: dict[uuid.UUID, float] = {}
    lock = threading.Lock()
    leitor = Reader(url, False)
    leitor.medir_fence.set()
    leitor.start()
    leitor.pronto.wait(120)
    duracao = segure_s + 1.5
    fim = time.perf_counter() + duracao

    def produzir() -> None:
        with common.connect(url, autocommit=False) as conn:
            while time.perf_counter() < fim:
                event_id = uuid.uuid4()
                conn.execute(
                    db.q("bench_producer_insert"),
                    {"event_id": event_id, "tipo": TIPO, "payload": PAYLOAD},
                )
                antes = time.perf_counter()
                conn.commit()
                with lock:
                    enviados[event_id] = antes
                time.sleep(PRODUTORES / por_segundo)

    threads = [threading.Thread(target=produzir) for _ in range(PRODUTORES)]
    for t in threads:
        t.start()
    time.sleep(0.5)
    with common.connect(url, autocommit=False) as longa:
        longa.execute("SELECT pg_current_xact_id()")  # it writes: it has a transaction id
        time.sleep(segure_s)
        longa.rollback()
    for t in threads:
        t.join()
    leitor.parar.set()
    leitor.join(60)
    ms = [(leitor.lidos[e] - t) * 1000 for e, t in enviados.items() if e in leitor.lidos]
    return {
        "events": len(enviados),
        "lost": sum(1 for e in enviados if e not in leitor.lidos),
        "held_for_s": segure_s,
        "max_delay_ms": round(max(ms), 1) if ms else None,
        "p50_ms": round(common.percentile(ms, 50), 2) if ms else None,
        "metric_max_held": leitor.retidos_max,
    }


def run(url: str | None, quick: bool) -> Iterator[dict[str, Any]]:
    segundos, rounds, transacoes = (4.0, 2, 60) if quick else (10.0, 3, 200)
    with (
        common.server(url, fast=False) as srv,  # fsync on: commits are the figure
        banco(srv, "plain", None) as plano,
        banco(srv, "commit", ANTES) as no_commit,
        banco(srv, "migrated", migrations.head()) as migrado,
    ):
        with common.connect(plano) as conn:
            fsync = conn.execute("SHOW fsync").fetchone()
        medidas: dict[str, list[float]] = {"plain": [], "commit": [], "migrated": []}
        for _ in range(rounds):
            for nome, alvo in (("plain", plano), ("commit", no_commit), ("migrated", migrado)):
                medidas[nome].append(commits_por_segundo(alvo, segundos))
        base = statistics.median(medidas["plain"])
        extra: dict[str, Any] = {
            "fsync": fsync["fsync"] if fsync else None,
            "producers": PRODUTORES,
            "rounds": [round(v) for v in medidas["migrated"]],
            "baseline_rounds": [round(v) for v in medidas["plain"]],
        }
        yield common.figure(
            "eventlog", "producer commits/s, D-2 at head (numbered at INSERT)",
            statistics.median(medidas["migrated"]), "commits/s", base, "plain log", **extra,
        )  # fmt: skip
        yield common.figure(
            "eventlog", "producer commits/s, D-2 numbering at commit (before this change)",
            statistics.median(medidas["commit"]), "commits/s", base, "plain log",
            rounds=[round(v) for v in medidas["commit"]],
        )  # fmt: skip
        lacunas = round_lacunas(migrado, transacoes, False)
        ingenuo = round_lacunas(plano, transacoes, True)
        yield common.figure(
            "eventlog", "gap run: events skipped by the fenced reader", lacunas["skipped"],
            "events", ingenuo["skipped"], "skipped by a sequence-order reader on a plain log",
            higher_is_better=False, **lacunas,
        )  # fmt: skip
        yield common.figure(
            "eventlog", "commit -> delivery p50, gap run", lacunas["p50_ms"] or 0.0, "ms",
            ingenuo["p50_ms"], "sequence-order reader on a plain log (unsafe)",
            higher_is_better=False, p99_ms=lacunas["p99_ms"], baseline_p99_ms=ingenuo["p99_ms"],
        )  # fmt: skip
        longa = transacao_longa(migrado, 1.0 if quick else 3.0, 200.0)
        yield common.figure(
            "eventlog", "max delivery delay under a long write transaction elsewhere",
            longa["max_delay_ms"] or 0.0, "ms", longa["held_for_s"] * 1000,
            "time the transaction stayed open", higher_is_better=False, **longa,
        )  # fmt: skip
