"""A primary and its streaming hot standbys, built by the tests with the embedded cluster's
PostgreSQL binaries (d2.embedded: the same folders, sockets and unprivileged OS user),
and what a failover manager does to them: SIGKILL a postmaster, promote a standby.

Every server listens on the Unix socket of its own folder only; one multi-host URL over
those sockets (`host=P,S&port=..,..&target_session_attrs=read-write`) reaches whichever
one is the primary now, as an operator's DATABASE_URL does across a failover.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import psycopg

from d2 import embedded

# What the tests let in over the servers' private sockets: any role (the worker's login,
# producers), and the standbys' replication connections.
PG_HBA = "# tests only\nlocal all all trust\nlocal replication all trust\n"
NOME_STANDBY = "d2_standby"


def _como_servidor(args: list[str]) -> None:
    """Run a server binary as the user the embedded clusters run as (root cannot)."""
    usuario = os.environ.get("D2_PG_OS_USER", "postgres") if os.geteuid() == 0 else None
    argv = ["runuser", "-u", usuario, "--", *args] if usuario else args
    proc = subprocess.run(argv, capture_output=True, text=True, check=False, cwd="/")
    assert proc.returncode == 0, f"{Path(args[0]).name}: {proc.stderr or proc.stdout}"


@dataclass
class Servidor:
    """One server of the group: its embedded cluster, and whether it was killed."""

    cluster: embedded.Cluster
    morto: bool = False
    _shm: list[str] = field(default_factory=list)

    @property
    def home(self) -> Path:
        return self.cluster.home

    def url(self, dbname: str) -> str:
        """The superuser on this server alone."""
        return self.cluster.url(dbname)

    def em_recuperacao(self) -> bool:
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            row = conn.execute("SELECT pg_is_in_recovery()").fetchone()
            return bool(row and row[0])

    def matar(self) -> None:
        """SIGKILL the postmaster, as a machine that dies; its backends notice and leave
        (a commit waiting for the synchronous standby is never acknowledged), and the
        test waits until they have."""
        linhas = (self.cluster.datadir / "postmaster.pid").read_text().splitlines()
        postmaster = int(linhas[0])
        filhos = [p for p in _processos() if _pai(p) == postmaster]
        self._shm = linhas[6].split()[1:] if len(linhas) > 6 else []
        os.kill(postmaster, signal.SIGKILL)
        self.morto = True
        prazo = time.monotonic() + 30
        while any(_vivo(p) for p in [postmaster, *filhos]):
            assert time.monotonic() < prazo, "the killed server's backends stayed"
            time.sleep(0.02)

    def walreceiver(self) -> int:
        """The pid of this standby's WAL receiver (SIGSTOP it and the standby falls
        behind its primary, as over a slow link)."""
        postmaster = int((self.cluster.datadir / "postmaster.pid").read_text().split()[0])
        for pid in _processos():
            with contextlib.suppress(OSError):
                if (
                    _pai(pid) == postmaster
                    and b"walreceiver" in Path(f"/proc/{pid}/cmdline").read_bytes()
                ):
                    return pid
        raise AssertionError("the standby has no WAL receiver")

    def promover(self) -> None:
        """pg_ctl promote, waiting until the server takes writes."""
        _como_servidor(
            [str(embedded.bindir() / "pg_ctl"), "promote", "-w", "-D", str(self.cluster.datadir)]
        )

    def parar(self) -> None:
        if not self.morto:
            embedded.stop(self.home)
        for shmid in self._shm:  # a killed postmaster leaves its segment behind
            subprocess.run(["ipcrm", "-m", shmid], capture_output=True, check=False)


def _processos() -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def _pai(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return -1
    return int(stat.rsplit(")", 1)[1].split()[1])


def _vivo(pid: int) -> bool:
    try:
        estado = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return estado != "Z"


def _pasta() -> Path:
    home = Path(tempfile.mkdtemp(prefix="d2-replication-"))
    home.chmod(0o755)  # the server may run as another OS user (d2.embedded.start)
    return home


def _abrir(servidor: embedded.Cluster) -> None:
    (servidor.datadir / "pg_hba.conf").write_text(PG_HBA)
    with psycopg.connect(servidor.url("postgres"), autocommit=True) as conn:
        conn.execute("SELECT pg_reload_conf()")


@dataclass
class Grupo:
    """The servers built so far; the test's multi-host URL lists them in order."""

    servidores: list[Servidor] = field(default_factory=list)

    def primario(self) -> Servidor:
        """A new primary (alone until a standby is made of it)."""
        cluster = embedded.start(_pasta(), fast=True)
        self.servidores.append(Servidor(cluster))
        _abrir(cluster)
        return self.servidores[-1]

    def standby(self, de: Servidor, *, sincrono: bool = True) -> Servidor:
        """A streaming hot standby of `de` (pg_basebackup), then `de`'s synchronous
        standby: `de` acknowledges a commit only once the standby has it (the throw-away
        clusters run with synchronous_commit off; replication that loses nothing needs it
        on). The standby's own settings: its socket, and no synchronous standby of its
        own, so that once promoted it commits alone, as a failover manager leaves it."""
        home = _pasta()
        dono = None
        if os.geteuid() == 0:
            entrada = pwd.getpwnam(os.environ.get("D2_PG_OS_USER", "postgres"))
            dono = (entrada.pw_uid, entrada.pw_gid)
            os.chown(home, *dono)
        home.chmod(0o700)
        datadir = embedded.Cluster(home).datadir
        _como_servidor([
            str(embedded.bindir() / "pg_basebackup"), "-D", str(datadir),
            "-h", str(de.cluster.socketdir), "-p", str(de.cluster.port), "-U", embedded.SUPERUSER,
            "-X", "stream", "-c", "fast", "-R",
        ])  # fmt: skip
        auto = datadir / "postgresql.auto.conf"
        with auto.open("a") as conf:
            conf.write(
                f"unix_socket_directories = '{home / 'run'}'\n"
                f"cluster_name = '{NOME_STANDBY}'\n"
                "synchronous_standby_names = ''\n"
            )
        cluster = embedded.start(home, fast=True)
        self.servidores.append(Servidor(cluster))
        _abrir(cluster)
        with psycopg.connect(de.url("postgres"), autocommit=True) as conn:
            conn.execute("ALTER SYSTEM SET synchronous_commit = on")
            if sincrono:
                conn.execute(f"ALTER SYSTEM SET synchronous_standby_names = '{NOME_STANDBY}'")
            conn.execute("SELECT pg_reload_conf()")
            prazo = time.monotonic() + 30
            while conn.execute(
                "SELECT 1 FROM pg_stat_replication WHERE application_name = %s "
                "AND sync_state = %s AND replay_lsn >= pg_current_wal_lsn()",
                [NOME_STANDBY, "sync" if sincrono else "async"],
            ).fetchone() is None:  # fmt: skip
                assert time.monotonic() < prazo, "the standby did not catch up"
                time.sleep(0.05)
        return self.servidores[-1]

    def url(self, dbname: str, usuario: str = embedded.SUPERUSER, senha: str = "") -> str:
        """One URL over every server, to the one that takes writes."""
        auth = usuario + (f":{quote(senha)}" if senha else "")
        hosts = ",".join(quote(str(s.cluster.socketdir)) for s in self.servidores)
        portas = ",".join(str(s.cluster.port) for s in self.servidores)
        return (
            f"postgresql://{auth}@/{dbname}?host={hosts}&port={portas}"
            "&target_session_attrs=read-write"
        )

    def parar(self) -> None:
        for servidor in reversed(self.servidores):
            with contextlib.suppress(Exception):
                servidor.parar()
            shutil.rmtree(servidor.home, ignore_errors=True)


@contextlib.contextmanager
def grupo() -> Iterator[Grupo]:
    """Servers built on demand, all stopped and removed on exit."""
    g = Grupo()
    try:
        yield g
    finally:
        g.parar()
