"""How long from a producer's COMMIT until a listening reader has the event in hand.

A producer publishes N events at a steady trickle (one per transaction). Two readers
follow the log at the same time:
  * the listening reader: bus.Listener wakes it (timeout = the poll interval), then it
    reads with bus.ler_desde, as the worker does;
  * the baseline: a polling-only reader that reads every --poll-s seconds.
Delay = the moment the reader has the row - the moment the producer sent COMMIT (so it
includes the commit itself). Prints one JSON object per line:

  {"bench": "notify_latency", "p50_ms": ..., "p99_ms": ..., "baseline": <polling p50 ms>,
   "ratio": baseline / p50, ...}

It publishes real demanda.georreferenciada events: point it at a scratch database
(DATABASE_URL), or pass --temp to start a throw-away embedded cluster.

    DATABASE_URL=postgresql://... python -m d2.bench.notify_latency --events 500 --rate 200
    python -m d2.bench.notify_latency --temp
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

from d2 import db, embedded, migrations
from d2.cli import database_url
from d2.eventlog import bus

TIPO = "demanda.georreferenciada"


def payload() -> dict[str, Any]:
    uc = str(uuid.uuid4())
    return {
        "demanda_id": str(uuid.uuid4()),
        "unidade_civica_id": uc,
        "nivel_minimo_resolvido": 4,
        "cadeia_ucs": [uc],
        "metodo_resolucao": "gps",
        "confianca_geo": "alta",
    }


class Reader(threading.Thread):
    """Follows the log from a cursor; records when each event_id was in hand."""

    def __init__(self, url: str, inicio: int, total: int, poll_s: float, ouvir: bool) -> None:
        super().__init__(daemon=True)
        self.url, self.cursor, self.total = url, inicio, total
        self.poll_s, self.ouvir = poll_s, ouvir
        self.vistos: dict[uuid.UUID, float] = {}
        self.pronto = threading.Event()
        self.prazo = time.monotonic() + 3600

    def run(self) -> None:
        with contextlib.ExitStack() as pilha:
            conn = pilha.enter_context(db.connect(self.url, autocommit=True))
            listener = pilha.enter_context(bus.Listener(self.url)) if self.ouvir else None
            self.pronto.set()
            while len(self.vistos) < self.total and time.monotonic() < self.prazo:
                for evento in bus.ler_desde(conn, TIPO, self.cursor):
                    self.vistos[evento.event_id] = time.perf_counter()
                    self.cursor = evento.sequence_number
                if len(self.vistos) >= self.total:
                    break
                if listener is not None:
                    listener.esperar(self.poll_s)
                else:
                    time.sleep(self.poll_s)


def produzir(url: str, total: int, por_segundo: float) -> tuple[dict[uuid.UUID, float], float]:
    """Publish total events, one per transaction, evenly spaced; when each COMMIT was sent."""
    enviados: dict[uuid.UUID, float] = {}
    duracoes: list[float] = []
    with db.connect(url) as conn:
        inicio = time.perf_counter()
        for i in range(total):
            espera = inicio + i / por_segundo - time.perf_counter()
            if espera > 0:
                time.sleep(espera)
            [event_id] = bus.publicar(conn, [bus.preparar(TIPO, payload())], origem="bench")
            antes = time.perf_counter()
            conn.commit()
            enviados[event_id] = antes
            duracoes.append(time.perf_counter() - antes)
    return enviados, statistics.median(duracoes) * 1000


def percentis(atrasos_ms: list[float]) -> tuple[float, float, float]:
    p99 = statistics.quantiles(atrasos_ms, n=100, method="inclusive")[98]
    return statistics.median(atrasos_ms), p99, max(atrasos_ms)


def medir(url: str, total: int, por_segundo: float, poll_s: float) -> dict[str, Any]:
    with db.connect(url, autocommit=True) as conn:
        inicio = bus.maior_sequencia(conn, TIPO)
    ouvinte = Reader(url, inicio, total, poll_s, ouvir=True)
    sondador = Reader(url, inicio, total, poll_s, ouvir=False)
    for leitor in (ouvinte, sondador):
        leitor.start()
        leitor.pronto.wait(30)
    enviados, commit_ms = produzir(url, total, por_segundo)
    for leitor in (ouvinte, sondador):
        leitor.prazo = time.monotonic() + poll_s * 3 + 10
        leitor.join()
    resultado: dict[str, Any] = {"bench": "notify_latency", "events": total}
    medidas = {}
    for nome, leitor in (("listen", ouvinte), ("poll", sondador)):
        faltam = set(enviados) - set(leitor.vistos)
        if faltam:
            raise SystemExit(f"{nome} reader missed {len(faltam)} events")
        atrasos = [(leitor.vistos[e] - t) * 1000 for e, t in enviados.items()]
        medidas[nome] = percentis(atrasos)
    p50, p99, maximo = medidas["listen"]
    base50, base99, _ = medidas["poll"]
    resultado.update(
        {
            "rate_per_s": por_segundo,
            "p50_ms": round(p50, 3),
            "p99_ms": round(p99, 3),
            "max_ms": round(maximo, 3),
            "baseline": round(base50, 3),
            "baseline_p99_ms": round(base99, 3),
            "baseline_poll_s": poll_s,
            "ratio": round(base50 / p50, 1) if p50 > 0 else None,
            "commit_p50_ms": round(commit_ms, 3),
        }
    )
    return resultado


@contextlib.contextmanager
def cluster_temporario(duravel: bool) -> Iterator[str]:
    # fast = fsync and synchronous_commit off: commits cost no disk flush.
    with embedded.temporario("d2-bench-", fast=not duravel) as cluster:
        migrations.upgrade(cluster.url())
        yield cluster.url()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=500)
    parser.add_argument("--rate", type=float, default=200.0, help="events per second")
    parser.add_argument("--poll-s", type=float, default=1.0, help="poll interval of both readers")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--temp", action="store_true", help="use a throw-away embedded cluster")
    parser.add_argument(
        "--durable", action="store_true", help="with --temp: keep fsync and synchronous_commit on"
    )
    args = parser.parse_args()
    with contextlib.ExitStack() as pilha:
        if args.temp:
            url = pilha.enter_context(cluster_temporario(args.durable))
        else:
            url = database_url.url()
        for _ in range(args.runs):
            resultado = medir(url, args.events, args.rate, args.poll_s)
            resultado["cluster"] = (
                ("temp-durable" if args.durable else "temp-fast") if args.temp else "DATABASE_URL"
            )
            print(json.dumps(resultado), flush=True)


if __name__ == "__main__":
    main()
