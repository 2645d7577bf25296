"""The embedded default: a private PostgreSQL + PostGIS cluster under ./.d2/.

PostgreSQL refuses to run as root, so when d2 runs as root the server runs as an
unprivileged user (D2_PG_OS_USER, default `postgres`, which Debian's package creates).
The cluster listens only on a Unix socket inside its own folder: no port to collide
with, nothing reachable from the network.

It holds citizens' locations and its role is a superuser (COPY ... TO PROGRAM runs
commands as the server's OS user), so no other local account may reach it: the folders
are 0700 and the socket 0700 (another user cannot even connect()), and authentication is
`peer` mapped to exactly the OS users that run d2 (pg_ident.conf), not `trust`. D2_HOME
must be owned by the user (when root: by root or by the server's user) and not writable
by group or others; when root, no symlink is followed in it.
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import os
import pwd
import shutil
import stat
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from d2 import db, errors

DBNAME = "d2"
SUPERUSER = "postgres"


@dataclass(frozen=True)
class Cluster:
    home: Path
    port: int = int(os.environ.get("D2_EMBEDDED_PORT", "5432"))

    @property
    def datadir(self) -> Path:
        return self.home / "pgdata"

    @property
    def socketdir(self) -> Path:
        return self.home / "run"

    @property
    def logfile(self) -> Path:
        return self.home / "postgres.log"

    def url(self, dbname: str = DBNAME) -> str:
        return (
            f"postgresql://{SUPERUSER}@/{dbname}?host={quote(str(self.socketdir))}&port={self.port}"
        )


def bindir() -> Path:
    """The newest PostgreSQL server binaries on this machine."""
    override = os.environ.get("D2_PG_BINDIR")
    candidates = [override] if override else []
    pg_config = shutil.which("pg_config")
    if pg_config:
        out = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, check=False)
        candidates.append(out.stdout.strip())
    candidates += sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name), reverse=True
    )
    for candidate in candidates:
        if candidate and (Path(candidate) / "initdb").exists():
            return Path(candidate)
    raise errors.EmbeddedClusterError(
        "PostgreSQL server binaries not found (Debian/Ubuntu: "
        "apt-get install postgresql-15 postgresql-15-postgis-3), or set DATABASE_URL"
    )


def _os_user() -> str | None:
    """The unprivileged user the server runs as, or None to run as ourselves."""
    if os.geteuid() != 0:
        return None
    name = os.environ.get("D2_PG_OS_USER", "postgres")
    try:
        pwd.getpwnam(name)
    except KeyError:
        raise errors.EmbeddedClusterError(
            f"running as root, and the unprivileged user {name!r} that would run PostgreSQL "
            "does not exist (install postgresql, or set D2_PG_OS_USER)"
        ) from None
    return name


def _run(
    args: list[str], *, check: bool = True, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    user = _os_user()
    argv = ["runuser", "-u", user, "--", *args] if user else args
    proc = subprocess.run(argv, input=stdin, capture_output=True, text=True, check=False, cwd="/")
    if check and proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        raise errors.EmbeddedClusterError(
            f"{Path(args[0]).name} failed: {detail[-1] if detail else proc.returncode}"
        )
    return proc


def _pasta_privada(caminho: Path, dono: tuple[int, int] | None) -> None:
    """Create `caminho` (one level) or take it as it is, refuse it when someone else could
    have planted something in it, then make it 0700 (and owned by `dono`, when root).

    Everything is done on a descriptor opened with O_NOFOLLOW: a symlink swapped in
    between the check and the chown/chmod is never followed.
    """
    with contextlib.suppress(FileExistsError):
        caminho.mkdir(mode=0o700)
    try:
        fd = os.open(caminho, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError as exc:
        motivo = "is a symlink" if caminho.is_symlink() else (exc.strerror or str(exc))
        raise errors.EmbeddedClusterError(
            f"refusing D2_HOME folder {caminho}: {motivo} (give a real folder)"
        ) from None
    try:
        info = os.fstat(fd)
        donos = {os.geteuid()} | ({dono[0]} if dono else set())
        if info.st_uid not in donos:
            raise errors.EmbeddedClusterError(
                f"refusing D2_HOME folder {caminho}: owned by uid {info.st_uid}, not by "
                "this user (another account could read or replace the database)"
            )
        if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            raise errors.EmbeddedClusterError(
                f"refusing D2_HOME folder {caminho}: writable by group or others "
                f"(mode {stat.S_IMODE(info.st_mode):04o}); chmod 700 it"
            )
        if dono:
            os.fchown(fd, *dono)
        os.fchmod(fd, 0o700)
    finally:
        os.close(fd)


def _dono() -> tuple[int, int] | None:
    """(uid, gid) of the server's OS user when we are root, else None (ourselves)."""
    user = _os_user()
    if not user:
        return None
    entry = pwd.getpwnam(user)
    return entry.pw_uid, entry.pw_gid


