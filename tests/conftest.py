"""Test databases: a real PostgreSQL + PostGIS, one fresh database per test.

A throw-away cluster is started once per session with d2's own embedded-cluster code
(as an unprivileged user when the tests run as root), migrated once into a template
database, and every test gets its own clone of that template (pytest-postgresql's
DatabaseJanitor). Set D2_TEST_DATABASE_URL to use an existing server instead.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlparse

import psycopg
import pytest
from psycopg.rows import dict_row
from pytest_postgresql.janitor import DatabaseJanitor

from d2 import embedded, migrations

# The sample Nominatim, shared by the suites that geocode addresses, and the
# shared harness (connection type, territory, cursor, drain).
pytest_plugins = [
    "tests.support",
    "tests.support.nominatim_fixtures",
    "tests.support.address_fixtures",
]

TEMPLATE = "d2_template"
BRASIL = "d2_template_brasil"
SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
_counter = itertools.count()


@dataclass(frozen=True)
class Server:
    user: str
    host: str
    port: int
    password: str | None
    home: Path | None = None  # the throw-away cluster's folder; None for an external server

    def url(self, dbname: str) -> str:
        auth = self.user + (f":{quote(self.password)}" if self.password else "")
        return f"postgresql://{auth}@/{dbname}?host={quote(self.host)}&port={self.port}"


def _server_from_url(url: str) -> Server:
    parsed = urlparse(url)
    query = parse_qs(parsed.query)
    host = query.get("host", [parsed.hostname or "localhost"])[0]
    port = int(query.get("port", [parsed.port or 5432])[0])
    return Server(parsed.username or "postgres", host, port, parsed.password)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Server]:
    external = os.environ.get("D2_TEST_DATABASE_URL")
    if external:
        yield _server_from_url(external)
        return
    with embedded.temporario("d2-test-") as cluster:
        _papeis_de_teste_entram(cluster)
        yield Server(embedded.SUPERUSER, str(cluster.socketdir), cluster.port, None, cluster.home)


def _papeis_de_teste_entram(cluster: embedded.Cluster) -> None:
    """The tests log in as roles they create (d2_worker's logins, hostile roles, the web
    role Nominatim wants), most without a password. d2 opens its clusters to the OS users
    that run it only (peer, tests/integration/test_embedded_security.py checks it); this
    throw-away one, in a private temporary folder, lets any role in over its socket."""
    (cluster.datadir / "pg_hba.conf").write_text("# tests only\nlocal all all trust\n")
    with psycopg.connect(cluster.url("postgres"), autocommit=True) as conn:
        conn.execute("SELECT pg_reload_conf()")


def _janitor(server: Server, dbname: str, **kw: Any) -> DatabaseJanitor:
    return DatabaseJanitor(
        user=server.user,
        host=server.host,
        port=server.port,
        password=server.password,
        dbname=dbname,
        **kw,
    )


@pytest.fixture(scope="session")
def template_db(pg_server: Server) -> Iterator[str]:
    """A database migrated to head, cloned by every test."""
    janitor = _janitor(pg_server, TEMPLATE, as_template=True)
    janitor.drop() if _exists(pg_server, TEMPLATE) else None
    janitor.init()
    migrations.upgrade(pg_server.url(TEMPLATE))
    try:
        yield TEMPLATE
    finally:
        janitor.drop()


def _exists(server: Server, dbname: str) -> bool:
    with psycopg.connect(server.url("postgres"), autocommit=True) as conn:
        row = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [dbname]).fetchone()
        if row:
            conn.execute(f"ALTER DATABASE {dbname} IS_TEMPLATE false")  # test-only constant
        return row is not None


@pytest.fixture
def empty_db_url(pg_server: Server) -> Iterator[str]:
    """A fresh database with nothing in it (for migration tests)."""
    name = f"d2_empty_{os.getpid()}_{next(_counter)}"
    janitor = _janitor(pg_server, name)
    janitor.init()
    try:
        yield pg_server.url(name)
    finally:
        janitor.drop()


@pytest.fixture
def db_url(pg_server: Server, template_db: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A fresh, migrated database for this test; DATABASE_URL points at it."""
    yield from _clone(pg_server, template_db, "d2_test", monkeypatch)


def _clone(
    pg_server: Server, template: str, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[str]:
    """A database cloned from template for one test, DATABASE_URL pointing at it."""
    name = f"{prefix}_{os.getpid()}_{next(_counter)}"
    janitor = _janitor(pg_server, name, template_dbname=template)
    janitor.init()
    url = pg_server.url(name)
    monkeypatch.setenv("DATABASE_URL", url)
    try:
        yield url
    finally:
        janitor.drop()


@pytest.fixture
def conn(db_url: str) -> Iterator[psycopg.Connection[dict[str, Any]]]:
    """An autocommit connection to this test's database."""
    with psycopg.connect(db_url, autocommit=True, row_factory=dict_row) as connection:
        yield connection


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data, or skip (users outside the team don't have it)."""
    if not (SHARED_DATA / "br_municipios.geojson.gz").exists():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def brasil_template(pg_server: Server, template_db: str, shared_data: Path) -> Iterator[str]:
    """A database migrated to head holding the whole shared territory as `d2 import-ibge`
    loads it, imported once for the tests that read it (each gets a clone: brasil_url)."""
    from d2.importers import ibge  # geopandas: only for the tests that need the territory

    janitor = _janitor(pg_server, BRASIL, template_dbname=template_db, as_template=True)
    janitor.drop() if _exists(pg_server, BRASIL) else None
    janitor.init()
    ibge.run_import(pg_server.url(BRASIL), directory=shared_data, progress=False)
    try:
        yield BRASIL
    finally:
        janitor.drop()


@pytest.fixture
def brasil_url(
    pg_server: Server, brasil_template: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[str]:
    """A fresh database holding the whole shared territory (a clone of brasil_template);
    DATABASE_URL points at it."""
    yield from _clone(pg_server, brasil_template, "d2_brasil", monkeypatch)


@pytest.fixture
def brasil_conn(brasil_url: str) -> Iterator[psycopg.Connection[dict[str, Any]]]:
    """An autocommit connection to brasil_url."""
    with psycopg.connect(brasil_url, autocommit=True, row_factory=dict_row) as connection:
        yield connection
