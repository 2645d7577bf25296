"""`d2 db …` and `d2 migrate`: the embedded cluster, the URL d2 uses, the schema."""

from __future__ import annotations

import argparse
from typing import Any

from d2 import config, db, embedded, migrations, verify
from d2.cli import database_url
from d2.cli.common import comando, emitir, grupo


def cmd_start(args: argparse.Namespace) -> int:
    cluster = embedded.start(config.load().home)
    migrations.upgrade(cluster.url())
    print(f"embedded PostGIS running; DATABASE_URL={cluster.url()}")
    return 0


def cmd_stop(args: argparse.Namespace) -> int:
    print("stopped" if embedded.stop(config.load().home) else "not running")
    return 0


def _texto_estado(e: dict[str, Any]) -> str:
    """`d2 db status` for a person (--json for programs)."""
    if e["running"]:
        estado = f"running; DATABASE_URL={db.mascarar_senha(str(e['url']))}"
    elif e["initialised"]:
        estado = "stopped  → d2 db start"
    else:
        estado = "not created yet  → d2 db start"
    return f"embedded PostGIS under {e['home']}: {estado}\nits log: {e['log']}"


def cmd_status(args: argparse.Namespace) -> int:
    estado = embedded.status(config.load().home)
    emitir(args, estado, _texto_estado)
    return 0 if estado["running"] else 3


def cmd_url(args: argparse.Namespace) -> int:
    url = database_url.url()
    print(url if args.show_password else db.mascarar_senha(url))
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    relatorio = verify.verify(database_url.url())
    emitir(
        args,
        relatorio,
        lambda r: "\n".join(f"{'ok ' if c['ok'] else 'BAD'}  {c['check']}" for c in r["checks"]),
    )
    return 0 if relatorio["ok"] else 1


def cmd_migrate(args: argparse.Namespace) -> int:
    url = database_url.url()
    if args.downgrade:
        migrations.downgrade(url, args.downgrade)
    else:
        migrations.upgrade(url, args.revision)
    print(f"database at revision {migrations.current(url)}")
    return 0


def cmd_freeze(args: argparse.Namespace) -> int:
    for feito in migrations.freeze(args.revision, args.paths):
        print(f"frozen {feito}")
    return 0


def cmd_seal(args: argparse.Namespace) -> int:
    for novo in migrations.seal():
        print(f"sealed {novo}")
    return 0


def registrar(sub: Any) -> None:
    db = grupo(sub, "db", help="the embedded PostGIS cluster under ./.d2/")
    comando(db, "start", cmd_start, help="start (and create, migrate) it")
    comando(db, "stop", cmd_stop, help="stop it")
    comando(db, "status", cmd_status, json_flag=True, help="is it running? (exit 3 when not)")
    p_url = comando(db, "url", cmd_url, help="print the database URL d2 uses (password masked)")
    p_url.add_argument(
        "--show-password", action="store_true", help="print the password too, as it is"
    )
    comando(
        db,
        "verify",
        cmd_verify,
        json_flag=True,
        help="are the migrations, functions and indexes in place, and no schema they"
        " resolve names through writable by other roles?",
    )

    # For maintainers writing a migration (CONTRIBUTING.md): no help=, so --help lists
    # neither. freeze copies live sql/ files into the migration's frozen folder and seals
    # them; seal adds the hashes of frozen files not yet sealed, never changing one.
    p_freeze = comando(db, "freeze", cmd_freeze)
    p_freeze.add_argument("revision", metavar="REVISION")
    p_freeze.add_argument("paths", nargs="+", metavar="PATH", help="e.g. functions/x.sql")
    comando(db, "seal", cmd_seal)

    p_migrate = comando(sub, "migrate", cmd_migrate, help="apply the migrations (alembic)")
    p_migrate.add_argument("--revision", default="head", help="target revision (default head)")
    p_migrate.add_argument("--downgrade", metavar="REV", help="downgrade to REV ('base': all)")