def _checar_caminho(home: Path) -> None:
    # postgresql.conf holds the socket path in a quoted string: no line breaks or NULs.
    if any(ord(c) < 32 or c == "\x7f" for c in str(home)):
        raise errors.EmbeddedClusterError(
            f"refusing D2_HOME {str(home)!r}: control characters in the path"
        )


def _prepare_home(cluster: Cluster) -> None:
    user = _os_user()
    dono = _dono()
    for path in (cluster.home, cluster.socketdir):
        _pasta_privada(path, dono)
    if user:
        probe = _run(["test", "-w", str(cluster.home)], check=False)
        if probe.returncode != 0:
            raise errors.EmbeddedClusterError(
                f"user {user!r} cannot reach {cluster.home}: a parent folder is not "
                "traversable; set D2_HOME to a folder it can reach (e.g. under /tmp)"
            )


@contextlib.contextmanager
def _locked(cluster: Cluster) -> Iterator[None]:
    _checar_caminho(cluster.home)
    cluster.home.parent.mkdir(parents=True, exist_ok=True)
    _pasta_privada(cluster.home, _dono())
    # O_NOFOLLOW, no O_TRUNC: a .lock planted as a symlink is refused, not written through.
    try:
        fd = os.open(cluster.home / ".lock", os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError as exc:
        raise errors.EmbeddedClusterError(
            f"cannot open {cluster.home / '.lock'}: {exc.strerror or exc}"
        ) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def is_running(cluster: Cluster) -> bool:
    if not (cluster.datadir / "PG_VERSION").exists():
        return False
    proc = _run([str(bindir() / "pg_ctl"), "status", "-D", str(cluster.datadir)], check=False)
    return proc.returncode == 0


def _initdb(cluster: Cluster, *, fast: bool) -> None:
    _run(
        [
            str(bindir() / "initdb"),
            "-D",
            str(cluster.datadir),
            "-U",
            SUPERUSER,
            "--auth-local=peer",
            "--auth-host=reject",
            "--encoding=UTF8",
            "--locale=C.UTF-8",
        ]
    )
    settings = [
        "listen_addresses = ''",
        f"unix_socket_directories = {_texto_conf(str(cluster.socketdir))}",
        "unix_socket_permissions = 0700",
        f"port = {cluster.port}",
        "max_connections = 200",
        "shared_buffers = 256MB",
        "work_mem = 32MB",
        "maintenance_work_mem = 256MB",
        "max_wal_size = 2GB",
        "logging_collector = off",
    ]
    if fast:
        # Throw-away clusters (tests, benchmarks of the code rather than the disk).
        settings += ["fsync = off", "synchronous_commit = off", "full_page_writes = off"]
    conf = cluster.datadir / "postgresql.conf"
    text = "\n# d2 embedded settings\n" + "\n".join(settings) + "\n"
    _run(["sh", "-c", 'cat >> "$0"', str(conf)], stdin=text)


def _escrever_autenticacao(cluster: Cluster) -> None:
    """pg_hba.conf and pg_ident.conf, rewritten on every start: a cluster made before them
    (trust for everyone) is closed too, and the map follows the user running d2."""
    _run(["sh", "-c", 'cat > "$0"', str(cluster.datadir / "pg_hba.conf")], stdin=_PG_HBA)
    _run(["sh", "-c", 'cat > "$0"', str(cluster.datadir / "pg_ident.conf")], stdin=_pg_ident())


# Unix socket only, peer-authenticated through the d2 map: the OS user's name must be one
# pg_ident.conf lets in as the role asked for.
_PG_HBA = "# d2 embedded: written by d2\nlocal all all peer map=d2\n"


def _pg_ident() -> str:
    """The OS users that may log in as the superuser role: whoever runs d2 and, when that is
    root, the server's own user (which runs pg_ctl)."""
    try:
        nomes = [pwd.getpwuid(os.geteuid()).pw_name]
    except KeyError:
        raise errors.EmbeddedClusterError(
            f"uid {os.geteuid()} has no name (no passwd entry): the embedded cluster's peer "
            "authentication needs one; add the user, or set DATABASE_URL"
        ) from None
    user = _os_user()
    if user and user not in nomes:
        nomes.append(user)
    linhas = [f"d2 {nome} {SUPERUSER}" for nome in nomes]
    return "# d2 embedded: written by d2\n" + "\n".join(linhas) + "\n"


def _texto_conf(valor: str) -> str:
    """A postgresql.conf string literal: quotes doubled, backslashes escaped."""
    return "'" + valor.replace("\\", "\\\\").replace("'", "''") + "'"


def start(home: Path, *, fast: bool = False) -> Cluster:
    """Initialise (once) and start the cluster; create the database. Returns it."""
    cluster = Cluster(home.absolute())
    with _locked(cluster):
        _prepare_home(cluster)
        if not (cluster.datadir / "PG_VERSION").exists():
            _initdb(cluster, fast=fast)
        if not is_running(cluster):
            _escrever_autenticacao(cluster)
            _run(
                [
                    str(bindir() / "pg_ctl"),
                    "start",
                    "-w",
                    "-t",
                    "60",
                    "-D",
                    str(cluster.datadir),
                    "-l",
                    str(cluster.logfile),
                ]
            )
        _wait_ready(cluster)
        _create_database(cluster)
    return cluster


def _wait_ready(cluster: Cluster, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with db.connect(cluster.url("postgres"), connect_timeout=3):
                return
        except errors.DatabaseUnavailable as exc:
            if time.monotonic() > deadline:
                raise errors.EmbeddedClusterError(
                    f"the embedded cluster did not accept connections: {exc}"
                ) from exc
            time.sleep(0.2)


def _create_database(cluster: Cluster) -> None:
    with db.connect(cluster.url("postgres"), autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [DBNAME]).fetchone()
        if not exists:
            conn.execute(f"CREATE DATABASE {DBNAME}")  # constant identifier, no data


def stop(home: Path) -> bool:
    """Stop the cluster; False when it was not running."""
    cluster = Cluster(home.absolute())
    if not is_running(cluster):
        return False
    _run([str(bindir() / "pg_ctl"), "stop", "-w", "-m", "fast", "-D", str(cluster.datadir)])
    return True


@contextlib.contextmanager
def temporario(prefixo: str = "d2-", *, fast: bool = True) -> Iterator[Cluster]:
    """A throw-away cluster in a new temporary folder, stopped and removed on exit: the
    tests' and the benchmarks' (fast: fsync off, unless a figure needs the disk)."""
    home = Path(tempfile.mkdtemp(prefix=prefixo))
    home.chmod(0o755)  # the server may run as another OS user (see start)
    try:
        yield start(home, fast=fast)
    finally:
        stop(home)
        shutil.rmtree(home, ignore_errors=True)


def restart(home: Path) -> None:
    """Restart the running cluster (fast shutdown: connections are cut)."""
    cluster = Cluster(home.absolute())
    _run(
        [
            str(bindir() / "pg_ctl"),
            "restart",
            "-w",
            "-m",
            "fast",
            "-D",
            str(cluster.datadir),
            "-l",
            str(cluster.logfile),
        ]
    )


def status(home: Path) -> dict[str, object]:
    cluster = Cluster(home.absolute())
    initialised = (cluster.datadir / "PG_VERSION").exists()
    return {
        "home": str(cluster.home),
        "initialised": initialised,
        "running": initialised and is_running(cluster),
        "url": cluster.url(),
        "log": str(cluster.logfile),
    }


def ensure_started(home: Path) -> str:
    """The embedded database URL; starts and migrates the cluster when it is not running."""
    cluster = Cluster(home.absolute())
    if is_running(cluster):
        return cluster.url()
    start(home)
    from d2 import migrations  # late: avoids importing alembic for every command

    migrations.upgrade(cluster.url())
    return cluster.url()
