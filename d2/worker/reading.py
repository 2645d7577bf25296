"""Where the worker's loop gets its batches (d2.worker): in turn on the writing
connection (a batch of one, the spec's per-event path), or read ahead on a thread and a
connection of their own while the previous batch is written, decided already
(idempotency, classification, cache, resolver; all reads). Python and PostgreSQL then
work at the same time instead of taking turns."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Protocol

from d2 import config, db, errors
from d2.eventlog import bus, registry
from d2.handler.handler import TIPO_ENTRADA, Batch, Handler


def ler_eventos(
    conn: db.Connection,
    apos: bus.Position,
    batch_size: int,
    purgar_cache: Callable[[], None],
    settings: config.Settings,
) -> list[bus.Evento]:
    purgar_cache()  # where the cache is touched: in turn, or on the read-ahead thread
    return bus.ler_desde(
        conn,
        TIPO_ENTRADA,
        apos,
        batch_size,
        max_payload_bytes=settings.max_payload_bytes,
        max_batch_bytes=settings.max_batch_bytes,
    )


class Reading(Protocol):
    """Where _replay gets its batches: ask for the one after a sequence number, receive
    it (events and, when decided already, its Batch), or drop what was asked."""

    @property
    def pendente(self) -> bool: ...

    def pedir(self, apos: bus.Position) -> None: ...

    def receber(self) -> tuple[list[bus.Evento], Batch | None]: ...

    def descartar(self) -> None: ...

    def __enter__(self) -> Reading: ...

    def __exit__(self, *exc: object) -> None: ...


class InTurnReading:
    """Batch size 1, the spec's per-event path: each batch is read on the main
    connection when it is received, after the previous one was written, and decided by
    processar itself."""

    def __init__(
        self,
        conn: db.Connection,
        batch_size: int,
        purgar_cache: Callable[[], None],
        settings: config.Settings,
    ) -> None:
        self._conn = conn
        self._batch_size = batch_size
        self._purgar_cache = purgar_cache
        self._settings = settings
        self._apos: bus.Position | None = None

    def __enter__(self) -> InTurnReading:
        return self

    def __exit__(self, *exc: object) -> None:
        self.descartar()

    @property
    def pendente(self) -> bool:
        return self._apos is not None

    def pedir(self, apos: bus.Position) -> None:
        assert self._apos is None, "one batch asked for at most"
        self._apos = apos

    def receber(self) -> tuple[list[bus.Evento], Batch | None]:
        assert self._apos is not None, "receber without pedir"
        apos, self._apos = self._apos, None
        eventos = ler_eventos(
            self._conn, apos, self._batch_size, self._purgar_cache, self._settings
        )
        return eventos, None

    def descartar(self) -> None:
        self._apos = None


class ReadAhead:
    """The read-ahead: one thread, one connection of its own, at most one batch in flight.

    While it is in flight, it alone touches the service's cache; the caller waits for it
    (receber or descartar) before doing anything else with the cache. A batch read ahead
    and then dropped (stop, failure, poison isolation) has written nothing: it is read
    again from the cursor.
    """

    def __init__(
        self,
        url: str,
        handler: Handler,
        batch_size: int,
        purgar_cache: Callable[[], None],
    ) -> None:
        self._url = url
        self._handler = handler
        self._batch_size = batch_size
        self._purgar_cache = purgar_cache
        self._conn: db.Connection | None = None
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="d2-leitura")
        self._futuro: Future[tuple[list[bus.Evento], Batch | None]] | None = None
        # The writing thread waits on the database and, when its answer arrives, needs the
        # GIL back from this reading thread (measured in d2/bench/drain.py).
        sys.setswitchinterval(min(sys.getswitchinterval(), 0.001))

    def __enter__(self) -> ReadAhead:
        # While the loop boots (its cursor, the mirror), the reading thread opens its
        # connection and loads the Registry the first batch's outputs are checked with:
        # both are waits the first batch would otherwise add to the worker's start.
        self._pool.submit(self._aquecer)
        return self

    def __exit__(self, *exc: object) -> None:
        self.descartar()
        self._pool.shutdown(wait=True)
        if self._conn is not None:
            self._conn.close()

    def _aquecer(self) -> None:
        registry.registry()
        with contextlib.suppress(errors.D2Error):  # the first read connects, and says why not
            self._conectar()

    def _conectar(self) -> db.Connection:
        if self._conn is None or self._conn.closed:
            self._conn = db.connect(
                self._url, autocommit=True, application_name="d2-worker-leitura"
            )
        return self._conn

    @property
    def pendente(self) -> bool:
        return self._futuro is not None

    def pedir(self, apos: bus.Position) -> None:
        """Start reading and deciding the batch after sequence number apos."""
        assert self._futuro is None, "one batch in flight at most"
        self._futuro = self._pool.submit(self._ler, apos)

    def receber(self) -> tuple[list[bus.Evento], Batch | None]:
        """The batch asked for (no events: the log is exhausted); its errors are raised here."""
        assert self._futuro is not None, "receber without pedir"
        futuro, self._futuro = self._futuro, None
        return futuro.result()

    def descartar(self) -> None:
        """Wait for the batch in flight, if any, and drop it."""
        futuro, self._futuro = self._futuro, None
        if futuro is not None:
            with contextlib.suppress(Exception):
                futuro.result()

    def _ler(self, apos: bus.Position) -> tuple[list[bus.Evento], Batch | None]:
        conn = self._conectar()
        eventos = ler_eventos(
            conn, apos, self._batch_size, self._purgar_cache, self._handler.settings
        )
        if not eventos:
            return eventos, None
        try:
            return eventos, self._handler.preparar(conn, eventos)
        except Exception as exc:
            if db.is_transient(exc):
                raise
            # Not decided: the caller prepares the batch itself, where a failure isolates
            # the poison event (processar).
            return eventos, None
