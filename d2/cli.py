"""The `d2` command: parses arguments, calls one function, prints, sets the exit code."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from d2 import config, db, errors, geo

Handler = Callable[[argparse.Namespace], int]


def _print_json(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2, default=str))


# --- db ----------------------------------------------------------------------------------


def cmd_db_start(args: argparse.Namespace) -> int:
    from d2 import embedded, migrations

    settings = config.load()
    cluster = embedded.start(settings.home)
    migrations.upgrade(cluster.url())
    print(f"embedded PostGIS running; DATABASE_URL={cluster.url()}")
    return 0


def cmd_db_stop(args: argparse.Namespace) -> int:
    from d2 import embedded

    stopped = embedded.stop(config.load().home)
    print("stopped" if stopped else "not running")
    return 0


def cmd_db_status(args: argparse.Namespace) -> int:
    from d2 import embedded

    state = embedded.status(config.load().home)
    if args.json:
        _print_json(state)
    else:
        for key, value in state.items():
            print(f"{key:12} {value}")
    return 0 if state["running"] else 3


def cmd_db_url(args: argparse.Namespace) -> int:
    print(db.database_url())
    return 0


def cmd_db_verify(args: argparse.Namespace) -> int:
    from d2 import verify

    report = verify.verify(db.database_url())
    if args.json:
        _print_json(report)
    else:
        for item in report["checks"]:
            print(f"{'ok ' if item['ok'] else 'BAD'}  {item['check']}")
    return 0 if report["ok"] else 1


# --- schema and resolver -------------------------------------------------------------------


def cmd_migrate(args: argparse.Namespace) -> int:
    from d2 import migrations

    url = db.database_url()
    if args.downgrade:
        migrations.downgrade(url, args.downgrade)
    else:
        migrations.upgrade(url, args.revision)
    print(f"database at revision {migrations.current(url)}")
    return 0


def cmd_resolve(args: argparse.Namespace) -> int:
    lat = geo.parse_cli_coordinate(args.lat, "lat", 90)
    lng = geo.parse_cli_coordinate(args.lng, "lng", 180)
    with db.connect() as conn:
        found = geo.resolver(conn, lat, lng)
        if found is None:
            _print_json({"lat": lat, "lng": lng, "resolvido": False})
            return 0
        names = {
            row["unidade_civica_id"]: row
            for row in conn.execute(db.q("uc_names"), {"ids": list(found.cadeia_ucs)})
        }
    result: dict[str, Any] = {
        "lat": geo.arredondar(lat),
        "lng": geo.arredondar(lng),
        "resolvido": True,
    }
    result |= found.as_json()
    result["cadeia"] = [
        {"unidade_civica_id": str(uc), "nome": names[uc]["nome"], "nivel": names[uc]["nivel"]}
        for uc in found.cadeia_ucs
        if uc in names
    ]
    _print_json(result)
    return 0


def cmd_mirror_rebuild(args: argparse.Namespace) -> int:
    with db.connect() as conn:
        rows = conn.execute(db.q("mirror_rebuild")).fetchall()
        conn.commit()
    for row in rows:
        print(f"{row['estado']:10} {row['quantidade']}")
    return 0


# --- parser --------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="d2",
        description=(
            "D-2 Georreferenciamento: resolves the civic unit (bairro, município, UF, região, "
            "Brasil) of each demanda.normalizada and publishes demanda.georreferenciada. "
            "Uses DATABASE_URL, or a private PostGIS cluster under ./.d2/ when it is unset."
        ),
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p_db = sub.add_parser("db", help="the embedded PostGIS cluster under ./.d2/")
    db_sub = p_db.add_subparsers(dest="db_command", required=True, metavar="ACTION")
    db_sub.add_parser("start", help="start (and create, migrate) it").set_defaults(
        handler=cmd_db_start
    )
    db_sub.add_parser("stop", help="stop it").set_defaults(handler=cmd_db_stop)
    p_status = db_sub.add_parser("status", help="is it running? (exit 3 when not)")
    p_status.add_argument("--json", action="store_true")
    p_status.set_defaults(handler=cmd_db_status)
    db_sub.add_parser("url", help="print the database URL d2 uses").set_defaults(handler=cmd_db_url)
    p_verify = db_sub.add_parser(
        "verify", help="are the migrations, functions and indexes in place?"
    )
    p_verify.add_argument("--json", action="store_true")
    p_verify.set_defaults(handler=cmd_db_verify)

    p_migrate = sub.add_parser("migrate", help="apply the migrations (alembic)")
    p_migrate.add_argument("--revision", default="head", help="target revision (default head)")
    p_migrate.add_argument("--downgrade", metavar="REV", help="downgrade to REV ('base': all)")
    p_migrate.set_defaults(handler=cmd_migrate)

    p_resolve = sub.add_parser("resolve", help="resolve one point; prints JSON")
    p_resolve.add_argument("lat", help="latitude, -90..90")
    p_resolve.add_argument("lng", help="longitude, -180..180")
    p_resolve.set_defaults(handler=cmd_resolve)

    p_mirror = sub.add_parser("mirror", help="the PostGIS mirror of core.uc_polygons")
    mirror_sub = p_mirror.add_subparsers(dest="mirror_command", required=True, metavar="ACTION")
    mirror_sub.add_parser("rebuild", help="rebuild it whole from core.uc_polygons").set_defaults(
        handler=cmd_mirror_rebuild
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    # Negative coordinates look like options to argparse: `d2 resolve -23.5 -46.6`.
    raw = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(_protect_negative_numbers(raw))
    handler: Handler = args.handler
    try:
        return handler(args)
    except errors.D2Error as exc:
        print(f"d2: error: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, errors.InvalidInput | errors.ConfigError) else 1
    except KeyboardInterrupt:
        return 130


def _protect_negative_numbers(argv: list[str]) -> list[str]:
    asks_help = any(arg in ("-h", "--help") for arg in argv)
    if argv[:1] == ["resolve"] and "--" not in argv and not asks_help:
        return ["resolve", "--", *argv[1:]]
    return argv


if __name__ == "__main__":
    sys.exit(main())
