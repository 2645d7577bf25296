"""The `d2` command: parses arguments, calls one function, renders, sets the exit code.

One module per command group, named after the command (`d2 dlq` → d2.cli.dlq), each with
a `registrar(sub)` that adds its commands; `common` holds what they share: the parser,
the one renderer of text and --json, the argument types. `database_url` decides the
database once per command."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from d2 import errors
from d2.cli import (
    bench,
    cep,
    conflicts,
    database_url,
    db,
    demo,
    dlq,
    drawings,
    geocoding,
    html_map,
    imports,
    mirror,
    nominatim,
    regeorreferenciar,
    resolve,
    revisoes,
    status,
    worker,
)
from d2.cli.common import Command, Parser
from d2.terminal import visivel

AREAS = (
    db, resolve, mirror, imports, worker, status, dlq, revisoes, conflicts, regeorreferenciar,
    html_map, drawings, nominatim, geocoding, cep, demo, bench,
)  # fmt: skip


def build_parser() -> Parser:
    parser = Parser(
        prog="d2",
        description=(
            "D-2 Georreferenciamento: resolves the civic unit (bairro, município, UF, região, "
            "Brasil) of each demanda.normalizada and publishes demanda.georreferenciada. "
            "Uses DATABASE_URL, or a private PostGIS cluster under ./.d2/ when it is unset."
        ),
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for area in AREAS:
        area.registrar(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    bruto = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(_protect_negative_numbers(bruto))
    handler: Command = args.handler
    database_url.url.cache_clear()  # one decision per command, also when main runs twice
    try:
        return handler(args)
    except errors.D2Error as exc:
        # One line, whatever a name or a database message inside it holds.
        print(f"d2: error: {visivel(str(exc))}", file=sys.stderr)
        return 2 if isinstance(exc, errors.InvalidInput | errors.ConfigError) else 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `d2 ... | head`: the reader left; not an error of ours.
        sys.stderr.close()
        return 0


def _protect_negative_numbers(argv: list[str]) -> list[str]:
    """Negative coordinates look like options to argparse: `d2 resolve -23.5 -46.6`."""
    asks_help = any(arg in ("-h", "--help") for arg in argv)
    if argv[:1] == ["resolve"] and "--" not in argv and not asks_help:
        return ["resolve", "--", *argv[1:]]
    return argv
