"""scripts/apt_install.sh, which scripts/setup.sh installs system packages with, waits for
another apt or dpkg (a new machine's unattended upgrades) instead of failing at once: it
names the process holding the lock in one line, calls apt-get only once the lock is free,
and past D2_APT_LOCK_TIMEOUT gives up in one line.

The locks are real POSIX (fcntl) locks, the kind apt and dpkg take, held by this test's
process on lock files of its own (D2_APT_LOCKS): the script finds them in /proc/locks as
it finds apt's. apt-get is a stub put first on PATH (and sudo, for a run that is not
root's), because it is truly external: the real one would update and install packages
on the machine running the tests."""

from __future__ import annotations

import fcntl
import os
import queue
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

RAIZ = Path(__file__).resolve().parents[2]
SCRIPT = RAIZ / "scripts" / "apt_install.sh"

pytestmark = pytest.mark.skipif(
    not Path("/proc/locks").exists(), reason="needs Linux's /proc/locks"
)

# The stub: logs its arguments; while the file `falhas` holds a number above zero, it
# fails as apt-get update fails on a held lock (or with the text of `erro`) and counts down.
APT_GET = """#!/bin/sh
dir="$(dirname "$0")/.."
if [ -s "$dir/falhas" ] && [ "$(cat "$dir/falhas")" -gt 0 ]; then
    echo $(( $(cat "$dir/falhas") - 1 )) > "$dir/falhas"
    echo "$*" >> "$dir/recusadas.log"
    cat "$dir/erro" >&2
    exit 100
fi
echo "$*" >> "$dir/apt-get.log"
"""
LOCK_ERROR = (
    "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242 (apt-get)\n"
    "E: Unable to lock directory /var/lib/apt/lists/\n"
)


@dataclass
class Ambiente:
    pasta: Path
    locks: list[Path]
    env: dict[str, str]
    processos: list[subprocess.Popen[str]] = field(default_factory=list)

    def chamadas(self) -> list[str]:
        registro = self.pasta / "apt-get.log"
        return registro.read_text().splitlines() if registro.exists() else []

    def falhar(self, vezes: int, erro: str) -> None:
        (self.pasta / "falhas").write_text(f"{vezes}\n")
        (self.pasta / "erro").write_text(erro)


@pytest.fixture
def ambiente(tmp_path: Path) -> Iterator[Ambiente]:
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for nome, texto in (("apt-get", APT_GET), ("sudo", '#!/bin/sh\nexec "$@"\n')):
        (bin_ / nome).write_text(texto)
        (bin_ / nome).chmod(0o755)
    locks = [tmp_path / "lock-frontend", tmp_path / "lists-lock"]
    for lock in locks:
        lock.touch()
    env = {
        **os.environ,
        "PATH": f"{bin_}:{os.environ['PATH']}",
        "D2_APT_LOCKS": " ".join(str(t) for t in locks),
        "D2_APT_LOCK_TIMEOUT": "60",
    }
    ambiente = Ambiente(tmp_path, locks, env)
    yield ambiente
    for processo in ambiente.processos:  # a failed test leaves no script running
        if processo.poll() is None:
            processo.kill()
            processo.wait()
        if processo.stderr is not None:
            processo.stderr.close()


@contextmanager
def segurando(lock: Path) -> Iterator[None]:
    """Holds an exclusive POSIX lock on the file, as apt does, until the block ends."""
    fd = os.open(lock, os.O_RDWR)
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield
    finally:
        os.close(fd)


