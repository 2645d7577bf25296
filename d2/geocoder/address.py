"""The address path's one door: the worker's geocoding stage hands it the addresses of a
round (d2.geocoder.question.Endereco) and gets one Geocoding each (d2.geocoder.answer), in
order. Behind it: the text read into its fields (parser), the place read as a whole
(places/), the ladder of named steps (ladder, ladder_steps, ladder_rules), Nominatim
(nominatim/) and the answers it already gave (AddressCache). The handler turns a
Geocoding into the demanda's outcome (d2.handler.handler.Handler.concluir_enderecos);
what waits, and for how long, is the stage's (d2.worker.geocoding).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from d2 import config, db
from d2.geocoder import ladder, question
from d2.geocoder.answer import Geocoding
from d2.geocoder.nominatim import client, search
from d2.lru import LRUCache


class AddressCache(LRUCache[tuple[search.Match, ...]]):
    """Nominatim's matches by search (search.Consulta.chave), bounded, with a TTL, emptied
    when a new Nominatim import is seen: an import can move every answer."""

    geracao: int | None = None

    def observar_geracao(self, geracao: int | None) -> None:
        if geracao != self.geracao:
            self.limpar()
            self.geracao = geracao


class AddressPath:
    """How D-2 reads an address: one per worker, over its Nominatim (or none) and its
    cache. `parar` is the worker's stop signal: once set nothing more is asked of
    Nominatim, and what was not asked comes back unavailable (it waits for the next
    worker), so a slow Nominatim cannot hold a shutdown longer than one block.
    `reescolher`, given the round's connection, names a Nominatim again (None: still
    none): it is asked when a path with none sees a new `d2 nominatim import` recorded,
    so a worker started before the first import uses it from the next round."""

    def __init__(
        self,
        settings: config.Settings,
        geocodificador: client.Geocoder,
        *,
        cache: AddressCache | None = None,
        parar: threading.Event | None = None,
        reescolher: Callable[[db.Connection], client.Geocoder | None] | None = None,
    ) -> None:
        self.geocodificador = geocodificador
        self.reescolher = reescolher
        # Not `cache or ...`: an empty cache is falsy (it has a length).
        self.cache = (
            cache
            if cache is not None
            else AddressCache(settings.geocoder_cache_max, settings.geocoder_cache_ttl_s)
        )
        self.parar = parar or threading.Event()
        self.bloco = max(1, settings.geocoder_concorrencia * 4)

    def geocodificar(
        self, conn: db.Connection, enderecos: list[question.Endereco]
    ) -> list[Geocoding]:
        """One Geocoding per address, in order (all of them down the ladder together)."""
        if not enderecos:
            return []
        with db.mapped_errors():
            ultima = conn.execute(db.q("nominatim_import_last")).fetchone()
        geracao = int(ultima["id"]) if ultima else None
        if (
            geracao != self.cache.geracao
            and self.reescolher is not None
            and isinstance(self.geocodificador, client.SemNominatim)
        ):
            novo = self.reescolher(conn)
            if novo is not None:
                self.geocodificador.fechar()
                self.geocodificador = novo
        self.cache.observar_geracao(geracao)
        return ladder.geocodificar(
            conn,
            self.geocodificador,
            self.cache,
            enderecos,
            bloco=self.bloco,
            parar=self.parar.is_set,
        )

    def saudavel(self) -> bool:
        """Whether Nominatim says it is fine (a failure of one address is then its own)."""
        return self.geocodificador.saudavel()
