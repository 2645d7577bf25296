"""`d2 db …` and `d2 migrate`: the embedded cluster, the URL d2 uses, the schema."""

from __future__ import annotations

import argparse
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import psycopg.conninfo

from d2 import ambiente, config, embedded, migrations, verify
from d2.cli.saida import chave_valor, comando, emitir, grupo


def cmd_start(args: argparse.Namespace) -> int:
    cluster = embedded.start(config.load().home)
    migrations.upgrade(cluster.url())
    print(f"embedded PostGIS running; DATABASE_URL={cluster.url()}")
    return 0


def cmd_stop(args: argparse.Namespace) -> int:
    print("stopped" if embedded.stop(config.load().home) else "not running")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    estado = embedded.status(config.load().home)
    emitir(args, estado, chave_valor)
    return 0 if estado["running"] else 3


def cmd_url(args: argparse.Namespace) -> int:
    url = ambiente.url()
    print(url if args.show_password else mascarar_senha(url))
    return 0


def mascarar_senha(url: str) -> str:
    """The URL or conninfo with its password (user:pw@, ?password=, password=) as ***:
    terminals, shell histories and CI logs keep what is printed."""
    if url.startswith(("postgresql://", "postgres://")):
        partes = urlsplit(url)
        rede = partes.netloc
        if "@" in rede:
            credenciais, servidor = rede.rsplit("@", 1)
            if ":" in credenciais:
                rede = credenciais.split(":", 1)[0] + ":***@" + servidor
        consulta = [
            (k, "***" if k == "password" else v)
            for k, v in parse_qsl(partes.query, keep_blank_values=True)
        ]
        return urlunsplit(partes._replace(netloc=rede, query=urlencode(consulta, safe="/*")))
    try:
        campos = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "(unparsable DATABASE_URL, not shown)"
    if "password" in campos:
        campos["password"] = "***"
    return psycopg.conninfo.make_conninfo(**campos)  # type: ignore[arg-type]


def cmd_verify(args: argparse.Namespace) -> int:
    relatorio = verify.verify(ambiente.url())
    emitir(
        args,
        relatorio,
        lambda r: "\n".join(f"{'ok ' if c['ok'] else 'BAD'}  {c['check']}" for c in r["checks"]),
    )
    return 0 if relatorio["ok"] else 1


def cmd_migrate(args: argparse.Namespace) -> int:
    url = ambiente.url()
    if args.downgrade:
        migrations.downgrade(url, args.downgrade)
    else:
        migrations.upgrade(url, args.revision)
    print(f"database at revision {migrations.current(url)}")
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

    p_migrate = comando(sub, "migrate", cmd_migrate, help="apply the migrations (alembic)")
    p_migrate.add_argument("--revision", default="head", help="target revision (default head)")
    p_migrate.add_argument("--downgrade", metavar="REV", help="downgrade to REV ('base': all)")
