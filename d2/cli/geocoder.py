"""Textual addresses (spec Phase 2): `d2 nominatim import|status` builds and describes
the self-hosted Nominatim; `d2 geocodificacoes list|retry` shows and hurries the address
demands waiting for it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from d2 import ambiente, config, db
from d2.cli.saida import chave_valor, comando, emitir, event_ids, fila, flag, grupo
from d2.geocoder import importacao


def cmd_nominatim_import(args: argparse.Namespace) -> int:
    settings = config.load()

    def progresso(linha: str) -> None:
        if not args.quiet:
            print(linha, file=sys.stderr, flush=True)

    resumo = importacao.importar(
        settings,
        ambiente.url_do_banco(settings),
        Path(args.file),
        criar_papel_web=args.create_web_role,
        threads=args.threads,
        progresso=progresso,
    )
    print(f"nominatim: {resumo['arquivo']} imported in {resumo['segundos']:.1f} s")
    return 0


def cmd_nominatim_status(args: argparse.Namespace) -> int:
    settings = config.load()
    dados = importacao.status(settings, ambiente.url_do_banco(settings))
    emitir(args, dados, chave_valor)
    return 0 if dados.get("carregado", True) else 3


def _texto_espera(linhas: list[dict[str, Any]]) -> str:
    if not linhas:
        return "no address demand is waiting for the geocoder"
    return "\n".join(
        f"{r['event_id']}  seq {r['sequence_number']}  tries {r['tentativas']}  "
        f"next {r['proxima_tentativa']:%Y-%m-%d %H:%M:%S}  {r['ultimo_erro'] or ''}"
        for r in linhas
    )


def cmd_geocodificacoes_list(args: argparse.Namespace) -> int:
    with db.connect(ambiente.url(), autocommit=True) as conn, db.mapped_errors():
        linhas = [dict(r) for r in conn.execute(db.q("geocoder_listar"), {"limite": args.limit})]
    emitir(args, linhas, _texto_espera)
    return 0


def cmd_geocodificacoes_retry(args: argparse.Namespace) -> int:
    ids = event_ids(args)
    with db.connect(ambiente.url(), autocommit=True) as conn, db.mapped_errors():
        feitos = conn.execute(db.q("geocoder_agora"), {"event_ids": ids}).fetchall()
    print(f"{len(feitos)} address demands due now; the worker's geocoding stage takes them")
    return 0


def registrar(sub: Any) -> None:
    nominatim = grupo(sub, "nominatim", help="the self-hosted Nominatim that geocodes addresses")
    p_imp = comando(
        nominatim,
        "import",
        cmd_nominatim_import,
        help="build (or rebuild) the Nominatim database from an OSM file",
        description=(
            "Builds the database `nominatim` on DATABASE_URL's server (D2_NOMINATIM_DSN for "
            "another) with Nominatim's importer; an existing one is dropped first. Needs "
            "osm2pgsql and Nominatim's web role (NOMINATIM_DATABASE_WEBUSER, default "
            "www-data). Empties the workers' address caches."
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
    p_imp.add_argument("--threads", type=int, default=2, help="importer threads (default 2)")
    p_imp.add_argument("--quiet", action="store_true", help="no progress lines")
    comando(
        nominatim,
        "status",
        cmd_nominatim_status,
        json_flag=True,
        help="what is loaded (exit 3 when nothing)",
    )

    espera = grupo(
        sub, "geocodificacoes", help="address demands waiting for the geocoder (down or refusing)"
    )
    fila(
        espera,
        cmd_geocodificacoes_list,
        cmd_geocodificacoes_retry,
        list_help="the waiting address demands, oldest first",
        retry_help="make them due now (skip their backoff)",
        all_help="every waiting address demand",
    )
