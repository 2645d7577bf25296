"""What every `d2` command shares: the parser class (English flags, the old Portuguese
spellings accepted but kept out of --help), the one renderer of text and --json, and the
argument types that turn bad input into one line."""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from d2 import config, db, errors
from d2.ops import freshness
from d2.terminal import json_seguro, limpar, visivel
from d2.territorio import resolver

Command = Callable[[argparse.Namespace], int]

# Old spelling → the flag that replaced it. Scripts written against the old names keep
# working; --help shows only the new one.
APELIDOS: dict[str, str] = {}
# The same for commands (`d2 mapa` → `d2 map`).
COMANDOS_ANTIGOS: dict[str, str] = {}


class _Formatter(argparse.HelpFormatter):
    def _format_action_invocation(self, action: argparse.Action) -> str:
        if any(o in APELIDOS for o in action.option_strings):
            visivel = argparse.Action(
                [o for o in action.option_strings if o not in APELIDOS],
                action.dest,
                nargs=action.nargs,
                metavar=action.metavar,
            )
            return super()._format_action_invocation(visivel)
        return super()._format_action_invocation(action)


class Parser(argparse.ArgumentParser):
    """argparse's parser with the alias-hiding help; subcommands inherit it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)


def flag(parser: argparse.ArgumentParser, nome: str, *antigos: str, **kwargs: Any) -> None:
    """Add the English flag `nome`, accepting each of `antigos` as the same option."""
    for antigo in antigos:
        APELIDOS[antigo] = nome
    parser.add_argument(nome, *antigos, **kwargs)


def comando(
    sub: Any,
    nome: str,
    handler: Command,
    *,
    json_flag: bool = False,
    limite: int | None = None,
    antigos: Sequence[str] = (),
    **kwargs: Any,
) -> argparse.ArgumentParser:
    """A leaf command: its parser, the function that runs it, --json when it has a text
    form too, --limit (default `limite`) when it lists rows, and the old spellings of its
    name that still run it."""
    parser: argparse.ArgumentParser = sub.add_parser(nome, **kwargs)
    _apelidar(sub, nome, parser, antigos)
    if json_flag:
        parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    if limite is not None:
        parser.add_argument(
            "--limit", type=positivo, default=limite, help=f"at most N rows (default {limite})"
        )
    parser.set_defaults(handler=handler)
    return parser


def grupo(sub: Any, nome: str, antigos: Sequence[str] = (), **kwargs: Any) -> Any:
    """A command with actions under it (`d2 db start`, `d2 dlq list`...)."""
    parser = sub.add_parser(nome, **kwargs)
    _apelidar(sub, nome, parser, antigos)
    return parser.add_subparsers(dest=f"{nome}_command", required=True, metavar="ACTION")


def _apelidar(sub: Any, nome: str, parser: argparse.ArgumentParser, antigos: Sequence[str]) -> None:
    # add_parser(aliases=...) would list them in --help; put straight into the map
    # argparse resolves names from, they parse without showing.
    for antigo in antigos:
        sub._name_parser_map[antigo] = parser
        COMANDOS_ANTIGOS[antigo] = nome


def fila(
    sub: Any,
    cmd_list: Command,
    cmd_retry: Command,
    *,
    list_help: str,
    retry_help: str,
    all_help: str,
) -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """`list` and `retry` of a queue of events that wait (dead letters, address demands):
    retry takes one EVENT_ID or --all (read them with event_ids)."""
    p_list = comando(sub, "list", cmd_list, json_flag=True, limite=100, help=list_help)
    p_retry = comando(sub, "retry", cmd_retry, help=retry_help)
    p_retry.add_argument("event_id", nargs="?", metavar="EVENT_ID", help="one event id")
    p_retry.add_argument("--all", action="store_true", help=all_help)
    return p_list, p_retry


def event_ids(args: argparse.Namespace) -> list[uuid.UUID] | None:
    """retry's events: [EVENT_ID], or None for --all."""
    if not args.all and not args.event_id:
        raise errors.InvalidInput("give an EVENT_ID or --all")
    return None if args.all else [uuid_arg(args.event_id)]


