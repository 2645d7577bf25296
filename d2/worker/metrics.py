"""Prometheus metrics of the worker, and its /metrics, /healthz and /readyz endpoints.

Metrics live in their own CollectorRegistry (one per Metrics), never the global one.
Labels are bounded sets only (nivel, desfecho): no event ids, no coordinates.

The spec's d2_point_in_polygon_duration_ms is d2_point_in_polygon_duration_seconds
here (a histogram, Prometheus convention: base units).
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
from typing import Any, Protocol

import prometheus_client

from d2 import db
from d2.eventlog import bus
from d2.handler import classification, handler

log = logging.getLogger(__name__)

# Point-in-polygon over a batch: sub-millisecond for a cached point, up to seconds for a
# large batch against detailed polygons.
_BUCKETS_PIP = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)


class WorkerState(Protocol):
    """What the endpoints read from the worker (d2.worker.State satisfies it)."""

    pronto: bool
    lider: bool
    ultimo_avanco: float
    standby_desde: float | None
    limite_standby_s: float
    alertas: dict[str, dict[str, Any]]
    """What holds the worker's events or mirror back past its bound ("cerca", "mirror"),
    each with its "motivo" and the sessions named; empty when nothing does."""


class Metrics:
    def __init__(self) -> None:
        self.registry = prometheus_client.CollectorRegistry(auto_describe=True)
        r = self.registry
        self.georreferenciadas = prometheus_client.Counter(
            "d2_demandas_georreferenciadas",
            "Demands georeferenced (new resolutions), by level of the resolved UC.",
            ["nivel"],
            registry=r,
        )
        self.pip = prometheus_client.Histogram(
            "d2_point_in_polygon_duration_seconds",
            "Time resolving a batch's points against the polygons (spec: "
            "d2_point_in_polygon_duration_ms).",
            buckets=_BUCKETS_PIP,
            registry=r,
        )
        self.cache_hits = prometheus_client.Counter("d2_cache_hits", "Geo cache hits.", registry=r)
        self.cache_misses = prometheus_client.Counter(
            "d2_cache_misses", "Geo cache misses (points resolved in SQL).", registry=r
        )
        self.cache_ratio = prometheus_client.Gauge(
            "d2_cache_hit_ratio", "Geo cache hits / lookups since the worker started.", registry=r
        )
        self.eventos = prometheus_client.Counter(
            "d2_eventos_processados",
            "demanda.normalizada events handled, by outcome.",
            ["desfecho"],
            registry=r,
        )
        self.lag = prometheus_client.Gauge(
            "d2_consumer_lag", "Committed demanda.normalizada events behind the cursor.", registry=r
        )
        self.dead_letters = prometheus_client.Gauge(
            "d2_dead_letters", "Pending dead letters of D-2.", registry=r
        )
        self.revisoes = prometheus_client.Gauge(
            "d2_revisoes_pendentes", "Demands waiting for manual review.", registry=r
        )
        self.cerca_retidos = prometheus_client.Gauge(
            "d2_event_log_cerca_retidos",
            "Committed demanda.normalizada events held back: an older write transaction "
            "is still running somewhere in the cluster (delayed, never lost).",
            registry=r,
        )
        self.cerca_atraso = prometheus_client.Gauge(
            "d2_event_log_cerca_atraso_segundos",
            "Seconds since the oldest held-back event was inserted (0 when none waits).",
            registry=r,
        )
        self.cerca_pid = prometheus_client.Gauge(
            "d2_event_log_cerca_pid",
            "The session whose open transaction has held committed demands back longer "
            "than D2_FENCE_MAX_SECONDS (its pid; 0 when none, or when it cannot be named).",
            registry=r,
        )
        self.mirror_atraso = prometheus_client.Gauge(
            "d2_mirror_atraso_segundos",
            "Seconds the worker has been unable to apply waiting changes of "
            "core.uc_polygons (another session holds the appliers' lock, or the apply "
            "fails); 0 while it applies them.",
            registry=r,
        )
        self.mirror_lock_pid = prometheus_client.Gauge(
            "d2_mirror_lock_pid",
            "A session holding the mirror's lock while changes wait longer than "
            "D2_MIRROR_MAX_SECONDS (its pid; 0 when none).",
            registry=r,
        )
        self.ultimo_evento = prometheus_client.Gauge(
            "d2_ultimo_evento_processado_timestamp_seconds",
            "When the worker last handled a batch (Unix time).",
            registry=r,
        )
        for desfecho in classification.Outcome:  # every outcome shows, at 0, from the start
            self.eventos.labels(desfecho=str(desfecho))
        self._hits = 0
        self._misses = 0
        self._ultimo = 0.0

    def observar_lote(self, resultado: handler.Result, duracao_pip_s: float | None) -> None:
        """Count one handled batch. duracao_pip_s: time spent resolving its points (None
        when the batch resolved none in SQL)."""
        for desfecho, quantidade in resultado.contagem.items():
            if quantidade:
                self.eventos.labels(desfecho=desfecho).inc(quantidade)
        # service.Result.por_nivel (Counter[int] of new resolutions by level), when the
        # handler provides it.
        por_nivel: dict[int, int] = getattr(resultado, "por_nivel", None) or {}
        for nivel, quantidade in por_nivel.items():
            if quantidade:
                self.georreferenciadas.labels(nivel=str(nivel)).inc(quantidade)
        self._hits += resultado.cache_hits
        self._misses += resultado.resolvidos_sql
        self.cache_hits.inc(resultado.cache_hits)
        self.cache_misses.inc(resultado.resolvidos_sql)
        if self._hits + self._misses:
            self.cache_ratio.set(self._hits / (self._hits + self._misses))
        if duracao_pip_s is not None:
            self.pip.observe(duracao_pip_s)
        if sum(resultado.contagem.values()):
            self._marcar_ultimo(time.time())

    def atualizar_gauges(self, conn: db.Connection, cerca: bus.Fence | None = None) -> None:
        """Lag, pending dead letters and reviews, from the database (one cheap query), and
        what the fence holds back (cerca, when the caller has just read it)."""
        with db.mapped_errors():
            row = conn.execute(
                db.q("metrics_gauges"),
                {"tipo": handler.TIPO_ENTRADA, "consumidor": handler.CONSUMIDOR},
            ).fetchone()
        if cerca is None:
            cerca = bus.cerca(conn, handler.TIPO_ENTRADA)
        self.cerca_retidos.set(cerca.retidos)
        self.cerca_atraso.set(cerca.atraso_s)
        if row is None:
            return
        self.lag.set(row["lag"])
        self.dead_letters.set(row["dead_letters"])
        self.revisoes.set(row["revisoes_pendentes"])
        if row["ultimo_evento"] is not None:
            self._marcar_ultimo(float(row["ultimo_evento"]))

    def observar_alertas(self, alertas: dict[str, dict[str, Any]], mirror_atraso_s: float) -> None:
        """The sessions holding the fence or the mirror's lock past their bounds (pids),
        and how long the worker has been unable to apply the mirror's changes."""
        sessao = (alertas.get("cerca") or {}).get("sessao") or {}
        self.cerca_pid.set(sessao.get("pid") or 0)
        sessoes = (alertas.get("mirror") or {}).get("sessoes") or [{}]
        self.mirror_lock_pid.set(sessoes[0].get("pid") or 0)
        self.mirror_atraso.set(mirror_atraso_s)

    def _marcar_ultimo(self, quando: float) -> None:
        self._ultimo = max(self._ultimo, quando)
        self.ultimo_evento.set(self._ultimo)

    def texto(self) -> bytes:
        """The Prometheus text exposition of these metrics."""
        return prometheus_client.generate_latest(self.registry)


