"""What every benchmark needs: a scratch server, scratch databases, timing, figures."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlparse, urlunparse

import psycopg
from psycopg import sql
from psycopg.rows import dict_row

from d2 import config, db, embedded, migrations
from d2.geocoder.nominatim import importer

# ../shared/data beside the source checkout, or D2_SHARED_DATA (an installed d2).
SHARED_DATA = Path(
    os.environ.get("D2_SHARED_DATA") or Path(__file__).resolve().parents[3] / "shared" / "data"
)

Conn = db.Connection


def figure(
    bench: str,
    name: str,
    value: float,
    unit: str,
    baseline: float | None = None,
    baseline_name: str | None = None,
    *,
    higher_is_better: bool = True,
    **extra: Any,
) -> dict[str, Any]:
    """One JSON line: the figure, the baseline measured in the same run, their ratio
    (> 1 means the figure is better than the baseline)."""
    ratio: float | None = None
    if baseline:
        ratio = value / baseline if higher_is_better else baseline / value if value else None
    row: dict[str, Any] = {
        "bench": bench,
        "figure": name,
        "value": round(value, 3),
        "unit": unit,
        "baseline": None if baseline is None else round(baseline, 3),
        "baseline_name": baseline_name,
        "ratio": None if ratio is None else round(ratio, 2),
    }
    row.update(extra)
    return row


def with_dbname(url: str, dbname: str) -> str:
    """The same server, another database (libpq URL)."""
    parts = urlparse(url)
    query = dict(parse_qsl(parts.query))
    query.pop("dbname", None)
    return urlunparse(parts._replace(path="/" + dbname, query=urlencode(query)))


def dbname(url: str) -> str:
    """The database name of a libpq URL."""
    return urlparse(url).path.lstrip("/")


@dataclass(frozen=True)
class Server:
    """A server on which the benchmarks create (and drop) their own databases."""

    admin_url: str


@contextlib.contextmanager
def server(url: str | None, *, fast: bool = True) -> Iterator[Server]:
    """The server at url (its databases are left alone: we create d2_bench_* ones), or a
    throw-away embedded cluster when url is None (fsync off unless not fast)."""
    if url:
        yield Server(url)
        return
    with embedded.temporario("d2-bench-", fast=fast) as cluster:
        yield Server(cluster.url("postgres"))


@contextlib.contextmanager
def scratch_db(
    srv: Server,
    label: str,
    *,
    template: str | None = None,
    migrar: bool = True,
    revision: str = "head",
) -> Iterator[str]:
    """A new database migrated to revision (or left empty, or a clone of template),
    dropped afterwards."""
    name = f"d2_bench_{label}_{uuid.uuid4().hex[:8]}"
    create_db(srv, name, template=template)
    url = with_dbname(srv.admin_url, name)
    try:
        if template is None and migrar:
            migrations.upgrade(url, revision)
        yield url
    finally:
        drop_db(srv, name)


def create_db(srv: Server, name: str, *, template: str | None = None) -> None:
    with psycopg.connect(srv.admin_url, autocommit=True) as conn:
        if template is None:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        else:
            conn.execute(
                sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                    sql.Identifier(name), sql.Identifier(template)
                )
            )


@contextlib.contextmanager
def nominatim(srv: Server, home: Path, arquivo: Path, prefixo: str) -> Iterator[tuple[str, float]]:
    """A Nominatim over the OSM file arquivo, built by its importer into a database of
    srv named after prefixo and dropped afterwards: its URL, and the seconds the import
    took. The import names D-2's server as DATABASE_URL's, whose databases it never drops."""
    url = with_dbname(srv.admin_url, f"{prefixo}_{uuid.uuid4().hex[:8]}")
    settings = dataclasses.replace(config.load(), home=home, nominatim_dsn=url)
    importer.verificar(settings, srv.admin_url, arquivo, criar_papel_web=True)
    try:
        yield (
            url,
            importer.construir(settings, url, arquivo, database_url=srv.admin_url, threads=2),
        )
    finally:
        drop_db(srv, dbname(url))


def drop_db(srv: Server, name: str) -> None:
    with psycopg.connect(srv.admin_url, autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


def connect(url: str, *, autocommit: bool = True) -> Conn:
    return psycopg.connect(url, autocommit=autocommit, row_factory=dict_row)


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """(seconds, result) of one call."""
    inicio = time.perf_counter()
    resultado = fn()
    return time.perf_counter() - inicio, resultado


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def backend_cpu_s(conn: Conn) -> float | None:
    """CPU seconds used so far by this connection's server process (None when the server
    is not on this machine): a figure that other load on a shared machine barely moves."""
    row = conn.execute("SELECT pg_backend_pid() AS pid").fetchone()
    assert row is not None
    try:
        campos = Path(f"/proc/{row['pid']}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    ticks = int(campos[11]) + int(campos[12])  # utime + stime
    return ticks / os.sysconf("SC_CLK_TCK")


def ler_corpus(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A corpus file of JSON lines: (its header, its cases)."""
    linhas = [json.loads(linha) for linha in path.read_text(encoding="utf-8").splitlines()]
    return linhas[0], linhas[1:]


def argumentos_do_corpus(
    prog: str, descricao: str, arquivo: Path, argv: list[str] | None
) -> argparse.Namespace:
    """The arguments every corpus generator's script takes: --output, --shared-data."""
    parser = argparse.ArgumentParser(prog=prog, description=descricao)
    parser.add_argument("--output", type=Path, default=arquivo, help=f"default: {arquivo}")
    parser.add_argument("--shared-data", type=Path, default=SHARED_DATA)
    return parser.parse_args(argv)