def emitir(args: argparse.Namespace, dados: Any, texto: Callable[[Any], str] | None = None) -> None:
    """The one renderer: JSON when the command has no text form or --json was given,
    otherwise `texto(dados)`. Names, error texts and ids come from citizens and other
    colonies: the text form shows their control, bidi and zero-width characters as
    escapes (d2/terminal.py), both in the data handed to `texto` and in what it returns
    (but its own line feeds and tabs); the JSON form escapes them as \\uXXXX, which
    decodes to the same value."""
    if texto is None or getattr(args, "json", False):
        print(json_seguro(json.dumps(dados, ensure_ascii=False, indent=2, default=str)))
    else:
        print(visivel(texto(limpar(dados)), manter="\n\t"))


def emitir_linha(dados: Any) -> None:
    """One JSON object per line, flushed: for streams another program reads as they come."""
    print(json_seguro(json.dumps(dados, ensure_ascii=False, default=str)), flush=True)


def dizer(linha: str) -> None:
    """One line for a person on stderr (progress, warnings), its controls escaped."""
    print(visivel(linha), file=sys.stderr, flush=True)


def chave_valor(dados: dict[str, Any]) -> str:
    """key  value, one pair a line; keys and values shown with their controls escaped."""
    pares = [(visivel(str(k)), visivel(str(v))) for k, v in dados.items()]
    largura = max((len(k) for k, _ in pares), default=0) + 2
    return "\n".join(f"{k:{largura}}{v}" for k, v in pares)


def _celula(valor: Any) -> str:
    """A value as a person reads it in a table: no Python spelling (None, True, a
    timestamp's microseconds and offset)."""
    if valor is None:
        return ""
    if isinstance(valor, bool):
        return "yes" if valor else "no"
    if isinstance(valor, datetime.datetime):
        return f"{valor:%Y-%m-%d %H:%M:%S}"
    return visivel(str(valor))


def tabela(linhas: Sequence[dict[str, Any]], colunas: Iterable[str]) -> str:
    """Rows under a header, columns aligned; every cell shown with its controls escaped,
    so a value can neither forge a row nor drive the terminal."""
    colunas = tuple(colunas)
    if not linhas:
        return "(nothing)"
    texto = [[_celula(r[c]) for c in colunas] for r in linhas]
    larguras = [max(len(c), *(len(t[i]) for t in texto)) for i, c in enumerate(colunas)]
    cabecalho = "  ".join(c.ljust(w) for c, w in zip(colunas, larguras, strict=True))
    corpo = ["  ".join(v.ljust(w) for v, w in zip(t, larguras, strict=True)) for t in texto]
    return "\n".join([cabecalho, *corpo])


def uuid_arg(texto: str) -> uuid.UUID:
    try:
        return uuid.UUID(texto)
    except ValueError:
        raise errors.InvalidInput(f"not a UUID: {texto!r}") from None


def date_arg(texto: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(texto)
    except ValueError:
        raise errors.InvalidInput(f"not a date (YYYY-MM-DD): {texto!r}") from None


def positivo(texto: str) -> int:
    try:
        valor = int(texto)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {texto!r}") from None
    if valor < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return valor


def tolerancia(texto: str) -> float:
    try:
        valor = float(texto.replace(",", "."))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {texto!r}") from None
    if valor < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return valor


def em_dia(conn: db.Connection, *, seguir: bool = False) -> freshness.Freshness:
    """Before a command answers from the mirror: apply what writers left waiting (and with
    seguir, follow the change up to the stored answers), within D2_SYNC_TIMEOUT; say on
    stderr what was done, or what still waits and why. conn must be autocommit."""
    settings = config.load()
    estado = freshness.atualizar(
        conn, settings.sync_timeout_s, seguir=resolver.NearRule.de(settings) if seguir else None
    )
    for linha in estado.linhas():
        dizer(linha)
    return estado
