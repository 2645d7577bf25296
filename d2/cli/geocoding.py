"""`d2 geocoding list|retry`: the address demands waiting for the geocoder (down or
refusing), and hurrying them."""

from __future__ import annotations

import argparse
from typing import Any

from d2 import config, db
from d2.cli import database_url
from d2.cli.common import emitir, event_ids, fila, grupo


def _texto_espera(linhas: list[dict[str, Any]]) -> str:
    if not linhas:
        return "no address demand is waiting for the geocoder"
    maximo = config.load().geocoder_tentativas_max  # then the dead letters
    return "\n".join(
        f"{r['event_id']}  seq {r['sequence_number']}  tries {r['tentativas']}  "
        f"failed {r['falhas']}/{maximo}  "
        f"next {r['proxima_tentativa']:%Y-%m-%d %H:%M:%S}  {r['ultimo_erro'] or ''}"
        for r in linhas
    )


def cmd_geocoding_list(args: argparse.Namespace) -> int:
    with db.connect(database_url.url(), autocommit=True) as conn, db.mapped_errors():
        linhas = [dict(r) for r in conn.execute(db.q("geocoder_list"), {"limite": args.limit})]
    emitir(args, linhas, _texto_espera)
    return 0


def cmd_geocoding_retry(args: argparse.Namespace) -> int:
    ids = event_ids(args)
    with db.connect(database_url.url(), autocommit=True) as conn, db.mapped_errors():
        feitos = conn.execute(db.q("geocoder_now"), {"event_ids": ids}).fetchall()
    print(f"{len(feitos)} address demands due now; the worker's geocoding stage takes them")
    return 0


def registrar(sub: Any) -> None:
    espera = grupo(
        sub,
        "geocoding",
        antigos=("geocodificacoes",),
        help="address demands waiting for the geocoder (down or refusing)",
    )
    fila(
        espera,
        cmd_geocoding_list,
        cmd_geocoding_retry,
        list_help="the waiting address demands, oldest first",
        retry_help="make them due now (skip their backoff)",
        all_help="every waiting address demand",
    )
