"""The two stages that run beside the demand loop while a worker leads, each on a thread
and a database connection of its own: the geocoding of address demands
(d2.worker.geocoding) and the geometry stage (d2.worker.geometry: citizen drawings, the
replica, the mirror's apply, the follow-up). Started when the worker takes the lead,
stopped and joined before it lets the lead go; with drain, no thread: the worker runs
them after the log is drained, on its own thread and connection."""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from d2 import config, db
from d2.geocoder.nominatim import client as nominatim
from d2.worker import geocoding, geometry, health

if TYPE_CHECKING:
    from d2.geocoder.address import AddressCache, AddressPath

log = logging.getLogger(__name__)


class AddressPaths:
    """How the worker builds the address path of each session it leads, and what it keeps
    across them: the cache of Nominatim's answers. Building one imports the address
    path's modules (a tenth of a second of CPU, here), chooses the Nominatim and says
    which in the worker's state; the geocoding stage asks for it only once the worker has
    committed its first batch, or when an address is due (d2.worker.geocoding)."""

    def __init__(self, settings: config.Settings, url: str, estado: health.State) -> None:
        self.settings = settings
        self.url = url
        self.estado = estado
        self.cache: AddressCache | None = None
        self.observar: Callable[[float], None] | None = None  # Nominatim's request times

    def abrir(
        self,
        conn: db.Connection,
        parar: threading.Event,
        metrics: geocoding.GeocodingMetrics | None,
    ) -> AddressPath:
        """The address path over the Nominatim the settings name (asked on conn)."""
        from d2.geocoder import address  # the ladder, places, gazetteer, rapidfuzz…

        self.observar = metrics.duracao.observe if metrics else None
        escolha = nominatim.escolher(self.settings, conn)
        geocodificador = nominatim.criar_geocodificador(
            self.settings, self.url, self.observar, escolha=escolha
        )
        self.estado.geocodificador = escolha.modo
        if escolha.modo == nominatim.NENHUM:
            log.info(
                "Geocodificação sem Nominatim: endereços respondidos por bairro ou município",
                extra={"motivo": escolha.onde},
            )
        if self.cache is None:
            self.cache = address.AddressCache(
                self.settings.geocoder_cache_max, self.settings.geocoder_cache_ttl_s
            )
        return address.AddressPath(
            self.settings,
            geocodificador,
            cache=self.cache,
            parar=parar,
            reescolher=self._reescolher,
        )

    def _reescolher(self, conn: db.Connection) -> nominatim.Geocoder | None:
        achado = nominatim.reescolher(self.settings, self.url, conn, self.observar)
        if achado is not None:
            self.estado.geocodificador = achado.modo
        return achado


@contextlib.contextmanager
def geocodificacao(
    address_paths: AddressPaths,
    *,
    parar_worker: threading.Event,
    metrics: geocoding.GeocodingMetrics | None,
    drain: bool,
) -> Iterator[geocoding.GeocodingStage | None]:
    """The geocoding stage while this worker leads (None: D2_GEOCODER=off)."""
    settings = address_paths.settings
    if not settings.geocoder_ativo:
        yield None
        return
    # With drain the stage runs on the worker's thread: the worker's own stop stops it.
    parar = parar_worker if drain else threading.Event()
    geocoding_stage = geocoding.GeocodingStage(
        settings,
        functools.partial(address_paths.abrir, parar=parar, metrics=metrics),
        parar,
        metrics=metrics,
    )
    thread = None
    if not drain:
        thread = threading.Thread(
            target=geocoding_stage.executar,
            args=(address_paths.url, parar, max(settings.poll_interval_s, 1.0)),
            name="d2-geocodificacao",
            daemon=True,
        )
        thread.start()
    try:
        yield geocoding_stage
    finally:
        if not drain:
            parar.set()
        geocoding_stage.acordar()
        if thread is not None:
            thread.join()
        geocoding_stage.fechar()
        address_paths.estado.geocodificador = None


@contextlib.contextmanager
def geometria(
    settings: config.Settings, url: str, *, drain: bool
) -> Iterator[geometry.GeometryStage]:
    """The geometry stage while this worker leads: drawings, the replica, the mirror's
    apply and the follow-up."""
    parar = threading.Event()
    stage = geometry.GeometryStage(settings, parar)
    thread = None
    if not drain:
        thread = threading.Thread(
            target=stage.executar, args=(url,), name="d2-territorio", daemon=True
        )
        thread.start()
    try:
        yield stage
    finally:
        parar.set()
        stage.acordar()
        if thread is not None:
            thread.join()
