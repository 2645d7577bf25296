"""`d2 territorio`: citizen-drawn polygons for moderators (list, show, accept, reject,
health) and the consumer of lugar.cadastrado (consumir)."""

from __future__ import annotations

import argparse
import json
import time
import uuid
from typing import Any

from d2 import ambiente, config, db, errors, logs, territorio


def _uuid(texto: str) -> uuid.UUID:
    try:
        return uuid.UUID(texto)
    except ValueError:
        raise errors.InvalidInput(f"not a UUID: {texto!r}") from None


def _json(valor: Any) -> None:
    print(json.dumps(valor, ensure_ascii=False, indent=2, default=str))


def _tabela(linhas: list[dict[str, Any]], colunas: tuple[str, ...]) -> str:
    if not linhas:
        return "(nothing)"
    texto = [[("" if r[c] is None else str(r[c])) for c in colunas] for r in linhas]
    larguras = [max(len(c), *(len(t[i]) for t in texto)) for i, c in enumerate(colunas)]
    cabecalho = "  ".join(c.ljust(w) for c, w in zip(colunas, larguras, strict=True))
    corpo = ["  ".join(v.ljust(w) for v, w in zip(t, larguras, strict=True)) for t in texto]
    return "\n".join([cabecalho, *corpo])


def cmd_list(args: argparse.Namespace) -> int:
    with db.connect(ambiente.url(), autocommit=True) as conn:
        linhas = territorio.listar(conn, pendentes=not args.all, limite=args.limit)
    if args.json:
        _json(linhas)
    else:
        print(
            _tabela(
                linhas,
                ("submissao_id", "decisao", "nivel", "nome", "uc_nome", "sobreposicao",
                 "moderacao", "canonica", "criado_em"),
            )
        )  # fmt: skip
    return 0


def cmd_mostrar(args: argparse.Namespace) -> int:
    with db.connect(ambiente.url(), autocommit=True) as conn:
        dados = territorio.mostrar(conn, _uuid(args.submissao))
    _json(dados)
    return 0


def cmd_moderar(args: argparse.Namespace) -> int:
    logs.configure(args.log_level)
    with db.connect(ambiente.url(), autocommit=True) as conn:
        efeito = territorio.moderar(conn, _uuid(args.submissao), args.acao, args.por)
    _json(efeito)
    return 0


def cmd_saude(args: argparse.Namespace) -> int:
    with db.connect(ambiente.url(), autocommit=True) as conn:
        linhas = territorio.saude(conn, args.limit)
    if args.json:
        _json(linhas)
    else:
        print(
            _tabela(
                linhas,
                ("unidade_civica_id", "nome", "nivel", "suspeita", "demandas_dentro",
                 "revisoes_perto", "resolvidas_fora_perto", "confirmacoes", "alternativas"),
            )
        )  # fmt: skip
    return 0


def cmd_consumir(args: argparse.Namespace) -> int:
    logs.configure(args.log_level)
    settings = config.load()
    total = territorio.Resultado()
    with db.connect(ambiente.url(), autocommit=True, application_name="d2-territorio") as conn:
        while True:
            total.somar(territorio.drenar(conn, settings))
            if args.drain:
                break
            time.sleep(settings.poll_interval_s)
    _json(total.as_json())
    return 0


def add_commands(sub: Any) -> None:
    """Register `d2 territorio ...` on the top-level subparsers."""
    p = sub.add_parser(
        "territorio",
        help="citizen-drawn polygons: moderation queue, consensus, evidence by use",
        description="Citizen-drawn bairros and micro-areas (spec 8.5, layer 2). Drawings "
        "arrive as lugar.cadastrado events (tipo_lugar 'poligono_uc'); each becomes a new "
        "community UC, a confirmation of an existing polygon (overlap > 80%%), an "
        "alternative for a moderator (50-80%%), or a rejection with its reason.",
    )
    t = p.add_subparsers(dest="territorio_command", required=True, metavar="ACTION")

    p_list = t.add_parser("list", help="alternatives awaiting a moderator (--all: every drawing)")
    p_list.add_argument("--all", action="store_true", help="every submission, newest first")
    p_list.add_argument("--limit", type=int, default=100)
    p_list.add_argument("--json", action="store_true")
    p_list.set_defaults(handler=cmd_list)

    p_show = t.add_parser("mostrar", help="one submission: geometry, decision, the UC's versions")
    p_show.add_argument("submissao", metavar="SUBMISSAO_ID")
    p_show.set_defaults(handler=cmd_mostrar)

    for acao, ajuda in (
        ("aceitar", "make a version the UC's canonical geometry (community UCs only)"),
        ("rejeitar", "drop a version from the consensus, or remove the UC a drawing created"),
    ):
        p_acao = t.add_parser(acao, help=ajuda)
        p_acao.add_argument("submissao", metavar="SUBMISSAO_ID")
        p_acao.add_argument("--por", required=True, help="who decides (recorded)")
        p_acao.add_argument("--log-level", default="INFO")
        p_acao.set_defaults(handler=cmd_moderar, acao=acao)

    p_saude = t.add_parser(
        "saude", help="community polygons ranked by how much use says their shape is wrong"
    )
    p_saude.add_argument("--limit", type=int, default=50)
    p_saude.add_argument("--json", action="store_true")
    p_saude.set_defaults(handler=cmd_saude)

    p_cons = t.add_parser(
        "consumir", help="consume lugar.cadastrado drawings (--drain: what is pending, then exit)"
    )
    p_cons.add_argument("--drain", action="store_true")
    p_cons.add_argument("--log-level", default="INFO")
    p_cons.set_defaults(handler=cmd_consumir)