class Execucao:
    """The script running, its stderr read line by line as it comes."""

    def __init__(self, ambiente: Ambiente, *pacotes: str) -> None:
        self.processo = subprocess.Popen(
            [str(SCRIPT), *pacotes], env=ambiente.env, stderr=subprocess.PIPE, text=True
        )
        ambiente.processos.append(self.processo)
        self.linhas: list[str] = []
        self._fila: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._ler, daemon=True).start()

    def _ler(self) -> None:
        assert self.processo.stderr is not None
        for linha in self.processo.stderr:
            self._fila.put(linha.rstrip("\n"))
        self._fila.put(None)

    def esperar_linha(self, trecho: str, segundos: float = 15) -> str:
        limite = time.monotonic() + segundos
        while (resta := limite - time.monotonic()) > 0:
            try:
                linha = self._fila.get(timeout=resta)
            except queue.Empty:
                break
            if linha is None:
                break
            self.linhas.append(linha)
            if trecho in linha:
                return linha
        raise AssertionError(f"no line with {trecho!r} on stderr: {self.linhas}")

    def terminar(self, segundos: float = 30) -> int:
        codigo = self.processo.wait(timeout=segundos)
        while (linha := self._fila.get(timeout=5)) is not None:
            self.linhas.append(linha)
        return codigo


def test_apt_install__waits_for_the_held_lock_naming_its_holder_then_installs(
    ambiente: Ambiente,
) -> None:
    with segurando(ambiente.locks[1]):
        execucao = Execucao(ambiente, "pacote-a", "pacote-b")
        espera = execucao.esperar_linha("another apt or dpkg")
        assert f"{ambiente.locks[1]}, held by process {os.getpid()} (" in espera
        time.sleep(2)
        assert execucao.processo.poll() is None
        assert ambiente.chamadas() == []  # apt-get is not called while the lock is held
    assert execucao.terminar() == 0
    assert [re.sub(r"Timeout=\d+", "Timeout=N", c) for c in ambiente.chamadas()] == [
        "-o DPkg::Lock::Timeout=N update -qq",
        "-o DPkg::Lock::Timeout=N install -y -qq pacote-a pacote-b",
    ]
    # One line for the wait, not one a second.
    assert sum("another apt or dpkg" in linha for linha in execucao.linhas) == 1


def test_apt_install__gives_up_past_its_bound_in_one_line(ambiente: Ambiente) -> None:
    ambiente.env["D2_APT_LOCK_TIMEOUT"] = "2"
    with segurando(ambiente.locks[0]):
        inicio = time.monotonic()
        execucao = Execucao(ambiente, "pacote-a")
        assert execucao.terminar() == 1
        assert time.monotonic() - inicio < 10
    assert ambiente.chamadas() == []
    assert execucao.linhas[-1].startswith(
        f"setup: gave up after 2 s waiting for {ambiente.locks[0]}, held by process {os.getpid()} ("
    )
    assert sum("another apt or dpkg" in linha for linha in execucao.linhas) == 1


def test_apt_install__a_lock_taken_after_the_wait_is_waited_out_too(ambiente: Ambiente) -> None:
    # Another apt takes the lists' lock between the wait and the call: apt-get update
    # fails on it at once (it does not wait for that lock), and the call is made again.
    ambiente.falhar(2, LOCK_ERROR)
    execucao = Execucao(ambiente, "pacote-a")
    assert execucao.terminar() == 0
    assert [c.split()[2] for c in ambiente.chamadas()] == ["update", "install"]
    assert len((ambiente.pasta / "recusadas.log").read_text().splitlines()) == 2
    assert not any("Could not get lock" in linha for linha in execucao.linhas)


def test_apt_install__another_failure_is_not_retried(ambiente: Ambiente) -> None:
    ambiente.falhar(1, "E: Unable to locate package pacote-x\n")
    execucao = Execucao(ambiente, "pacote-x")
    assert execucao.terminar() == 100
    assert ambiente.chamadas() == []
    assert "E: Unable to locate package pacote-x" in execucao.linhas


def test_apt_install__a_bound_that_is_no_number_is_refused(ambiente: Ambiente) -> None:
    ambiente.env["D2_APT_LOCK_TIMEOUT"] = "ten minutes"
    execucao = Execucao(ambiente, "pacote-a")
    assert execucao.terminar() == 2
    assert execucao.linhas == [
        "setup: D2_APT_LOCK_TIMEOUT must be a whole number of seconds, not 'ten minutes'"
    ]
    assert ambiente.chamadas() == []
