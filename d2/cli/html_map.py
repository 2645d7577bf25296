"""`d2 map`: a self-contained HTML map of what needs a human (folium is imported inside
the command)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from d2 import db
from d2.cli import database_url
from d2.cli.common import comando, em_dia, emitir, flag, positivo


def cmd_map(args: argparse.Namespace) -> int:
    from d2.ops import html_map  # folium and its templates: ~1 s the other commands need not pay

    with db.connect(database_url.url(), autocommit=True) as conn:
        em_dia(conn, seguir=True)
        resumo = html_map.gerar_mapa(conn, Path(args.output), limite=args.limit, tiles=args.tiles)
    emitir(
        args,
        resumo,
        lambda r: (
            f"{r['saida']}: {r['revisoes']} reviews, {r['dead_letters']} dead letters "
            f"(+{r['dead_letters_sem_coordenadas']} without coordinates), "
            f"{sum(r['revisoes_tratadas'].values())} reviews closed without a polygon, "
            f"{r['resolucoes']} resolutions, {r['poligonos']} polygons"
        ),
    )
    return 0


def registrar(sub: Any) -> None:
    p_mapa = comando(
        sub,
        "map",
        cmd_map,
        antigos=("mapa",),
        help="a self-contained HTML map of what needs a human",
    )
    flag(p_mapa, "--output", "--saida", required=True, metavar="FILE.html")
    p_mapa.add_argument(
        "--limit", type=positivo, default=5000, help="points of each kind (default 5000)"
    )
    p_mapa.add_argument(
        "--tiles", default=None, help="a folium tile layer, e.g. OpenStreetMap (needs internet)"
    )
