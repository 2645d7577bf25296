"""The embedded cluster is private: another local account can neither connect to it nor
trick d2 into using a folder it controls.

The attacks by another OS user need root (to create that throw-away user with useradd and
run as it with runuser); CI runs as root. Elsewhere they skip, saying so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from d2 import embedded, errors

precisa_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="needs root: creates a throw-away OS user to attack with"
)


@pytest.fixture
def base() -> Iterator[Path]:
    """A folder the cluster's OS user can traverse (as tests/conftest.py makes its own)."""
    pasta = Path(tempfile.mkdtemp(prefix="d2-seg-"))
    os.chmod(pasta, 0o755)
    try:
        yield pasta
    finally:
        for home in pasta.iterdir():
            if (home / "pgdata" / "PG_VERSION").exists():
                embedded.stop(home)
        shutil.rmtree(pasta, ignore_errors=True)


@pytest.fixture
def atacante() -> Iterator[str]:
    """A throw-away unprivileged OS user, deleted afterwards."""
    nome = f"d2atk{os.getpid() % 100000}"
    subprocess.run(
        ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", nome],
        check=True,
        capture_output=True,
    )
    try:
        yield nome
    finally:
        subprocess.run(["userdel", nome], check=False, capture_output=True)


def _como(usuario: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["runuser", "-u", usuario, "--", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd="/",
    )


@precisa_root
def test_another_os_user_cannot_connect(base: Path, atacante: str) -> None:
    cluster = embedded.start(base / "home", fast=True)
    psql = str(embedded.bindir() / "psql")
    socket = cluster.socketdir / f".s.PGSQL.{cluster.port}"
    assert socket.exists()

    tentativa = _como(atacante, psql, cluster.url("postgres"), "-Atc", "SELECT 1")
    assert tentativa.returncode != 0 and "1" not in tentativa.stdout
    assert "permission denied" in tentativa.stderr.lower()
    for caminho in (cluster.home, cluster.socketdir, cluster.datadir):
        assert caminho.stat().st_mode & 0o777 == 0o700, caminho

    # Even with every folder and the socket opened up, peer authentication maps only the
    # users that run d2: the attacker is turned away by the server itself.
    for caminho in (cluster.home, cluster.socketdir):
        caminho.chmod(0o755)
    socket.chmod(0o777)
    tentativa = _como(atacante, psql, cluster.url("postgres"), "-Atc", "SELECT 1")
    assert tentativa.returncode != 0 and "1" not in tentativa.stdout
    assert "peer authentication failed" in tentativa.stderr.lower()

    # Root (which runs d2 here) still gets in.
    with psycopg.connect(cluster.url("postgres")) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_home_writable_by_others_is_refused(base: Path) -> None:
    home = base / "aberto"
    home.mkdir()
    home.chmod(0o777)
    with pytest.raises(errors.EmbeddedClusterError, match="writable by group or others"):
        embedded.start(home, fast=True)
    assert not (home / "pgdata").exists()


@precisa_root
def test_home_owned_by_another_user_is_refused(base: Path, atacante: str) -> None:
    home = base / "alheio"
    home.mkdir(mode=0o700)
    shutil.chown(home, user=atacante)
    with pytest.raises(errors.EmbeddedClusterError, match="owned by uid"):
        embedded.start(home, fast=True)
    assert not (home / "pgdata").exists()


@precisa_root
def test_as_root_no_symlink_is_followed(base: Path) -> None:
    vitima = base / "vitima"
    vitima.write_text("do not touch")
    alvo = base / "alvo"
    alvo.mkdir(mode=0o700)
    (base / "ligacao").symlink_to(alvo)
    with pytest.raises(errors.EmbeddedClusterError, match="is a symlink"):
        embedded.start(base / "ligacao", fast=True)

    home = base / "plantado"
    home.mkdir(mode=0o700)
    (home / ".lock").symlink_to(vitima)  # root would open, maybe truncate, the target
    with pytest.raises(errors.EmbeddedClusterError, match="cannot open"):
        embedded.start(home, fast=True)
    (home / ".lock").unlink()
    (home / "run").symlink_to(alvo)  # and chown it to the server's user
    with pytest.raises(errors.EmbeddedClusterError, match="is a symlink"):
        embedded.start(home, fast=True)
    assert vitima.read_text() == "do not touch"
    assert alvo.stat().st_uid == 0 and not (home / "pgdata").exists()


def test_socket_path_is_quoted_in_the_configuration(base: Path) -> None:
    """A quote in D2_HOME would end the string in postgresql.conf and let the rest of the
    path add settings; a line break is refused outright."""
    home = base / "d2 o'home' listen_addresses='*"
    cluster = embedded.start(home, fast=True)
    with psycopg.connect(cluster.url("postgres")) as conn:
        linha = conn.execute("SHOW unix_socket_directories").fetchone()
        assert linha == (str(cluster.socketdir),)
        assert conn.execute("SHOW listen_addresses").fetchone() == ("",)
        assert conn.execute("SHOW unix_socket_permissions").fetchone() == ("0700",)
    with pytest.raises(errors.EmbeddedClusterError, match="control characters"):
        embedded.start(base / "x\nlisten_addresses = '*'", fast=True)
