"""`d2 resolve LAT LNG`: one point through the resolver, as JSON with the chain's names."""

from __future__ import annotations

import argparse
from typing import Any

from d2 import db
from d2.cli import database_url
from d2.cli.common import comando, em_dia, emitir
from d2.territorio import resolver


def cmd_resolve(args: argparse.Namespace) -> int:
    lat = resolver.parse_cli_coordinate(args.lat, "lat", 90)
    lng = resolver.parse_cli_coordinate(args.lng, "lng", 180)
    with db.connect(database_url.url(), autocommit=True) as conn:
        em_dia(conn)
        achado = resolver.resolver(conn, lat, lng)
        if achado is None:
            emitir(args, {"lat": lat, "lng": lng, "resolvido": False})
            return 0
        nomes = {
            str(row["unidade_civica_id"]): row
            for row in conn.execute(db.q("uc_names"), {"ids": list(achado.cadeia_ucs)})
        }
    resultado: dict[str, Any] = {
        "lat": resolver.arredondar(lat),
        "lng": resolver.arredondar(lng),
        "resolvido": True,
    }
    resultado |= achado.as_json()
    resultado["cadeia"] = [
        {"unidade_civica_id": uc, "nome": nomes[uc]["nome"], "nivel": nomes[uc]["nivel"]}
        for uc in achado.cadeia_ucs
        if uc in nomes
    ]
    emitir(args, resultado)
    return 0


def registrar(sub: Any) -> None:
    p_resolve = comando(sub, "resolve", cmd_resolve, help="resolve one point; prints JSON")
    p_resolve.add_argument("lat", help="latitude, -90..90")
    p_resolve.add_argument("lng", help="longitude, -180..180")
