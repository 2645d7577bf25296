"""What `d2 nominatim import` may drop. A rebuild starts with DROP
DATABASE … WITH (FORCE) of whatever D2_NOMINATIM_DSN names: pointed (by mistake or by
whoever sets the environment) at a colony's database, it replaced that database with
Nominatim. Now it drops only a database an earlier import built (D-2's mark), any other
only with --force, and never DATABASE_URL's own database nor one holding D-2's schema or
an event log, --force or not.

Real databases on the test cluster and the real command (`python -m d2.cli`), with
Nominatim's real importer where the drop is allowed (osm2pgsql and Nominatim are
installed in CI: scripts/setup.sh)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import psycopg
import psycopg.conninfo
import pytest
from psycopg import sql

from d2.importers import sample_osm
from tests.conftest import Server

pytestmark = pytest.mark.skipif(
    shutil.which("osm2pgsql") is None
    or not ((Path(sys.executable).parent / "nominatim").exists() or shutil.which("nominatim")),
    reason="osm2pgsql or Nominatim is not installed (scripts/setup.sh installs both)",
)

# What a colony keeps in its own database.
TABELA = (
    "CREATE TABLE pedidos (id int PRIMARY KEY, cidadao text); INSERT INTO pedidos VALUES (1, 'x')"
)


def _importar(
    db_url: str, nominatim_dsn: str, home: Path, *extra: str
) -> subprocess.CompletedProcess[str]:
    arquivo = sample_osm.write_osm(home / "amostra.osm")
    return subprocess.run(
        [sys.executable, "-m", "d2.cli", "nominatim", "import", str(arquivo), "--quiet",
         "--create-web-role", "--threads", "1", *extra],
        env=os.environ
        | {"DATABASE_URL": db_url, "D2_NOMINATIM_DSN": nominatim_dsn, "D2_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=280,
    )  # fmt: skip


def _pedidos(url: str) -> list[tuple[object, ...]]:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT id, cidadao FROM pedidos").fetchall()


def _d2_intacto(url: str) -> bool:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT to_regclass('d2.consumer_offset') IS NOT NULL "
            "AND to_regclass('core.event_log') IS NOT NULL"
        ).fetchone()
    return bool(row and row[0])


def _keywords(url: str) -> str:
    """The same database as a keyword/value conninfo: another spelling of the server."""
    return psycopg.conninfo.make_conninfo(**psycopg.conninfo.conninfo_to_dict(url))


@pytest.mark.parametrize("forcar", [False, True], ids=["plain", "with_force"])
@pytest.mark.parametrize("grafia", ["same_url", "keyword_conninfo"])
def test_nominatim_drop__database_url_own_database_is_never_dropped(
    db_url: str, tmp_path: Path, grafia: str, forcar: bool
) -> None:
    alvo = db_url if grafia == "same_url" else _keywords(db_url)

    proc = _importar(db_url, alvo, tmp_path, *(["--force"] if forcar else []))

    assert proc.returncode == 2, proc.stderr
    assert "DATABASE_URL's own database" in proc.stderr
    assert proc.stderr.count("\n") == 1
    assert _d2_intacto(db_url)


def test_nominatim_drop__an_unmarked_database_needs_force_and_then_is_marked(
    db_url: str, empty_db_url: str, tmp_path: Path
) -> None:
    # A colony's database, named by D2_NOMINATIM_DSN.
    with psycopg.connect(empty_db_url, autocommit=True) as conn:
        conn.execute(TABELA)

    recusado = _importar(db_url, empty_db_url, tmp_path)

    assert recusado.returncode == 2, recusado.stderr
    assert "--force" in recusado.stderr and "d2:nominatim" in recusado.stderr
    assert _pedidos(empty_db_url) == [(1, "x")]

    # The operator says it is theirs to replace: rebuilt as Nominatim, and marked...
    forcado = _importar(db_url, empty_db_url, tmp_path, "--force")
    assert forcado.returncode == 0, forcado.stderr
    with psycopg.connect(empty_db_url) as conn:
        assert conn.execute("SELECT count(*) FROM placex").fetchone() != (0,)
        [comentario] = conn.execute(
            "SELECT shobj_description(oid, 'pg_database') FROM pg_database "
            "WHERE datname = current_database()"
        ).fetchone() or [None]
    assert str(comentario).startswith("d2:nominatim")
    # ... so the next import rebuilds it without --force.
    de_novo = _importar(db_url, empty_db_url, tmp_path)
    assert de_novo.returncode == 0, de_novo.stderr


def test_nominatim_drop__a_database_holding_an_event_log_is_never_dropped(
    db_url: str, pg_server: Server, tmp_path: Path
) -> None:
    # The monolith's database seen through another name (not DATABASE_URL's), or a second
    # D-2: it holds core.event_log. Marked, even: a mark is a comment its owner can copy.
    nome = f"monolito_{os.getpid()}"
    with psycopg.connect(pg_server.url("postgres"), autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(nome)))
        admin.execute(
            sql.SQL("COMMENT ON DATABASE {} IS 'd2:nominatim copied'").format(sql.Identifier(nome))
        )
    try:
        with psycopg.connect(pg_server.url(nome), autocommit=True) as conn:
            conn.execute("CREATE SCHEMA core; CREATE TABLE core.event_log (n int)")

        proc = _importar(db_url, pg_server.url(nome), tmp_path, "--force")

        assert proc.returncode == 2, proc.stderr
        assert "event log" in proc.stderr
        with psycopg.connect(pg_server.url(nome)) as conn:
            assert conn.execute("SELECT to_regclass('core.event_log')").fetchone() == (
                "core.event_log",
            )
    finally:
        with psycopg.connect(pg_server.url("postgres"), autocommit=True) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(nome))
            )


def test_nominatim_drop__what_a_failed_import_left_is_marked_and_rebuilt_without_force(
    db_url: str, pg_server: Server, tmp_path: Path
) -> None:
    nome = f"nominatim_falho_{os.getpid()}"
    alvo = pg_server.url(nome)
    quebrado = tmp_path / "quebrado.osm"
    quebrado.write_text("<osm><node id='1' lat='x'")
    env = os.environ | {"DATABASE_URL": db_url, "D2_NOMINATIM_DSN": alvo, "D2_HOME": str(tmp_path)}
    try:
        falho = subprocess.run(
            [sys.executable, "-m", "d2.cli", "nominatim", "import", str(quebrado), "--quiet",
             "--create-web-role", "--threads", "1"],
            env=env, capture_output=True, text=True, timeout=280,
        )  # fmt: skip
        assert falho.returncode == 1, falho.stderr
        with psycopg.connect(pg_server.url("postgres")) as admin:
            deixado = admin.execute(
                "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = %s",
                [nome],
            ).fetchone()
        assert deixado is not None and str(deixado[0]).startswith("d2:nominatim")

        assert _importar(db_url, alvo, tmp_path).returncode == 0
    finally:
        with psycopg.connect(pg_server.url("postgres"), autocommit=True) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(nome))
            )
