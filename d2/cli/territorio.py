"""`d2 territorio …`: citizen-drawn polygons for moderators (list, show, accept, reject,
health) and the consumer of lugar.cadastrado (consumir)."""

from __future__ import annotations

import argparse
import time
from typing import Any

from d2 import config, db, logs
from d2.cli import database_url
from d2.cli.common import comando, em_dia, emitir, flag, grupo, tabela, uuid_arg
from d2.territorio import comunitario

COLUNAS_LISTA = (
    "submissao_id", "decisao", "nivel", "nome", "uc_nome", "sobreposicao", "moderacao",
    "canonica", "criado_em",
)  # fmt: skip
COLUNAS_SAUDE = (
    "unidade_civica_id", "nome", "nivel", "suspeita", "demandas_dentro", "revisoes_perto",
    "resolvidas_fora_perto", "confirmacoes", "alternativas",
)  # fmt: skip


def cmd_list(args: argparse.Namespace) -> int:
    with db.connect(database_url.url(), autocommit=True) as conn:
        linhas = comunitario.listar(conn, pendentes=not args.all, limite=args.limit)
    emitir(args, linhas, lambda ls: tabela(ls, COLUNAS_LISTA))
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    with db.connect(database_url.url(), autocommit=True) as conn:
        emitir(args, comunitario.mostrar(conn, uuid_arg(args.submissao)))
    return 0


def cmd_moderar(args: argparse.Namespace) -> int:
    logs.configure(args.log_level)
    with db.connect(database_url.url(), autocommit=True) as conn:
        efeito = comunitario.moderar(conn, uuid_arg(args.submissao), args.acao, args.by)
    emitir(args, efeito)
    return 0


def cmd_health(args: argparse.Namespace) -> int:
    with db.connect(database_url.url(), autocommit=True) as conn:
        em_dia(conn, seguir=True)
        linhas = comunitario.saude(conn, args.limit)
    emitir(args, linhas, lambda ls: tabela(ls, COLUNAS_SAUDE))
    return 0


def cmd_consume(args: argparse.Namespace) -> int:
    logs.configure(args.log_level)
    settings = config.load()
    total = comunitario.Result()
    with db.connect(database_url.url(), autocommit=True, application_name="d2-territorio") as conn:
        while True:
            # A drawing is judged against the mirror (the município holding it, the
            # polygons it overlaps): bring it up to date first, as the worker does.
            em_dia(conn)
            total.somar(comunitario.drenar(conn, settings))
            if args.drain:
                break
            time.sleep(settings.poll_interval_s)
    emitir(args, total.as_json())
    return 0


def registrar(sub: Any) -> None:
    t = grupo(
        sub,
        "territorio",
        help="citizen-drawn polygons: moderation queue, consensus, evidence by use",
        description="Citizen-drawn bairros and micro-areas (spec 8.5, layer 2). Drawings "
        "arrive as lugar.cadastrado events (tipo_lugar 'poligono_uc'); each becomes a new "
        "community UC, a confirmation of an existing polygon (overlap > 80%%), an "
        "alternative for a moderator (50-80%%), or a rejection with its reason.",
    )
    p_list = comando(
        t,
        "list",
        cmd_list,
        json_flag=True,
        limite=100,
        help="alternatives awaiting a moderator (--all: every drawing)",
    )
    p_list.add_argument("--all", action="store_true", help="every submission, newest first")

    p_show = comando(
        t,
        "show",
        cmd_show,
        antigos=("mostrar",),
        help="one submission: geometry, decision, the UC's versions",
    )
    p_show.add_argument("submissao", metavar="SUBMISSAO_ID")

    for acao, ajuda in (
        ("aceitar", "make a version the UC's canonical geometry (community UCs only)"),
        ("rejeitar", "drop a version from the consensus, or remove the UC a drawing created"),
    ):
        p_acao = comando(t, acao, cmd_moderar, help=ajuda)
        p_acao.add_argument("submissao", metavar="SUBMISSAO_ID")
        flag(p_acao, "--by", "--por", required=True, help="who decides (recorded)")
        p_acao.add_argument("--log-level", default="INFO")
        p_acao.set_defaults(acao=acao)

    comando(
        t,
        "health",
        cmd_health,
        antigos=("saude",),
        json_flag=True,
        limite=50,
        help="community polygons ranked by how much use says their shape is wrong",
    )

    p_cons = comando(
        t,
        "consume",
        cmd_consume,
        antigos=("consumir",),
        help="consume lugar.cadastrado drawings (--drain: what is pending, then exit)",
    )
    p_cons.add_argument("--drain", action="store_true")
    p_cons.add_argument("--log-level", default="INFO")
