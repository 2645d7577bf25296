"""`d2 nominatim import|status`: the self-hosted Nominatim that geocodes addresses."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from d2 import config
from d2.cli import database_url
from d2.cli.common import comando, dizer, emitir, flag, grupo
from d2.geocoder.nominatim import importer
from d2.terminal import visivel


def cmd_nominatim_import(args: argparse.Namespace) -> int:
    settings = config.load()

    def progresso(linha: str) -> None:
        if not args.quiet:
            dizer(linha)

    resumo = importer.importar(
        settings,
        database_url.url_do_banco(settings),
        Path(args.file),
        criar_papel_web=args.create_web_role,
        forcar=args.force,
        threads=args.threads,
        progresso=progresso,
    )
    print(visivel(f"nominatim: {resumo['arquivo']} imported in {resumo['segundos']:.1f} s"))
    return 0


def _texto_status(d: dict[str, Any]) -> str:
    """`d2 nominatim status` for a person: sentences, dates as dates (--json for programs)."""
    if d["modo"] == "http":
        linhas = [f"Nominatim over HTTP at {d['url']} (D2_NOMINATIM_URL)"]
    elif not d["carregado"]:
        linhas = [
            f"Nominatim: database {d['banco']} "
            + (f"cannot be read: {d['erro']}" if d.get("erro") else "does not exist")
            + "  → d2 nominatim import FILE"
        ]
    else:
        linhas = [
            f"Nominatim: database {d['banco']}, version {d['versao']}",
            f"  {d['lugares']:,} places, {d['ruas_e_casas']:,} streets and houses, "
            f"{d['ceps']:,} postcodes",
            "  built by d2 nominatim import: the next import rebuilds it"
            if d["marcado"]
            else "  not built by d2 nominatim import: the next import drops it only with --force",
        ]
    ultima = d["ultima_importacao"]
    if ultima is None:
        linhas.append("last import: none recorded")
    else:
        linhas.append(
            f"last import: {ultima['arquivo']} ({ultima['bytes'] / 1e6:,.1f} MB) in "
            f"{ultima['duracao_s']:.1f} s, finished {ultima['concluida_em']:%Y-%m-%d %H:%M:%S %Z}"
        )
    linhas.append(f"address demands waiting for the geocoder: {d['geocodificacoes_pendentes']}")
    return "\n".join(linhas)


def cmd_nominatim_status(args: argparse.Namespace) -> int:
    settings = config.load()
    dados = importer.status(settings, database_url.url_do_banco(settings))
    emitir(args, dados, _texto_status)
    return 0 if dados.get("carregado", True) else 3


def registrar(sub: Any) -> None:
    grupo_nominatim = grupo(
        sub, "nominatim", help="the self-hosted Nominatim that geocodes addresses"
    )
    p_imp = comando(
        grupo_nominatim,
        "import",
        cmd_nominatim_import,
        help="build (or rebuild) the Nominatim database from an OSM file",
        description=(
            "Builds the database `nominatim` on DATABASE_URL's server (D2_NOMINATIM_DSN for "
            "another) with Nominatim's importer. An existing one is dropped first only when "
            "an earlier import built it (D-2's mark), or with --force; DATABASE_URL's own "
            "database never. Needs osm2pgsql and Nominatim's web role "
            "(NOMINATIM_DATABASE_WEBUSER, default www-data). Empties the workers' address "
            "caches."
        ),
    )
    p_imp.add_argument("file", help=".osm, .osm.pbf or .osm.bz2")
    flag(
        p_imp,
        "--create-web-role",
        "--criar-papel-web",
        action="store_true",
        help="create the web role when missing (LOGIN, CONNECTION LIMIT 0)",
    )
    p_imp.add_argument(
        "--force",
        action="store_true",
        help="drop an existing database that no earlier import built (never DATABASE_URL's)",
    )
    p_imp.add_argument("--threads", type=int, default=2, help="importer threads (default 2)")
    p_imp.add_argument("--quiet", action="store_true", help="no progress lines")
    comando(
        grupo_nominatim,
        "status",
        cmd_nominatim_status,
        json_flag=True,
        help="what is loaded (exit 3 when nothing)",
    )
