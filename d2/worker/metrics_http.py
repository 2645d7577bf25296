"""The worker's HTTP port (D2_METRICS_PORT): /metrics (d2.worker.metrics), /healthz and
/readyz (d2.worker.health), with its defence against idle, slow-drip and surplus clients:
a total deadline per connection, and a bound on the connections open at once that never
keeps a probe out.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import logging
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import prometheus_client

from d2.worker.health import WorkerState, vivo
from d2.worker.metrics import Metrics

# The port's lines keep the logger they always had (logs are a fixed interface).
log = logging.getLogger("d2.worker.metrics")

# Each connection lives at most this long, from accept to close, however its client
# trickles its bytes: a total deadline, not one per read (a byte every few seconds would
# renew a per-read timeout forever).
TEMPO_LIMITE_S = 5.0
# Connections open at once (and so threads). At the bound a new connection still gets a
# slot: the oldest one that is not answering a probe is closed. A probe sends its whole
# request at once and is answered in a millisecond, so idle or trickling clients, however
# many, cannot keep /healthz or /readyz out; a flood costs at most this many threads.
MAX_CONEXOES = 16
SONDAS = ("/healthz", "/readyz")
# How often the accept loop enforces the deadlines.
_TIQUE_S = 0.1
# At most one warning this often about clients cut short (a flood would fill the log).
_AVISO_A_CADA_S = 60.0


@dataclass
class _Conexao:
    prazo: float
    sonda: bool = False


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(
        self,
        endereco: tuple[str, int],
        metrics: Metrics | None,
        estado: Callable[[], WorkerState | None],
        limite_vivo_s: float,
        *,
        tempo_limite_s: float = TEMPO_LIMITE_S,
        max_conexoes: int = MAX_CONEXOES,
    ) -> None:
        super().__init__(endereco, _Handler)
        self.metrics = metrics
        self.estado = estado
        self.limite_vivo_s = limite_vivo_s
        self.tempo_limite_s = tempo_limite_s
        self.max_conexoes = max_conexoes
        # Open connections, oldest first (dicts keep insertion order), under _trava: the
        # accept loop, the handlers' threads and the deadline tick all touch it.
        self._conexoes: dict[socket.socket, _Conexao] = {}
        self._lock = threading.Lock()
        self._cortadas = 0
        self._aviso_em = 0.0
        self.thread: threading.Thread | None = None

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._lock:
            if len(self._conexoes) >= self.max_conexoes and not self._ceder_vaga():
                # Every slot is answering a probe at this very moment: brief, and rare.
                request.close()
                return
            self._conexoes[request] = _Conexao(time.monotonic() + self.tempo_limite_s)
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.shutdown_request(request)
            raise

    def _ceder_vaga(self) -> bool:
        """Close the oldest connection that is not answering a probe (under _trava)."""
        for sock, conexao in self._conexoes.items():
            if not conexao.sonda:
                self._cortar(sock)
                return True
        return False

    def _cortar(self, sock: socket.socket) -> None:
        """End a connection now (under _trava): its handler's read or write fails at once
        and its thread ends. Only sockets still registered are touched, so never one
        already closed (whose descriptor another connection may have taken)."""
        del self._conexoes[sock]
        self._cortadas += 1
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)

    def marcar_sonda(self, sock: socket.socket) -> None:
        with self._lock:
            conexao = self._conexoes.get(sock)
            if conexao is not None:
                conexao.sonda = True

    def service_actions(self) -> None:
        """Every tick of the accept loop: end the connections past their deadline."""
        agora = time.monotonic()
        with self._lock:
            for sock in [s for s, c in self._conexoes.items() if c.prazo <= agora]:
                self._cortar(sock)
            cortadas, avisar = self._cortadas, agora - self._aviso_em >= _AVISO_A_CADA_S
            if cortadas and avisar:
                self._cortadas, self._aviso_em = 0, agora
        if cortadas and avisar:
            log.warning(
                "metrics endpoint: slow, idle or surplus connections closed",
                extra={"conexoes": cortadas, "tempo_limite_s": self.tempo_limite_s},
            )

    def close_request(self, request: Any) -> None:
        with self._lock:
            self._conexoes.pop(request, None)
        super().close_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client cut at its deadline, or to make room, fails mid-request: no traceback.
        log.debug("metrics endpoint: connection ended early", exc_info=True)

    @property
    def abertas(self) -> int:
        """Connections open now."""
        with self._lock:
            return len(self._conexoes)

    @property
    def porta(self) -> int:
        return int(self.server_address[1])

    def parar(self) -> None:
        self.shutdown()
        self.server_close()


class _Handler(http.server.BaseHTTPRequestHandler):
    server: Server

    def setup(self) -> None:
        super().setup()
        # Per read and write too, in case the deadline tick is late.
        self.connection.settimeout(self.server.tempo_limite_s)

    def do_GET(self) -> None:
        caminho = self.path.split("?", 1)[0]
        if caminho in SONDAS:
            self.server.marcar_sonda(self.connection)
        if caminho == "/metrics" and self.server.metrics is not None:
            self._enviar(200, self.server.metrics.texto(), prometheus_client.CONTENT_TYPE_LATEST)
            return
        if caminho == "/healthz":
            ok, corpo = vivo(self.server.estado(), self.server.limite_vivo_s)
            self._json(200 if ok else 503, {"status": "ok" if ok else "stalled"} | corpo)
            return
        if caminho == "/readyz":
            estado = self.server.estado()
            pronto = bool(estado and estado.pronto)
            self._json(200 if pronto else 503, {"status": "ready" if pronto else "not ready"})
            return
        self._json(404, {"status": "not found", "paths": ["/metrics", "/healthz", "/readyz"]})

    def _json(self, codigo: int, corpo: dict[str, Any]) -> None:
        self._enviar(codigo, json.dumps(corpo, default=str).encode(), "application/json")

    def _enviar(self, codigo: int, corpo: bytes, tipo: str) -> None:
        self.send_response(codigo)
        self.send_header("Content-Type", tipo)
        self.send_header("Content-Length", str(len(corpo)))
        self.end_headers()
        self.wfile.write(corpo)

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("http: " + format, *args)


def iniciar_servidor(
    port: int,
    estado_provider: Callable[[], WorkerState | None],
    *,
    metrics: Metrics | None = None,
    host: str = "127.0.0.1",
    limite_vivo_s: float = 60.0,
    tempo_limite_s: float = TEMPO_LIMITE_S,
    max_conexoes: int = MAX_CONEXOES,
) -> Server | None:
    """Serve /metrics, /healthz and /readyz on a daemon thread; port 0 means disabled
    (returns None).

    /readyz is 200 once the worker finished its boot replay and holds the database
    (estado.pronto). /healthz is 200 while the loop moved within limite_vivo_s (the
    worker moves it after every batch and every idle poll, a standby on every check);
    give it a few poll intervals plus the longest batch and reconnect backoff.

    host: loopback by default (D2_METRICS_HOST); each connection lives tempo_limite_s at
    most, from accept to close, and at most max_conexoes are open at once: at the bound
    a new connection takes the slot of the oldest one not answering a probe.
    """
    if port == 0:
        return None
    servidor = Server(
        (host, port),
        metrics,
        estado_provider,
        limite_vivo_s,
        tempo_limite_s=tempo_limite_s,
        max_conexoes=max_conexoes,
    )
    servidor.thread = threading.Thread(
        target=servidor.serve_forever,
        kwargs={"poll_interval": _TIQUE_S},
        name="d2-metrics-http",
        daemon=True,
    )
    servidor.thread.start()
    log.info("metrics endpoint listening", extra={"host": host, "porta": servidor.porta})
    return servidor
