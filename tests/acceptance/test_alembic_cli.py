"""The plain Alembic CLI from a checkout, as its users migrate:
`alembic upgrade head`, `alembic current`, `alembic history`, `alembic downgrade base`,
run in the repository's root where alembic.ini is, with DATABASE_URL set and with the
embedded default (no DATABASE_URL: the cluster under D2_HOME, started, not migrated
behind alembic's back)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from d2 import embedded, migrations

RAIZ = Path(__file__).resolve().parents[2]
ALEMBIC = Path(sys.executable).parent / "alembic"


def alembic(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    ambiente = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"} | env
    feito = subprocess.run(
        [str(ALEMBIC), *args],
        cwd=RAIZ,
        env=ambiente,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert feito.returncode == 0, f"alembic {' '.join(args)}: {feito.stderr[-2000:]}"
    return feito


def _ida_e_volta(**env: str) -> None:
    head = migrations.head()
    assert head in alembic("history", **env).stdout
    alembic("upgrade", "head", **env)
    assert f"{head} (head)" in alembic("current", **env).stdout
    alembic("downgrade", "base", **env)
    assert head not in alembic("current", **env).stdout
    alembic("upgrade", "head", **env)
    assert f"{head} (head)" in alembic("current", **env).stdout


def test_alembic_cli__with_database_url(empty_db_url: str) -> None:
    _ida_e_volta(DATABASE_URL=empty_db_url)


@pytest.fixture
def home() -> Iterator[Path]:
    """A D2_HOME the embedded cluster's OS user can traverse (tests/conftest.py does the
    same for its own cluster)."""
    pasta = Path(tempfile.mkdtemp(prefix="d2-alembic-"))
    os.chmod(pasta, 0o755)
    try:
        yield pasta / "home"
    finally:
        if (pasta / "home" / "pgdata" / "PG_VERSION").exists():
            embedded.stop(pasta / "home")
        shutil.rmtree(pasta, ignore_errors=True)


def test_alembic_cli__with_the_embedded_default(home: Path) -> None:
    _ida_e_volta(D2_HOME=str(home))
