"""`d2 conflicts list|aceitar`: demands whose demanda_id came under a second event with
other coordinates or address, waiting for an operator's decision (never first-wins:
docs/reliability.md, "Who may publish a demand")."""

from __future__ import annotations

import argparse
from typing import Any

from d2 import config, db, logs
from d2.cli import database_url
from d2.cli.common import comando, emitir, grupo, tabela, uuid_arg
from d2.ops import conflicts


def cmd_list(args: argparse.Namespace) -> int:
    with db.connect(database_url.url(), autocommit=True) as conn:
        linhas = conflicts.listar(conn, args.limit)
    emitir(args, linhas, lambda ls: tabela(ls, conflicts.COLUNAS))
    return 0


def cmd_aceitar(args: argparse.Namespace) -> int:
    logs.configure(args.log_level)
    with db.connect(database_url.url(), autocommit=True) as conn:
        feito = conflicts.aceitar(conn, config.load(), uuid_arg(args.event_id), args.by)
    emitir(
        args,
        feito,
        lambda f: (
            f"demanda {f['demanda_id']} keeps event {f['event_id']}: "
            + (
                "its answer stays; changes of the territory meanwhile are followed up"
                if f["desfecho"] == "mantida"
                else f"{f['desfecho']} (the answer of event {f['titular']} was replaced)"
            )
        ),
    )
    return 0


def registrar(sub: Any) -> None:
    g = grupo(
        sub,
        "conflicts",
        help="demandas whose demanda_id came twice with other coordinates or address",
        description="A demanda_id held by one event that comes again under another event "
        "with other coordinates or address is not decided by arrival order (any producer "
        "can publish first): the later event waits here, nothing more is published for the "
        "demanda, and an operator keeps one event (aceitar). A retry with the same content "
        "is a dead letter, as before.",
    )
    comando(
        g,
        "list",
        cmd_list,
        json_flag=True,
        limite=100,
        help="undecided conflicts: each demanda's events, which one holds it, where each "
        "says it is",
    )
    p_aceitar = comando(
        g,
        "aceitar",
        cmd_aceitar,
        json_flag=True,
        help="keep this event for its demanda: its answer is stored and published (the "
        "other events are recorded as refused)",
    )
    p_aceitar.add_argument("event_id", metavar="EVENT_ID")
    p_aceitar.add_argument("--by", required=True, help="who decides (recorded)")
    p_aceitar.add_argument("--log-level", default="INFO")
