"""`d2 revisoes list|reprocessar|atribuir|descartar`: the review queue (points in no
polygon), answered by today's polygons and the near rule, or closed by an operator."""

from __future__ import annotations

import argparse
import getpass
from typing import Any

from d2 import config, db, logs
from d2.cli import database_url
from d2.cli.common import comando, em_dia, emitir, flag, grupo, uuid_arg
from d2.ops import revisoes


def _texto_reprocessar(r: dict[str, Any]) -> str:
    """What `d2 revisoes reprocessar` did, for a person (--json for programs)."""
    niveis = ", ".join(f"level {n}: {q}" for n, q in r["por_nivel"].items())
    return (
        f"{r['examinadas']} reviews examined: {r['resolvidas']} resolved and published"
        + (f" ({niveis})" if niveis else "")
        + (
            f", {r['por_proximidade']} of them by the near rule (one município within "
            f"{r['distancia_m']:g} m)"
            if r["por_proximidade"]
            else ""
        )
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


def cmd_revisoes_atribuir(args: argparse.Namespace) -> int:
    logs.configure(args.log_level)
    settings = config.load()
    with db.connect(database_url.url(), autocommit=True) as conn:
        em_dia(conn)
        feito = revisoes.atribuir(
            conn,
            settings,
            uuid_arg(args.demanda_id),
            uuid_arg(args.uc),
            por=args.by,
            motivo=args.reason,
        )
    emitir(args, feito, revisoes.formatar_atribuicao)
    return 0


def cmd_revisoes_descartar(args: argparse.Namespace) -> int:
    logs.configure(args.log_level)
    settings = config.load()
    with db.connect(database_url.url(), autocommit=True) as conn:
        feito = revisoes.descartar(
            conn, settings, uuid_arg(args.demanda_id), motivo=args.reason, por=args.by
        )
    emitir(args, feito, revisoes.formatar_descarte)
    return 0


def _quem() -> str:
    """Who runs the command, as the operating system names them (the default of --by)."""
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no login name, no passwd entry (a container's uid)
        return "unknown"


def registrar(sub: Any) -> None:
    grupo_revisoes = grupo(
        sub,
        "revisoes",
        help="the review queue (points in no polygon): list, answer again, close by hand",
        description="A GPS point in no polygon is answered at the one município within "
        "D2_REVISAO_DISTANCIA_M of it (the near rule); any other waits here for new "
        "polygons (reprocessar) or for an operator (atribuir, descartar). "
        "docs/monolith.md, 'The review queue'.",
    )
    comando(
        grupo_revisoes,
        "list",
        cmd_revisoes_list,
        json_flag=True,
        limite=100,
        help="pending reviews, oldest first, each with the nearest unit (--uc to give it)",
    )
    p_rev_re = comando(
        grupo_revisoes,
        "reprocessar",
        cmd_revisoes_reprocessar,
        json_flag=True,
        help="answer the queue by today's polygons and the near rule; publishes what now resolves",
    )
    p_rev_re.add_argument("--log-level", default="WARNING")
    p_atribuir = comando(
        grupo_revisoes,
        "atribuir",
        cmd_revisoes_atribuir,
        json_flag=True,
        help="answer a review at the unit you chose: stored, recorded and published once",
    )
    p_atribuir.add_argument("--uc", required=True, metavar="UC_ID", help="the unit's id")
    _quem_e_por_que(p_atribuir, motivo_obrigatorio=False)
    p_descartar = comando(
        grupo_revisoes,
        "descartar",
        cmd_revisoes_descartar,
        json_flag=True,
        help="close a review with no answer: recorded, nothing published",
    )
    _quem_e_por_que(p_descartar, motivo_obrigatorio=True)


def _quem_e_por_que(parser: Any, *, motivo_obrigatorio: bool) -> None:
    """An operator's action on one review: the demanda, why, who (all recorded)."""
    quem = _quem()
    parser.add_argument("demanda_id", metavar="DEMANDA_ID")
    flag(
        parser,
        "--reason",
        "--motivo",
        required=motivo_obrigatorio,
        default=None,
        metavar="TEXT",
        help="why (recorded)",
    )
    parser.add_argument(
        "--by", default=quem, metavar="NAME", help=f"who decides (recorded; default {quem})"
    )
    parser.add_argument("--log-level", default="WARNING")
