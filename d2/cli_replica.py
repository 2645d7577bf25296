"""`d2 mirror fonte` and `d2 mirror publicar-estado`: the event-synced replica (spec
Phase 2). The mirror reads core.uc_polygons (the default) or the replica the worker feeds
from uc.poligono_* events; the producers' side publishes core.uc_polygons as events."""

from __future__ import annotations

import argparse
import json
from typing import Any

from d2 import ambiente, config, db, replica


def cmd_fonte(args: argparse.Namespace) -> int:
    with db.connect(ambiente.url(), autocommit=True) as conn:
        if args.fonte is None:
            resposta: dict[str, Any] = {"fonte": replica.fonte(conn)}
        else:
            resposta = replica.definir_fonte(conn, config.load(), args.fonte)
    if args.json:
        print(json.dumps(resposta, ensure_ascii=False, default=str))
    elif args.fonte is None:
        print(f"the mirror reads {resposta['fonte']}")
    else:
        mirror = ", ".join(f"{k} {v}" for k, v in resposta["mirror"].items()) or "empty"
        linha = f"the mirror now reads {resposta['fonte']}; rebuilt: {mirror}"
        if resposta["replica"] is not None:
            linha += f"; replica caught up: {resposta['replica']}"
        print(linha)
    return 0


def cmd_publicar_estado(args: argparse.Namespace) -> int:
    with db.connect(ambiente.url(), autocommit=True) as conn, conn.transaction():
        feito = replica.publicar_estado(conn)
    if args.json:
        print(json.dumps(feito))
    else:
        print(
            f"published {feito['adicionados']} uc.poligono_adicionado, "
            f"{feito['atualizados']} uc.poligono_atualizado, "
            f"{feito['removidos']} uc.poligono_removido; "
            f"{feito['recusados']} rows not publishable (not a GeoJSON polygon, or level)"
        )
    return 0


def add_commands(mirror_sub: Any) -> None:
    """Register under `d2 mirror`."""
    p_fonte = mirror_sub.add_parser(
        "fonte",
        help="show or switch where the mirror reads its polygons: core or eventos",
        description=(
            "core (the default) reads core.uc_polygons; eventos reads the replica that the "
            "worker feeds from uc.poligono_adicionado / _atualizado / _removido events with "
            "a cursor of its own. Switching catches the replica up with the log (to "
            "eventos) and rebuilds the mirror from the new source; every worker follows "
            "the database's setting at its next poll."
        ),
    )
    p_fonte.add_argument("fonte", nargs="?", choices=replica.FONTES)
    p_fonte.add_argument("--json", action="store_true")
    p_fonte.set_defaults(handler=cmd_fonte)
    p_pub = mirror_sub.add_parser(
        "publicar-estado",
        help="publish core.uc_polygons as uc.poligono_* events (what changed since last time)",
        description=(
            "For a log that predates the importers' events: one uc.poligono_adicionado per "
            "row never published, uc.poligono_atualizado for a row changed since, "
            "uc.poligono_removido for a published row now gone. Idempotent per row version: "
            "a second run publishes nothing. The importers do the same in their transaction."
        ),
    )
    p_pub.add_argument("--json", action="store_true")
    p_pub.set_defaults(handler=cmd_publicar_estado)