# --- HTTP: /metrics, /healthz, /readyz -------------------------------------------------------

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
        metricas: Metrics | None,
        estado: Callable[[], WorkerState | None],
        limite_vivo_s: float,
        *,
        tempo_limite_s: float = TEMPO_LIMITE_S,
        max_conexoes: int = MAX_CONEXOES,
    ) -> None:
        super().__init__(endereco, _Handler)
        self.metricas = metricas
        self.estado = estado
        self.limite_vivo_s = limite_vivo_s
        self.tempo_limite_s = tempo_limite_s
        self.max_conexoes = max_conexoes
        # Open connections, oldest first (dicts keep insertion order), under _trava: the
        # accept loop, the handlers' threads and the deadline tick all touch it.
        self._conexoes: dict[socket.socket, _Conexao] = {}
        self._trava = threading.Lock()
        self._cortadas = 0
        self._aviso_em = 0.0
        self.thread: threading.Thread | None = None

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._trava:
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
        with self._trava:
            conexao = self._conexoes.get(sock)
            if conexao is not None:
                conexao.sonda = True

    def service_actions(self) -> None:
        """Every tick of the accept loop: end the connections past their deadline."""
        agora = time.monotonic()
        with self._trava:
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
        with self._trava:
            self._conexoes.pop(request, None)
        super().close_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client cut at its deadline, or to make room, fails mid-request: no traceback.
        log.debug("metrics endpoint: connection ended early", exc_info=True)

    @property
    def abertas(self) -> int:
        """Connections open now."""
        with self._trava:
            return len(self._conexoes)

    @property
    def porta(self) -> int:
        return int(self.server_address[1])

    def parar(self) -> None:
        self.shutdown()
        self.server_close()


def vivo(estado: WorkerState | None, limite_s: float) -> tuple[bool, dict[str, Any]]:
    """Liveness: the loop moved (a batch, a poll, a standby check) within limite_s, and
    nothing holds its events or its mirror back past their bounds (estado.alertas)."""
    if estado is None:
        return False, {"motivo": "worker not started"}
    agora = time.monotonic()
    parado = agora - estado.ultimo_avanco
    corpo: dict[str, Any] = {
        "ultimo_avanco_s": round(parado, 3),
        "limite_s": limite_s,
        "lider": estado.lider,
    }
    if estado.standby_desde is not None and estado.limite_standby_s > 0:
        # A standby that never gets the leadership is not healthy where one worker
        # should lead (D2_STANDBY_MAX_SECONDS): say so instead of 200 forever.
        em_standby = agora - estado.standby_desde
        corpo |= {"standby_s": round(em_standby, 3), "limite_standby_s": estado.limite_standby_s}
        if em_standby > estado.limite_standby_s:
            return False, corpo | {"motivo": "standby beyond D2_STANDBY_MAX_SECONDS"}
    if parado > limite_s:
        return False, corpo
    alertas = dict(estado.alertas)
    if alertas:
        # The loop moves, but what it does reaches nobody: a restart does not help, the
        # session named in the body must end (docs/reliability.md, section 6).
        motivos = "; ".join(str(a["motivo"]) for a in alertas.values())
        return False, corpo | {"status": "degraded", "motivo": motivos} | alertas
    return True, corpo


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
        if caminho == "/metrics" and self.server.metricas is not None:
            self._enviar(200, self.server.metricas.texto(), prometheus_client.CONTENT_TYPE_LATEST)
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
    metricas: Metrics | None = None,
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
        metricas,
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
