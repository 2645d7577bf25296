"""The `d2` commands of textual addresses (issue 14): `d2 nominatim import|status` and
`d2 geocodificacoes list|retry` (the address demands waiting for the geocoder)."""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from pathlib import Path
from typing import Any

from d2 import ambiente, config, db, errors


def _print_json(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2, default=str))


def cmd_nominatim_import(args: argparse.Namespace) -> int:
    from d2.geocoder import importacao

    settings = config.load()

    def progresso(linha: str) -> None:
        if not args.quiet:
            print(linha, file=sys.stderr, flush=True)

    resumo = importacao.importar(
        settings,
        ambiente.url_do_banco(settings),
        Path(args.file),
        criar_papel_web=args.criar_papel_web,
        threads=args.threads,
        progresso=progresso,
    )
    print(f"nominatim: {resumo['arquivo']} imported in {resumo['segundos']:.1f} s")
    return 0


def cmd_nominatim_status(args: argparse.Namespace) -> int:
    from d2.geocoder import importacao

    settings = config.load()
    dados = importacao.status(settings, ambiente.url_do_banco(settings))
    if args.json:
        _print_json(dados)
        return 0 if dados.get("carregado", True) else 3
    for chave, valor in dados.items():
        print(f"{chave:26} {valor}")
    return 0 if dados.get("carregado", True) else 3


def cmd_geocodificacoes_list(args: argparse.Namespace) -> int:
    with db.connect(ambiente.url(), autocommit=True) as conn, db.mapped_errors():
        linhas = [dict(r) for r in conn.execute(db.q("geocoder_listar"), {"limite": args.limit})]
    if args.json:
        _print_json(linhas)
        return 0
    if not linhas:
        print("no address demand is waiting for the geocoder")
    for r in linhas:
        print(
            f"{r['event_id']}  seq {r['sequence_number']}  tries {r['tentativas']}  "
            f"next {r['proxima_tentativa']:%Y-%m-%d %H:%M:%S}  {r['ultimo_erro'] or ''}"
        )
    return 0


def cmd_geocodificacoes_retry(args: argparse.Namespace) -> int:
    if not args.all and not args.event_id:
        raise errors.InvalidInput("give an event id or --all")
    ids: list[uuid.UUID] | None = None
    if not args.all:
        try:
            ids = [uuid.UUID(args.event_id)]
        except ValueError:
            raise errors.InvalidInput(f"not a UUID: {args.event_id!r}") from None
    with db.connect(ambiente.url(), autocommit=True) as conn, db.mapped_errors():
        feitos = conn.execute(db.q("geocoder_agora"), {"event_ids": ids}).fetchall()
    print(f"{len(feitos)} address demands due now; the worker's geocoding stage takes them")
    return 0


def add_commands(sub: Any) -> None:
    p_nom = sub.add_parser("nominatim", help="the self-hosted Nominatim that geocodes addresses")
    nom_sub = p_nom.add_subparsers(dest="nominatim_command", required=True, metavar="ACTION")
    p_imp = nom_sub.add_parser(
        "import",
        help="build (or rebuild) the Nominatim database from an OSM file",
        description=(
            "Builds the database `nominatim` on DATABASE_URL's server (D2_NOMINATIM_DSN for "
            "another) with Nominatim's importer; an existing one is dropped first. Needs "
            "osm2pgsql and Nominatim's web role (NOMINATIM_DATABASE_WEBUSER, default "
            "www-data). Empties the workers' address caches."
        ),
    )
    p_imp.add_argument("file", help=".osm, .osm.pbf or .osm.bz2")
    p_imp.add_argument(
        "--criar-papel-web",
        action="store_true",
        help="create the web role when missing (LOGIN, CONNECTION LIMIT 0)",
    )
    p_imp.add_argument("--threads", type=int, default=2, help="importer threads (default 2)")
    p_imp.add_argument("--quiet", action="store_true", help="no progress lines")
    p_imp.set_defaults(handler=cmd_nominatim_import)
    p_st = nom_sub.add_parser("status", help="what is loaded (exit 3 when nothing)")
    p_st.add_argument("--json", action="store_true")
    p_st.set_defaults(handler=cmd_nominatim_status)

    p_geo = sub.add_parser(
        "geocodificacoes", help="address demands waiting for the geocoder (down or refusing)"
    )
    geo_sub = p_geo.add_subparsers(dest="geocodificacoes_command", required=True, metavar="ACTION")
    p_list = geo_sub.add_parser("list", help="the waiting address demands, oldest first")
    p_list.add_argument("--limit", type=int, default=100)
    p_list.add_argument("--json", action="store_true")
    p_list.set_defaults(handler=cmd_geocodificacoes_list)
    p_retry = geo_sub.add_parser("retry", help="make them due now (skip their backoff)")
    p_retry.add_argument("event_id", nargs="?", help="one event id")
    p_retry.add_argument("--all", action="store_true", help="every waiting address demand")
    p_retry.set_defaults(handler=cmd_geocodificacoes_retry)
