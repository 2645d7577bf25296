"""`d2 revisoes list|reprocessar`: the manual review queue (points in no polygon)."""

from __future__ import annotations

import argparse
from typing import Any

from d2 import config, db, logs
from d2.cli import database_url
from d2.cli.common import comando, em_dia, emitir, grupo
from d2.ops import revisoes


def _texto_reprocessar(r: dict[str, Any]) -> str:
    """What `d2 revisoes reprocessar` did, for a person (--json for programs)."""
    niveis = ", ".join(f"level {n}: {q}" for n, q in r["por_nivel"].items())
    return (
        f"{r['examinadas']} reviews examined: {r['resolvidas']} resolved and published"
        + (f" ({niveis})" if niveis else "")
        + f", {r['continuam_pendentes']} still in no polygon"
    )


def cmd_revisoes_list(args: argparse.Namespace) -> int:
    with db.connect(database_url.url(), autocommit=True) as conn:
        em_dia(conn)
        emitir(args, revisoes.listar(conn, args.limit), revisoes.formatar)
    return 0


def cmd_revisoes_reprocessar(args: argparse.Namespace) -> int:
    logs.configure(args.log_level)
    with db.connect(database_url.url(), autocommit=True) as conn:
        em_dia(conn)
        emitir(args, revisoes.reprocessar(conn, config.load()), _texto_reprocessar)
    return 0


def registrar(sub: Any) -> None:
    grupo_revisoes = grupo(sub, "revisoes", help="the manual review queue (points in no polygon)")
    comando(
        grupo_revisoes,
        "list",
        cmd_revisoes_list,
        json_flag=True,
        limite=100,
        help="pending reviews, oldest first",
    )
    p_rev_re = comando(
        grupo_revisoes,
        "reprocessar",
        cmd_revisoes_reprocessar,
        json_flag=True,
        help="resolve the queue against today's polygons; publishes what now resolves",
    )
    p_rev_re.add_argument("--log-level", default="WARNING")
