"""`d2 dlq list|retry`: the events the handler could not take, and why."""

from __future__ import annotations

import argparse
from typing import Any

from d2 import config, db, logs
from d2.cli import database_url
from d2.cli.common import em_dia, emitir, event_ids, fila, flag, grupo
from d2.ops import dlq


def _texto_dead_letters(linhas: list[dict[str, Any]], status: str | None) -> str:
    if not linhas:
        return "no dead letters" + (f" with status {status}" if status else "")
    return "\n".join(
        f"{r['event_id']}  seq={r['sequence_number']}  tentativas={r['tentativas']}  "
        f"{r['status']:12} {r['ultimo_erro_em']:%Y-%m-%d %H:%M:%S}  {r['erro']}"
        for r in linhas
    )


def _texto_retry(r: dict[str, Any]) -> str:
    """What `d2 dlq retry` did, for a person (--json for programs)."""
    texto = (
        f"{r['pedidos']} dead letters retried: {r['reprocessados']} handled now "
        f"(marked reprocessado), {r['falharam']} failed again"
    )
    if r["ausentes_do_log"]:
        texto += f"; not in the event log: {', '.join(r['ausentes_do_log'])}"
    return texto


def cmd_dlq_list(args: argparse.Namespace) -> int:
    status = None if args.status == "todos" else args.status
    with db.connect(database_url.url()) as conn:
        linhas = dlq.listar(conn, consumer=args.consumer, status=status, limite=args.limit)
    emitir(args, linhas, lambda ls: _texto_dead_letters(ls, status))
    return 0


def cmd_dlq_retry(args: argparse.Namespace) -> int:
    logs.configure(args.log_level)
    ids = event_ids(args)
    with db.connect(database_url.url(), autocommit=True) as conn:
        em_dia(conn)
        emitir(args, dlq.reprocessar(conn, config.load(), ids), _texto_retry)
    return 0


def registrar(sub: Any) -> None:
    grupo_dlq = grupo(sub, "dlq", help="the dead letters: events the worker could not handle")
    p_list, p_retry = fila(
        grupo_dlq,
        cmd_dlq_list,
        cmd_dlq_retry,
        list_help="list dead letters",
        retry_help="run dead letters through the handler again",
        all_help="every pending dead letter",
    )
    p_list.add_argument(
        "--status",
        default="pendente",
        choices=["pendente", "reprocessado", "descartado", "todos"],
    )
    flag(
        p_list,
        "--consumer",
        "--consumidor",
        default=None,
        help="only this consumer's, e.g. D-2 or D-2/replica (default: all)",
    )
    p_retry.add_argument("--json", action="store_true", help="print JSON instead of text")
    p_retry.add_argument("--log-level", default="INFO")
