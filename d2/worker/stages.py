"""The two stages that run beside the demand loop while a worker leads, each on a thread
and a database connection of its own: the geocoding of address demands
(d2.worker.geocoding) and the geometry stage (d2.worker.geometry: citizen drawings, the
replica, the mirror's apply, the follow-up). Started when the worker takes the lead,
stopped and joined before it lets the lead go; with drain, no thread: the worker runs
them after the log is drained, on its own thread and connection."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator

from d2 import config, db
from d2.geocoder import address, nominatim
from d2.worker import geocoding, geometry, health

log = logging.getLogger(__name__)


@contextlib.contextmanager
def geocodificacao(
    settings: config.Settings,
    url: str,
    estado: health.State,
    *,
    parar_worker: threading.Event,
    cache: address.AddressCache,
    metrics: geocoding.GeocodingMetrics | None,
    drain: bool,
) -> Iterator[geocoding.GeocodingStage | None]:
    """The geocoding stage while this worker leads (None: D2_GEOCODER=off). cache is the
    worker's, kept across reconnects; estado says which geocoder answers."""
    if not settings.geocoder_ativo:
        yield None
        return
    observar = metrics.duracao.observe if metrics else None
    with db.connect(url, autocommit=True, application_name="d2-geocoder") as conn:
        escolha = nominatim.escolher(settings, conn)
    geocodificador = nominatim.criar_geocodificador(settings, url, observar, escolha=escolha)
    estado.geocodificador = escolha.modo
    if escolha.modo == nominatim.NENHUM:
        log.info(
            "Geocodificação sem Nominatim: endereços respondidos por bairro ou município",
            extra={"motivo": escolha.onde},
        )

    def reescolher(conn: db.Connection) -> nominatim.Geocoder | None:
        achado = nominatim.reescolher(settings, url, conn, observar)
        if achado is not None:
            estado.geocodificador = achado.modo
        return achado

    # With drain the stage runs on the worker's thread: the worker's own stop stops it.
    parar = parar_worker if drain else threading.Event()
    caminho = address.AddressPath(
        settings, geocodificador, cache=cache, parar=parar, reescolher=reescolher
    )
    estagio = geocoding.GeocodingStage(settings, caminho, metrics=metrics)
    thread = None
    if not drain:
        thread = threading.Thread(
            target=estagio.executar,
            args=(url, parar, max(settings.poll_interval_s, 1.0)),
            name="d2-geocodificacao",
            daemon=True,
        )
        thread.start()
    try:
        yield estagio
    finally:
        if not drain:
            parar.set()
        estagio.acordar()
        if thread is not None:
            thread.join()
        caminho.geocodificador.fechar()
        estado.geocodificador = None


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
