"""The real `d2 worker` as subprocesses, a mixed backlog, and waiting helpers: shared by the
chaos suite and the multi-worker tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tests.support import Conn

D2 = [sys.executable, "-m", "d2.cli"]
POLL_S = 0.2

LIDER = "Worker ativo (liderança obtida)"
_INICIADOS: list[ProcessoWorker] = []
STANDBY = "Outro worker está ativo; aguardando em standby"


class ProcessoWorker:
    """One `d2 worker` process; its JSON logs (stderr) go to its own file."""

    def __init__(self, db_url: str, log: Path, *args: str, **env: str) -> None:
        self.log = log
        self._env = os.environ | {"DATABASE_URL": db_url, "D2_POLL_INTERVAL": str(POLL_S)} | env
        self._args = args
        self.proc: subprocess.Popen[bytes] | None = None

    def iniciar(self) -> ProcessoWorker:
        with open(self.log, "ab") as saida:
            self.proc = subprocess.Popen(
                [*D2, "worker", *self._args],
                env=self._env,
                stdout=subprocess.DEVNULL,
                stderr=saida,
            )
        _INICIADOS.append(self)
        return self

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def vivo(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def matar(self) -> None:
        """SIGKILL (no clean-up at all), and reap it."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def terminar(self, timeout_s: float = 30) -> int:
        """SIGTERM and the exit code (kills it if it does not leave in time)."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.matar()
            raise AssertionError(f"worker ignored SIGTERM:\n{self.cauda()}") from None

    def texto(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def cauda(self, n: int = 3000) -> str:
        return self.texto()[-n:]

    def lider(self) -> bool:
        """It has taken the leadership at least once (its log says so)."""
        return LIDER in self.texto()


def matar_restantes() -> None:
    """SIGKILL every worker a test started and left running (e.g. it failed midway)."""
    while _INICIADOS:
        _INICIADOS.pop().matar()


def esperar(condicao: Callable[[], bool], timeout_s: float, passo_s: float = 0.05) -> float:
    """Seconds until condicao() held; AssertionError after timeout_s."""
    inicio = time.monotonic()
    while time.monotonic() - inicio < timeout_s:
        if condicao():
            return time.monotonic() - inicio
        time.sleep(passo_s)
    raise AssertionError(f"condition not met within {timeout_s} s")


def lag(conn: Conn) -> int:
    """Events of demanda.normalizada after the cursor (-1 before the cursor exists)."""
    row = conn.execute(
        "SELECT eventos_pendentes FROM d2.v_consumer_lag WHERE tipo_evento = 'demanda.normalizada'"
    ).fetchone()
    return -1 if row is None else int(row["eventos_pendentes"])


def publicacoes_repetidas(conn: Conn) -> int:
    """demanda.georreferenciada published more than once for one demanda (no replay was
    forced, so every resolution is published exactly once)."""
    row = conn.execute(
        """
        SELECT coalesce(sum(n - 1), 0) AS extra FROM (
            SELECT count(*) AS n FROM core.event_log
            WHERE tipo = 'demanda.georreferenciada'
            GROUP BY payload ->> 'demanda_id'
        ) por_demanda
        """
    ).fetchone()
    assert row is not None
    return int(row["extra"])
