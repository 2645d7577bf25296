"""Prometheus metrics of the worker, served on /metrics (d2.worker.metrics_http).

Metrics live in their own CollectorRegistry (one per Metrics), never the global one.
Labels are bounded sets only (nivel, desfecho, passo): no event ids, no coordinates.

The spec's d2_point_in_polygon_duration_ms is d2_point_in_polygon_duration_seconds
here (a histogram, Prometheus convention: base units).
"""

from __future__ import annotations

import time
from typing import Any

import prometheus_client

from d2 import db
from d2.eventlog import bus
from d2.handler import classification, handler

# How a review was closed without a polygon (d2.revisoes_tratadas.passo), and how often
# the gauge counts them.
PASSOS_REVISAO = ("proximidade", "operador", "descarte")
TRATADAS_A_CADA_S = 60.0
# Point-in-polygon over a batch: sub-millisecond for a cached point, up to seconds for a
# large batch against detailed polygons.
_BUCKETS_PIP = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)


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
        self.tratadas = prometheus_client.Gauge(
            "d2_revisoes_tratadas",
            "Reviews closed without a polygon holding their point, by step: answered by the "
            "near rule (automatically), by an operator, or discarded (refreshed at most "
            "once a minute).",
            ["passo"],
            registry=r,
        )
        self.fence_retidos = prometheus_client.Gauge(
            "d2_event_log_cerca_retidos",
            "Committed demanda.normalizada events held back: an older write transaction "
            "is still running somewhere in the cluster (delayed, never lost).",
            registry=r,
        )
        self.fence_atraso = prometheus_client.Gauge(
            "d2_event_log_cerca_atraso_segundos",
            "Seconds since the oldest held-back event was inserted (0 when none waits).",
            registry=r,
        )
        self.fence_pid = prometheus_client.Gauge(
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
        for outcome in classification.Outcome:  # every outcome shows, at 0, from the start
            self.eventos.labels(desfecho=str(outcome))
        for passo in PASSOS_REVISAO:
            self.tratadas.labels(passo=passo)
        self._tratadas_em: float | None = None
        self._hits = 0
        self._misses = 0
        self._ultimo = 0.0

    def observar_batch(self, resultado: handler.Result, duracao_pip_s: float | None) -> None:
        """Count one handled batch. duracao_pip_s: time spent resolving its points (None
        when the batch resolved none in SQL)."""
        for outcome, quantidade in resultado.contagem.items():
            if quantidade:
                self.eventos.labels(desfecho=outcome).inc(quantidade)
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

    def atualizar_gauges(self, conn: db.Connection, fence: bus.Fence | None = None) -> None:
        """Lag, pending dead letters and reviews, from the database (one cheap query), and
        what the fence holds back (fence, when the caller has just read it)."""
        with db.mapped_errors():
            row = conn.execute(
                db.q("metrics_gauges"),
                {"tipo": handler.TIPO_ENTRADA, "consumidor": handler.CONSUMER},
            ).fetchone()
        if fence is None:
            fence = bus.fence(conn, handler.TIPO_ENTRADA)
        self.fence_retidos.set(fence.retidos)
        self.fence_atraso.set(fence.atraso_s)
        if row is None:
            return
        self.lag.set(row["lag"])
        self.dead_letters.set(row["dead_letters"])
        self.revisoes.set(row["revisoes_pendentes"])
        if row["ultimo_evento"] is not None:
            self._marcar_ultimo(float(row["ultimo_evento"]))
        self._contar_tratadas(conn)

    def _contar_tratadas(self, conn: db.Connection) -> None:
        """The closed reviews by step, at most once a TRATADAS_A_CADA_S: a count over
        a table that grows with every answer the near rule gives."""
        agora = time.monotonic()
        if self._tratadas_em is not None and agora - self._tratadas_em < TRATADAS_A_CADA_S:
            return
        with db.mapped_errors():
            linhas = conn.execute(db.q("metrics_revisoes_closed")).fetchall()
        por_passo = {r["passo"]: int(r["quantidade"]) for r in linhas}
        for passo in PASSOS_REVISAO:
            self.tratadas.labels(passo=passo).set(por_passo.get(passo, 0))
        self._tratadas_em = agora

    def observar_alertas(self, alertas: dict[str, dict[str, Any]], mirror_atraso_s: float) -> None:
        """The sessions holding the fence or the mirror's lock past their bounds (pids),
        and how long the worker has been unable to apply the mirror's changes."""
        sessao = (alertas.get("cerca") or {}).get("sessao") or {}
        self.fence_pid.set(sessao.get("pid") or 0)
        sessoes = (alertas.get("mirror") or {}).get("sessoes") or [{}]
        self.mirror_lock_pid.set(sessoes[0].get("pid") or 0)
        self.mirror_atraso.set(mirror_atraso_s)

    def _marcar_ultimo(self, quando: float) -> None:
        self._ultimo = max(self._ultimo, quando)
        self.ultimo_evento.set(self._ultimo)

    def texto(self) -> bytes:
        """The Prometheus text exposition of these metrics."""
        return prometheus_client.generate_latest(self.registry)
