"""`d2 worker`: consume demanda.normalizada until SIGTERM, or `--drain` and exit."""

from __future__ import annotations

import argparse
from typing import Any

from d2 import config, logs
from d2.cli import database_url
from d2.cli.common import comando, emitir, positivo
from d2.worker import loop

# Each outcome of the handler as an operator reads it (d2 status's words).
OUTCOMES = {
    "georreferenciada": "resolved",
    "republicada": "republished",
    "sem_coordenadas": "discarded (no coordinates)",
    "coordenadas_invalidas": "discarded (invalid coordinates)",
    "revisao_pendente": "waiting for review",
    "geocodificacao_pendente": "waiting for the geocoder",
    "endereco_nao_resolvido": "address not placed",
    "conflito": "in conflict",
    "dead_letter": "dead letters",
}


def _texto_drenagem(d: dict[str, Any]) -> str:
    """What `d2 worker --drain` did, for a person (--json for programs)."""
    partes = [
        f"{n} {OUTCOMES.get(outcome, outcome)}"
        for outcome, n in sorted(d["desfechos"].items(), key=lambda i: (-i[1], i[0]))
        if n
    ]
    return f"drained {d['eventos']} events" + (": " + ", ".join(partes) if partes else "")


def cmd_worker(args: argparse.Namespace) -> int:
    logs.configure(args.log_level)
    settings = config.load()
    runner = loop.Worker(
        settings, url=database_url.url_do_banco(settings), batch_size=args.batch_size
    )
    runner.instalar_sinais()
    resultado = runner.executar(drain=args.drain)
    if args.drain:
        contagem = dict(resultado.contagem)
        emitir(args, {"eventos": sum(contagem.values()), "desfechos": contagem}, _texto_drenagem)
    return 0


def registrar(sub: Any) -> None:
    p_worker = comando(
        sub,
        "worker",
        cmd_worker,
        json_flag=True,
        help="consume demanda.normalizada until SIGTERM (or --drain)",
        description=(
            "Consume demanda.normalizada until SIGTERM (or --drain). One worker per database"
            " leads (a lock only d2_worker may take); the others stand by. With"
            " D2_METRICS_PORT set it serves /metrics, /healthz and /readyz on D2_METRICS_HOST"
            " (default 127.0.0.1); /healthz turns 503 when the loop stalls or, with"
            " D2_STANDBY_MAX_SECONDS > 0, when it has stood by for longer."
        ),
    )
    p_worker.add_argument(
        "--drain",
        action="store_true",
        help="process everything pending, print the outcomes (--json: as JSON), then exit 0",
    )
    p_worker.add_argument(
        "--batch-size",
        type=positivo,
        default=None,
        help=(
            "events per batch (default D2_BATCH_SIZE or 500); above 1 the next batch is"
            " read and resolved on a second connection while one is written;"
            " 1 = one event at a time, strictly in turn"
        ),
    )
    p_worker.add_argument("--log-level", default="INFO")
