"""The worker loop: boot protocol (spec 4.4), batches, listen + poll, signals, reconnects.

Only one worker per database processes events: the active one holds a session advisory
lock; the others wait as standbys and take over within about a poll interval when it
dies (the lock goes with its connection). Claiming rows with SKIP LOCKED was the other
choice; a single leader keeps the cursor a plain number and the log strictly in order.
"""

from __future__ import annotations

import logging
import random
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import FrameType

from d2 import bus, config, db, errors, metrics, service

log = logging.getLogger("d2.worker")


@dataclass
class Estado:
    """What a supervisor (readiness/liveness) and the metrics read."""

    pronto: bool = False
    lider: bool = False
    ultimo_avanco: float = field(default_factory=time.monotonic)
    resultado: service.Resultado = field(default_factory=service.Resultado)


class Worker:
    def __init__(
        self,
        settings: config.Settings,
        *,
        url: str | None = None,
        batch_size: int | None = None,
        on_batch: Callable[[service.Resultado], None] | None = None,
    ) -> None:
        self.settings = settings
        self.url = url or db.database_url(settings)
        self.batch_size = batch_size or settings.batch_size
        self.servico = service.Servico(settings)
        self.parar = threading.Event()
        self.estado = Estado()
        self._on_batch = on_batch
        self._ultimo_purge = time.monotonic()
        self._espera_s = 0.5
        self.metricas = metrics.Metricas() if settings.metrics_port else None

    def instalar_sinais(self) -> None:
        """SIGTERM/SIGINT: finish the batch in hand, then leave with exit code 0."""

        def pedir_parada(signum: int, frame: FrameType | None) -> None:
            log.info("Sinal recebido; terminando o lote em curso", extra={"sinal": signum})
            self.parar.set()

        signal.signal(signal.SIGTERM, pedir_parada)
        signal.signal(signal.SIGINT, pedir_parada)

    def executar(self, *, drain: bool = False) -> service.Resultado:
        """Run until stopped (or, with drain, until nothing is pending)."""
        servidor = metrics.iniciar_servidor(
            self.settings.metrics_port,
            lambda: self.estado,
            metricas=self.metricas,
            limite_vivo_s=max(60.0, 10 * self.settings.poll_interval_s),
        )
        try:
            return self._executar(drain=drain)
        finally:
            if servidor is not None:
                servidor.parar()

    def _executar(self, *, drain: bool) -> service.Resultado:
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
                log.error(
                    "Falha transitória; reconectando",
                    extra={
                        "erro": str(exc).splitlines()[0] if str(exc) else "",
                        "espera_s": self._espera_s,
                    },
                )
                self.parar.wait(self._espera_s * (1 + random.random() / 4))
                self._espera_s = min(self._espera_s * 2, 30.0)
        return self.estado.resultado

    def _sessao(self, *, drain: bool) -> None:
        with db.connect(self.url, autocommit=True, application_name="d2-worker") as conn:
            self._aguardar_lideranca(conn)
            if self.parar.is_set():
                return
            try:
                cursor = self.servico.iniciar(conn)
                log.info("Boot: cursor semeado", extra={"cursor": cursor})
                with bus.Listener(self.url) as ouvinte:
                    self._replay(conn)
                    self.estado.pronto = True
                    log.info("D-2 Georreferenciamento inicializado")
                    if drain:
                        return
                    while not self.parar.is_set():
                        ouvinte.esperar(self.settings.poll_interval_s)
                        self._replay(conn)
            finally:
                self.estado.pronto = False
                if self.estado.lider and not conn.closed:
                    conn.execute(db.q("leader_unlock"))
                self.estado.lider = False

    def _aguardar_lideranca(self, conn: db.Connection) -> None:
        avisado = False
        while not self.parar.is_set():
            with db.mapped_errors():
                row = conn.execute(db.q("leader_try_lock")).fetchone()
            if row and row["leader"]:
                self.estado.lider = True
                log.info("Worker ativo (liderança obtida)")
                return
            if not avisado:
                log.info("Outro worker está ativo; aguardando em standby")
                avisado = True
            self.estado.ultimo_avanco = time.monotonic()
            self.parar.wait(self.settings.poll_interval_s)

    def _replay(self, conn: db.Connection) -> None:
        """Read from the cursor and handle batches until the log is exhausted (or stop)."""
        while not self.parar.is_set():
            self.estado.ultimo_avanco = time.monotonic()
            self._purgar_cache()
            cursor = self.servico.cursor(conn)
            with db.mapped_errors():
                eventos = bus.ler_desde(conn, service.TIPO_ENTRADA, cursor, self.batch_size)
            if not eventos:
                self._espera_s = 0.5  # the database answers and nothing is failing
                if self.metricas is not None:
                    self.metricas.atualizar_gauges(conn)
                return
            resultado = self.servico.processar(conn, eventos)
            self._espera_s = 0.5  # a batch went through: the outage is over
            self.estado.resultado.somar(resultado)
            if self.metricas is not None:
                self.metricas.observar_lote(
                    resultado, resultado.duracao_pip_s if resultado.resolvidos_sql else None
                )
            if self._on_batch is not None:
                self._on_batch(resultado)

    def _purgar_cache(self) -> None:
        if time.monotonic() - self._ultimo_purge >= 3600:
            removidas = self.servico.cache.purgar_expirados()
            self._ultimo_purge = time.monotonic()
            log.info("Cache geo: entradas expiradas removidas", extra={"removidas": removidas})
