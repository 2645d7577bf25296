"""A bounded cache in memory: least recently used entries go first, entries expire after
a TTL. The geo cache (d2.handler.geo_cache) and the address path's cache of Nominatim's
answers (d2.geocoder.address) are this, each with its own keys and emptying rule."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

V = TypeVar("V")


@dataclass
class _Entry(Generic[V]):
    valor: V
    expira_em: float


class LRUCache(Generic[V]):
    """Bounded (least recently used entries go first), with a TTL, by string key; hits
    and misses counted. max_entries 0 keeps nothing."""

    def __init__(
        self, max_entries: int, ttl_s: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.max_entries = max_entries
        self.ttl_s = ttl_s
        self._clock = clock
        self._dados: OrderedDict[str, _Entry[V]] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._dados)

    def obter_chave(self, key: str) -> tuple[bool, V | None]:
        """(hit, value); value None with hit True is a cached "nothing there"."""
        entrada = self._dados.get(key)
        if entrada is None or entrada.expira_em <= self._clock():
            if entrada is not None:
                del self._dados[key]
            self.misses += 1
            return False, None
        self._dados.move_to_end(key)
        self.hits += 1
        return True, entrada.valor

    def definir_chave(self, key: str, valor: V) -> None:
        if self.max_entries <= 0:
            return
        self._dados[key] = _Entry(valor, self._clock() + self.ttl_s)
        self._dados.move_to_end(key)
        while len(self._dados) > self.max_entries:
            self._dados.popitem(last=False)

    def limpar(self) -> None:
        self._dados.clear()

    def purgar_expirados(self) -> int:
        """Drop expired entries (the spec's hourly setInterval); returns how many."""
        agora = self._clock()
        vencidas = [k for k, e in self._dados.items() if e.expira_em <= agora]
        for key in vencidas:
            del self._dados[key]
        return len(vencidas)
