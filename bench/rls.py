"""What row-level security on core.event_log costs (migration 20261203120020).

Same run, same database, rounds alternating RLS on and off (the baseline):
  * a colony's producer (plain grants, not the owner: the permissive `true` policy
    applies to it) publishing one event per transaction, and 100 per statement;
  * the worker (a login holding d2_worker: the restrictive policy applies) reading
    500-event batches of demanda.normalizada with the worker's own query, over a log
    where half the events belong to another domain.
Prints one JSON object per figure ("ratio" > 1: RLS on is faster than off).

    python bench/rls.py --temp            # a throw-away embedded cluster
    python bench/rls.py --url postgresql://...   # creates and drops d2_bench_* databases
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable

from bench import common
from d2 import db


def _rodadas(admin: common.Conn, medir: Callable[[], float], rodadas: int) -> tuple[float, float]:
    """Median rate with RLS on, and off, over alternating rounds."""
    com: list[float] = []
    sem: list[float] = []
    for rodada in range(rodadas):
        ordem = [(True, com), (False, sem)]
        # Each arm goes first every other round: the log grows as the rounds go.
        for ligado, destino in ordem if rodada % 2 == 0 else ordem[::-1]:
            admin.execute(common.q("rls_ligar" if ligado else "rls_desligar"))
            destino.append(medir())
    admin.execute(common.q("rls_ligar"))
    return statistics.median(com), statistics.median(sem)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="admin URL of a server (default: --temp)")
    parser.add_argument("--temp", action="store_true", help="start a throw-away cluster")
    parser.add_argument("--eventos", type=int, default=2000)
    parser.add_argument("--rodadas", type=int, default=5)
    args = parser.parse_args()
    n = args.eventos
    with common.server(args.url) as srv, common.scratch_db(srv, "rls") as url:
        with common.connect(url) as admin:
            admin.execute(common.q("rls_papeis"))
            try:
                _medir_tudo(admin, url, n, args.rodadas)
            finally:
                admin.execute(common.q("rls_papeis_remover"))


def _como(url: str, papel: str) -> common.Conn:
    conn = common.connect(url)
    conn.execute("SELECT set_config('role', %(p)s, false)", {"p": papel})
    return conn


def _medir_tudo(admin: common.Conn, url: str, n: int, rodadas: int) -> None:
    with _como(url, "d2_bench_colonia") as colonia, _como(url, "d2_bench_worker") as worker:

        def um_por_transacao() -> float:
            inicio = time.perf_counter()
            for _ in range(n):
                colonia.execute(common.q("rls_publicar_um"), {"tipo": "saude.consulta"})
            return n / (time.perf_counter() - inicio)

        def lotes_de_100() -> float:
            inicio = time.perf_counter()
            for _ in range(n // 100):
                colonia.execute(
                    common.q("rls_publicar_lote"), {"tipo": "demanda.normalizada", "n": 100}
                )
            return (n // 100) * 100 / (time.perf_counter() - inicio)

        def leitura_do_worker() -> float:
            lidos, apos = 0, 0
            inicio = time.perf_counter()
            while True:
                linhas = worker.execute(
                    db.q("bus_ler_desde"),
                    {"tipo": "demanda.normalizada", "apos": apos, "limite": 500},
                ).fetchall()
                if not linhas:
                    break
                lidos += len(linhas)
                apos = linhas[-1]["sequence_number"]
            return lidos / (time.perf_counter() - inicio)

        for nome, medir, unidade in (
            (
                "producer INSERT, 1 event per transaction (colony role)",
                um_por_transacao,
                "events/s",
            ),
            ("producer INSERT, 100 events per statement (colony role)", lotes_de_100, "events/s"),
            ("worker read, 500-event batches (d2_worker)", leitura_do_worker, "events/s"),
        ):
            com, sem = _rodadas(admin, medir, rodadas)
            print(json.dumps(common.figure(
                "rls", nome, com, unidade, sem, "RLS off (same run)", eventos=n,
                rodadas=rodadas,
            )), flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
