"""`d2 territorio …` (the command keeps its name; the module is named after what it acts on):
citizen-drawn polygons for moderators (list, show, accept, reject, health) and the consumer
of lugar.cadastrado (consumir)."""

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
COLUNAS_HEALTH = (
    "unidade_civica_id", "nome", "nivel", "suspeita", "demandas_dentro", "revisoes_perto",
    "resolvidas_fora_perto", "confirmacoes", "alternativas",
)  # fmt: skip


# What a moderator's decision did (d2.territorio_moderar's efeito), in words.
EFEITOS = {
    "criada": "a new community UC",
    "canonica": "now the UC's canonical geometry",
    "removida": "the UC it created is removed",
    "registrada": "recorded; the territory is unchanged",
}
# A drawing's decision, and the consumer's other ends, in words.
FINS = {
    "nova": "new UCs",
    "confirmacao": "confirmations",
    "alternativa": "alternatives for a moderator",
    "retida": "held for a moderator",
    "rejeitada": "rejected",
    "ignorados": "not drawings",
    "ja_registrados": "already recorded",
    "dead_letters": "dead letters",
    "alertas": "moderation alerts raised",
    "canonicas_mudadas": "canonical geometries changed",
}


def _texto_moderacao(acao: str, efeito: dict[str, Any]) -> str:
    return (
        f"{acao}: {EFEITOS.get(efeito['efeito'], efeito['efeito'])} "
        f"(UC {efeito['unidade_civica_id']})"
    )


def _texto_drawing(s: dict[str, Any]) -> str:
    """One submission for a moderator (--json: the data, with its GeoJSON)."""
    linhas = [
        f"submission {s['submissao_id']}: {s['decisao']}"
        + (f" ({s['motivo']})" if s["motivo"] else ""),
        f"  drawn as {s['nome'] or 'no name'} (level {s['nivel']}) "
        f"in {s['municipio_nome'] or 'no município'}, "
        f"{s['criado_em']:%Y-%m-%d %H:%M:%S}, {s['area_m2']} m²"
        + (", repaired" if s["reparada"] else ""),
    ]
    if s["unidade_civica_id"] is not None:
        linhas.append(
            f"  for UC {s['unidade_civica_id']} ({s['uc_nome']}, {s['uc_fonte']}), "
            f"overlap {s['sobreposicao']}" + (", its canonical geometry" if s["canonica"] else "")
        )
    if s["moderacao"]:
        linhas.append(
            f"  moderation: {s['moderacao']}"
            + (
                f" by {s['moderado_por']}, {s['moderado_em']:%Y-%m-%d %H:%M:%S}"
                if s["moderado_em"] is not None
                else ""
            )
        )
    if s["versoes"]:
        colunas = ("submissao_id", "decisao", "sobreposicao", "moderacao", "canonica", "criado_em")
        linhas += ["", "the UC's versions:", tabela(s["versoes"], colunas)]
    return "\n".join(linhas)


def _texto_consumo(total: dict[str, int]) -> str:
    feitos = [f"{n} {FINS.get(fim, fim)}" for fim, n in total.items() if n]
    return "drawings handled: " + (", ".join(feitos) if feitos else "none")


def cmd_list(args: argparse.Namespace) -> int:
    with db.connect(database_url.url(), autocommit=True) as conn:
        linhas = comunitario.listar(conn, pendentes=not args.all, limite=args.limit)
    emitir(args, linhas, lambda ls: tabela(ls, COLUNAS_LISTA))
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    with db.connect(database_url.url(), autocommit=True) as conn:
        emitir(args, comunitario.mostrar(conn, uuid_arg(args.drawing)), _texto_drawing)
    return 0


def cmd_moderar(args: argparse.Namespace) -> int:
    logs.configure(args.log_level)
    with db.connect(database_url.url(), autocommit=True) as conn:
        efeito = comunitario.moderar(conn, uuid_arg(args.drawing), args.acao, args.by)
    emitir(args, efeito, lambda e: _texto_moderacao(args.acao, e))
    return 0


def cmd_health(args: argparse.Namespace) -> int:
    with db.connect(database_url.url(), autocommit=True) as conn:
        em_dia(conn, seguir=True)
        linhas = comunitario.health(conn, args.limit)
    emitir(args, linhas, lambda ls: tabela(ls, COLUNAS_HEALTH))
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
    emitir(args, total.as_json(), _texto_consumo)
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
        json_flag=True,
        help="one submission: decision, the UC's versions (--json: with its GeoJSON)",
    )
    p_show.add_argument("drawing", metavar="SUBMISSAO_ID")

    for acao, ajuda in (
        ("aceitar", "make a version the UC's canonical geometry (community UCs only)"),
        ("rejeitar", "drop a version from the consensus, or remove the UC a drawing created"),
    ):
        p_acao = comando(t, acao, cmd_moderar, json_flag=True, help=ajuda)
        p_acao.add_argument("drawing", metavar="SUBMISSAO_ID")
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
        json_flag=True,
        help="consume lugar.cadastrado drawings (--drain: what is pending, then exit)",
    )
    p_cons.add_argument("--drain", action="store_true")
    p_cons.add_argument("--log-level", default="INFO")
