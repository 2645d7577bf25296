"""`d2 regeorreferenciar`: recompute stored resolutions under today's polygons."""

from __future__ import annotations

import argparse
from typing import Any

from d2 import config, db, logs
from d2.cli import database_url
from d2.cli.common import comando, date_arg, em_dia, emitir, flag, positivo, uuid_arg
from d2.ops import regeo


def cmd_regeorreferenciar(args: argparse.Namespace) -> int:
    logs.configure(args.log_level)
    uc = uuid_arg(args.uc) if args.uc else None
    desde = date_arg(args.since) if args.since else None
    with db.connect(database_url.url(), autocommit=True) as conn:
        em_dia(conn)
        relatorio = regeo.regeorreferenciar(
            conn, config.load(), uc=uc, desde=desde, dry_run=args.dry_run, batch=args.batch_size
        )
    emitir(args, relatorio, regeo.formatar_regeo)
    return 0


def registrar(sub: Any) -> None:
    p_regeo = comando(
        sub,
        "regeorreferenciar",
        cmd_regeorreferenciar,
        json_flag=True,
        help="recompute stored resolutions under today's polygons; publish the changes",
    )
    p_regeo.add_argument(
        "--uc", help="only resolutions of this UC (resolved there or in its chain)"
    )
    flag(
        p_regeo,
        "--since",
        "--desde",
        metavar="DATE",
        help="only resolutions created on or after DATE (YYYY-MM-DD)",
    )
    p_regeo.add_argument("--dry-run", action="store_true", help="print what would change, by UC")
    flag(
        p_regeo,
        "--batch-size",
        "--lote",
        type=positivo,
        default=5000,
        help="resolutions per transaction (default 5000)",
    )
    p_regeo.add_argument("--log-level", default="WARNING")
