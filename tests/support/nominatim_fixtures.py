"""The real Nominatim of the tests: built ONCE per session from the sample OSM file
(d2.importers.sample_osm) into a database of the session's cluster, with Nominatim's own
importer; and its HTTP server (`nominatim serve`) for the HTTP mode.

Skipped, with the reason, only where osm2pgsql or Nominatim is not installed (CI
installs both: scripts/setup.sh).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psycopg
import psycopg.conninfo
import pytest
from psycopg import sql

from d2 import config
from d2.geocoder.nominatim import importer, local
from d2.importers import sample, sample_osm
from d2.worker import loop
from tests.support import porta_livre

if TYPE_CHECKING:
    from tests.conftest import Server


@dataclass(frozen=True)
class NominatimAmostra:
    dsn: str  # libpq URL of its database
    projeto: Path


def exigir_nominatim() -> None:
    """Skip, with the reason, where osm2pgsql or Nominatim is not installed."""
    if shutil.which("osm2pgsql") is None:
        pytest.skip("osm2pgsql is not installed (apt-get install osm2pgsql; scripts/setup.sh)")
    if not (Path(sys.executable).parent / "nominatim").exists() and not shutil.which("nominatim"):
        pytest.skip("Nominatim is not installed (pip install nominatim-db nominatim-api)")


def construir_nominatim(
    pg_server: Server, home: Path, arquivo: Path, banco: str
) -> NominatimAmostra:
    """A real Nominatim over an OSM file, in database `banco` of the session's cluster,
    built by Nominatim's own importer."""
    dsn = pg_server.url(banco)
    settings = dataclasses.replace(config.load(), home=home, nominatim_dsn=dsn)
    importer.verificar(settings, pg_server.url("postgres"), arquivo, criar_papel_web=True)
    importer.construir(settings, dsn, arquivo, database_url=pg_server.url("postgres"), threads=1)
    return NominatimAmostra(dsn, home / "nominatim")


def apontar_worker(
    db_url: str, amostra: NominatimAmostra, home: Path, monkeypatch: pytest.MonkeyPatch
) -> str:
    """The worker of this test pointed at amostra (in process), its cursor seeded."""
    monkeypatch.setenv("D2_NOMINATIM_DSN", amostra.dsn)
    monkeypatch.setenv("D2_HOME", str(home))
    monkeypatch.delenv("D2_NOMINATIM_URL", raising=False)
    loop.Worker(config.load(), url=db_url).executar(drain=True)  # boot: seeds the cursor
    return db_url


@pytest.fixture(scope="session")
def nominatim_amostra(
    pg_server: Server, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[NominatimAmostra]:
    exigir_nominatim()
    home = tmp_path_factory.mktemp("nominatim")
    arquivo = sample_osm.write_osm(home / "amostra.osm")
    yield construir_nominatim(pg_server, home, arquivo, f"nominatim_{os.getpid()}")


def ligar_nominatim(
    admin: psycopg.Connection[Any], amostra: NominatimAmostra, ligado: bool
) -> None:
    """Stop the sample Nominatim (no new connections, its sessions ended) or start it
    again; admin is a superuser connection to the same server."""
    banco = str(psycopg.conninfo.conninfo_to_dict(amostra.dsn)["dbname"])
    admin.execute(
        sql.SQL("ALTER DATABASE {} WITH ALLOW_CONNECTIONS {}").format(
            sql.Identifier(banco), sql.SQL("true" if ligado else "false")
        )
    )
    if not ligado:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", [banco]
        )


@pytest.fixture
def geocoder_url(
    db_url: str,
    nominatim_amostra: NominatimAmostra,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> str:
    """This test's database with the sample territory loaded, the worker pointed at the
    session's sample Nominatim (in process), the cursor seeded."""

    sample.load_sample(db_url)
    return apontar_worker(db_url, nominatim_amostra, tmp_path / "home", monkeypatch)


@pytest.fixture(scope="session")
def nominatim_http(nominatim_amostra: NominatimAmostra) -> Iterator[str]:
    """`nominatim serve` (falcon + uvicorn) over the sample database, on 127.0.0.1."""
    pytest.importorskip("falcon", reason="falcon not installed (pip install -e '.[dev]')")
    pytest.importorskip("uvicorn", reason="uvicorn not installed (pip install -e '.[dev]')")
    porta = porta_livre()
    dsn = local.dsn_nominatim(nominatim_amostra.dsn)
    ambiente = os.environ | {"NOMINATIM_DATABASE_DSN": dsn}
    executavel = Path(sys.executable).parent / "nominatim"
    processo = subprocess.Popen(
        [
            str(executavel if executavel.exists() else "nominatim"),
            "serve",
            "--server",
            f"127.0.0.1:{porta}",
            "--engine",
            "falcon",
            "--project-dir",
            str(nominatim_amostra.projeto),
        ],
        env=ambiente,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{porta}"
    try:
        prazo = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{url}/status", timeout=2):
                    break
            except OSError:
                if processo.poll() is not None or time.monotonic() > prazo:
                    raise RuntimeError("nominatim serve did not start") from None
                time.sleep(0.2)
        yield url
    finally:
        processo.terminate()
        processo.wait(timeout=10)
