"""`d2 status`: one screen of cursor, outcomes, reviews, mirror."""

from __future__ import annotations

import argparse
from typing import Any

from d2 import config, db
from d2.cli import database_url
from d2.cli.common import comando, emitir
from d2.ops import status


def cmd_status(args: argparse.Namespace) -> int:
    with db.connect(database_url.url(), autocommit=True) as conn:
        emitir(args, status.status(conn, config.load()), status.formatar_status)
    return 0


def registrar(sub: Any) -> None:
    comando(
        sub,
        "status",
        cmd_status,
        json_flag=True,
        help="one screen: cursor, outcomes, reviews, mirror",
    )
