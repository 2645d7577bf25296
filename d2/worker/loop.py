"""The worker loop: boot protocol (spec 4.4), batches, listen + poll, signals, reconnects.

Only one worker per database processes events: the active one holds a lock on
d2.worker_lideranca that only d2_worker may take, in a transaction kept open on a
connection of its own (d2.worker.leadership); the others wait as standbys and take over within
about a poll interval when it dies (the lock goes with its connection). Claiming rows
with SKIP LOCKED was the other choice; a single leader keeps the cursor a plain number
and the log strictly in order.

With batches of more than one event the leader reads ahead: while batch N is written on
the main connection, a second thread reads batch N+1 and decides it (idempotency,
classification, cache, resolver; all reads) on a connection of its own. Python and
PostgreSQL then work at the same time instead of taking turns. A batch of one is the
spec's per-event path and stays strictly sequential. Both ways of reading live in
d2.worker.reading.

Beside it, while it leads, two stages run on threads and connections of their own: the
geocoding of address demands (d2.worker.geocoding) and the geometry stage (d2.worker.geometry:
citizen drawings, the replica, the mirror's apply, the follow-up), so neither a slow
geocoder nor a hostile drawing ever holds a GPS demand back; d2.worker.stages starts and
stops them.

What a supervisor reads (State), and the leader's watch over what holds its output back
(the event log's fence, the mirror's apply), are d2.worker.health's; the port that serves
them and the metrics, d2.worker.metrics_http's.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import random
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType

from d2 import (
    config,
    db,
    errors,
)
from d2.eventlog import bus
from d2.handler import classification
from d2.handler.handler import TIPO_ENTRADA, Batch, Handler, Result, transitoria
from d2.territorio import mirror
from d2.worker import geocoding, geometry, health, metrics, metrics_http, stages
from d2.worker.leadership import Leadership
from d2.worker.reading import InTurnReading, ReadAhead, Reading

log = logging.getLogger(__name__)


class Worker:
    def __init__(
        self,
        settings: config.Settings,
        *,
        url: str,
        batch_size: int | None = None,
        on_batch: Callable[[Result], None] | None = None,
    ) -> None:
        self.settings = settings
        self.url = url  # decided by the caller (the CLI: d2/cli/database_url.py)
        self.batch_size = batch_size or settings.batch_size
        self.handler = Handler(settings)
        self.parar = threading.Event()
        self.estado = health.State(limite_standby_s=settings.standby_max_s)
        self._on_batch = on_batch
        self._ultimo_purge = time.monotonic()
        self._espera_s = 0.5
        self.metrics = metrics.Metrics() if settings.metrics_port else None
        self._vigia = health.Watch(settings, self.estado, self.metrics)
        # The geometry stage while leading (it applies the mirror: the watch asks it
        # since when it could not).
        self._geometry_stage: geometry.GeometryStage | None = None
        # Address demands (docs/geocoding.md): the geocoding stage, its metrics and its
        # address paths (their cache kept across reconnects).
        self._geocoding_stage: geocoding.GeocodingStage | None = None
        self._metrics_geo = (
            geocoding.GeocodingMetrics(self.metrics.registry) if self.metrics else None
        )
        self._address_paths = stages.AddressPaths(settings, url, self.estado)

    def instalar_sinais(self) -> None:
        """SIGTERM/SIGINT: finish the batch in hand, then leave with exit code 0."""

        def pedir_parada(signum: int, frame: FrameType | None) -> None:
            log.info("Sinal recebido; terminando o lote em curso", extra={"sinal": signum})
            self.parar.set()

        signal.signal(signal.SIGTERM, pedir_parada)
        signal.signal(signal.SIGINT, pedir_parada)

    def executar(self, *, drain: bool = False) -> Result:
        """Run until stopped (or, with drain, until nothing is pending)."""
        _espacar_coletas()
        servidor = metrics_http.iniciar_servidor(
            self.settings.metrics_port,
            lambda: self.estado,
            metrics=self.metrics,
            host=self.settings.metrics_host,
            limite_vivo_s=max(60.0, 10 * self.settings.poll_interval_s),
        )
        try:
            return self._executar(drain=drain)
        finally:
            if servidor is not None:
                servidor.parar()

    def _executar(self, *, drain: bool) -> Result:
        while not self.parar.is_set():
            try:
                self._sessao(drain=drain)
                return self.estado.resultado
            except errors.ConfigError:
                raise
            except Exception as exc:
                if not db.is_transient(exc) and not isinstance(exc, errors.PublishError):
                    raise
                self.estado.pronto = False
                sem_servidor = db.conexao_perdida(exc)
                log.error(
                    "Conexão perdida; reconectando" if sem_servidor
                    else "Falha transitória; reconectando",
                    extra={
                        "estagio": "worker",
                        "erro": str(exc).splitlines()[0] if str(exc) else "",
                        "espera_s": self._espera_s,
                    },
                )  # fmt: skip
                espera = self._espera_s * (1 + random.random() / 4)
                if sem_servidor:
                    # Back as soon as a server takes the session again (a failover's new
                    # primary), not when the grown backoff ends.
                    db.esperar_servidor(self.url, self.parar, espera)
                else:
                    self.parar.wait(espera)
                self._espera_s = min(self._espera_s * 2, 30.0)
        return self.estado.resultado

    def _sessao(self, *, drain: bool) -> None:
        with (
            db.connect(self.url, autocommit=True, application_name="d2-worker") as conn,
            Leadership(self.url) as leadership,
        ):
            self._aguardar_leadership(leadership)
            if self.parar.is_set():
                return
            try:
                with db.mapped_errors():
                    conn.execute(db.q("leader_identify"), {"pid": str(leadership.pid)})
                    conn.execute(db.q("leader_fence"), {"tipo": TIPO_ENTRADA})
                cursor = self.handler.iniciar(conn)
                log.info("Boot: cursor semeado", extra={"cursor": cursor})
                with (
                    # A drain never waits for a notification: no connection for them.
                    contextlib.nullcontext() if drain else bus.Listener(self.url) as ouvinte,
                    self._leitura(conn) as leitura,
                    stages.geocodificacao(
                        self._address_paths,
                        parar_worker=self.parar,
                        metrics=self._metrics_geo,
                        drain=drain,
                    ) as self._geocoding_stage,
                    stages.geometria(self.settings, self.url, drain=drain) as geometry_stage,
                ):
                    self._geometry_stage = geometry_stage
                    mirror.acompanhar(conn)  # the mirror first: events resolve against it
                    self._replay(conn, leitura)
                    self.estado.pronto = True
                    log.info("D-2 Georreferenciamento inicializado")
                    if drain:
                        if self._geocoding_stage is not None:
                            round_ = self._geocoding_stage.drenar(conn)
                            self.estado.resultado.somar(round_.resultado)
                        geometry_stage.drenar(conn)
                        return
                    assert ouvinte is not None
                    espera, ultimo = _ESPERA_MIN_S, time.monotonic()
                    while not self.parar.is_set():
                        ouvinte.esperar(espera)
                        leadership.confirmar()
                        # Producers send no NOTIFY (it would serialise their commits):
                        # poll often while events come, less and less once none came
                        # for a while.
                        if self._replay(conn, leitura):
                            ultimo = time.monotonic()
                        if time.monotonic() - ultimo < _QUENTE_S:
                            espera = _ESPERA_MIN_S
                        else:
                            espera = min(espera * 2, self.settings.poll_interval_s)
            finally:
                self._geocoding_stage = None
                self._geometry_stage = None
                self.estado.pronto = False
                self.estado.lider = False  # the lock goes when Leadership closes
                self.estado.alertas = {}  # a leader's to find again, when it leads again

    def _aguardar_leadership(self, leadership: Leadership) -> None:
        avisado = False
        while not self.parar.is_set():
            if leadership.tentar():
                self.estado.lider = True
                self.estado.standby_desde = None
                log.info("Worker ativo (liderança obtida)")
                return
            if not avisado:
                log.info("Outro worker está ativo; aguardando em standby")
                avisado = True
            agora = time.monotonic()
            self.estado.ultimo_avanco = agora
            if self.estado.standby_desde is None:
                self.estado.standby_desde = agora
            self.parar.wait(self.settings.poll_interval_s)

    def _leitura(self, conn: db.Connection) -> Reading:
        if self.batch_size == 1:
            return InTurnReading(conn, self.batch_size, self._purgar_cache, self.settings)
        return ReadAhead(self.url, self.handler, self.batch_size, self._purgar_cache)

    def _replay(self, conn: db.Connection, leitura: Reading) -> bool:
        """Read from the cursor and handle batches until the log is exhausted (or stop).
        True when there was at least one event."""
        veio = False
        leitura.pedir(self.handler.cursor(conn))
        try:
            while not self.parar.is_set():
                self.estado.ultimo_avanco = time.monotonic()
                eventos, batch = leitura.receber()
                if batch is not None:
                    leitura.pedir(bus.position(eventos[-1]))
                if not eventos:
                    self._espera_s = 0.5  # the database answers and nothing is failing
                    self._vigia.talvez(conn, self._geometry_stage)
                    if self._geocoding_stage is not None:
                        self._geocoding_stage.liberar()
                    return veio
                veio = True
                resultado = processar(self.handler, conn, eventos, batch=batch, leitura=leitura)
                if not leitura.pendente:
                    # Read in turn, prepared here, or the read-ahead was taken back to
                    # isolate a poison event: ask for the next batch now.
                    leitura.pedir(bus.position(eventos[-1]))
                self._espera_s = 0.5  # a batch went through: the outage is over
                self.estado.resultado.somar(resultado)
                if self._geocoding_stage is None:
                    pass
                elif resultado.contagem.get(classification.Outcome.GEOCODIFICACAO_PENDENTE):
                    self._geocoding_stage.acordar()
                else:
                    # A first batch is committed: the stage may build its address path
                    # now, on its own thread (before it, the batch would have waited).
                    self._geocoding_stage.liberar()
                if self.metrics is not None:
                    self.metrics.observar_batch(
                        resultado, resultado.duracao_pip_s if resultado.resolvidos_sql else None
                    )
                if self._on_batch is not None:
                    self._on_batch(resultado)
        finally:
            leitura.descartar()
        return veio

    def _purgar_cache(self) -> None:
        if time.monotonic() - self._ultimo_purge >= 3600:
            removidas = self.handler.cache.purgar_expirados()
            self._ultimo_purge = time.monotonic()
            log.info("Cache geo: entradas expiradas removidas", extra={"removidas": removidas})


# Polling: every _ESPERA_MIN_S until _QUENTE_S passed without an event, then the wait
# doubles after each empty poll up to D2_POLL_INTERVAL. An empty poll is two index
# probes (~0.1 ms of the server's time each): ~200 a second while events keep coming.
_ESPERA_MIN_S = 0.005
_QUENTE_S = 1.0


# A batch's objects live until it is written, so with the default threshold (700) they
# survive into the old generation and set off full collections that walk the whole geo
# cache; the worker makes almost no cycles. Measured in d2/bench/drain.py.
_LIMIAR_COLETA_JOVEM = 20_000


def processar(
    handler: Handler,
    conn: db.Connection,
    eventos: list[bus.Evento],
    *,
    batch: Batch | None = None,
    leitura: Reading | None = None,
) -> Result:
    """Handle a batch with the per-event semantics, isolating a poison event.

    batch, when given, is eventos already decided (possibly by the read-ahead). A
    permanent failure of the batch as a whole is retried event by event, so one bad event
    ends in the dead letters and every good one completes; the read-ahead in flight, which
    shares the service's cache, is dropped first. Transient failures propagate: the
    cursor is held.
    """
    try:
        return handler.concluir(conn, batch or handler.preparar(conn, eventos))
    except Exception as exc:
        if transitoria(exc):
            raise
        if len(eventos) == 1:
            return handler.concluir_em_dead_letter(conn, eventos[0], exc)
        log.warning(
            "Lote falhou; reprocessando evento a evento",
            extra={"eventos": len(eventos), "erro": errors.texto_seguro(exc)},
        )
    if leitura is not None:
        leitura.descartar()
    total = Result()
    for evento in eventos:
        total.somar(handler.tratar(conn, evento))
    return total


def _espacar_coletas() -> None:
    limiar, *velhos = gc.get_threshold()
    if limiar and limiar < _LIMIAR_COLETA_JOVEM:  # 0: collection is off, leave it so
        gc.set_threshold(_LIMIAR_COLETA_JOVEM, *velhos)
