"""The geo cache (spec 5.6, 6.2): d2:geo:{lat}:{lng} → resolution, in memory.

Unlike the spec's Map it is bounded (least recently used entries go first), entries
expire after the TTL (30 days by default) and a periodic purge drops expired ones, and
it empties itself when the mirror's version changes (a new polygon, a moved border, a
new parent), so a hit never answers differently from the database.
Negative answers (no polygon) are cached too: the version check keeps them honest.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from d2.territorio import resolver

PREFIXO = "d2:geo:"
V = TypeVar("V")


def chave(lat: float, lng: float) -> str:
    """The cache key of a point: coordinates rounded to 5 decimals like the SQL resolver."""
    return f"{PREFIXO}{resolver.arredondar(lat):.5f}:{resolver.arredondar(lng):.5f}"


@dataclass
class _Entry(Generic[V]):
    valor: V
    expira_em: float


class LRUCache(Generic[V]):
    """Bounded (least recently used entries go first), with a TTL, by string key; hits
    and misses counted. max_entries 0 keeps nothing. The geo cache and the geocoding
    stage's address cache are this with their own keys and emptying rule."""

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


class GeoCache(LRUCache[resolver.Resolucao | None]):
    def __init__(
        self,
        max_entries: int = 100_000,
        ttl_s: float = 30 * 24 * 3600,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(max_entries, ttl_s, clock)
        self.versao: int | None = None

    def iniciar(self) -> None:
        """Start empty (spec 4.4 step 1): nothing survives a restart."""
        self.limpar()
        self.versao = None

    def observar_versao(self, versao: int) -> bool:
        """Empty the cache when the mirror changed since the last look; True if it did."""
        if self.versao is not None and versao != self.versao:
            self.limpar()
            self.versao = versao
            return True
        self.versao = versao
        return False

    def obter(self, lat: float, lng: float) -> tuple[bool, resolver.Resolucao | None]:
        """(hit, value): value None with hit True means "known to be outside everything"."""
        return self.obter_chave(chave(lat, lng))

    def definir(self, lat: float, lng: float, valor: resolver.Resolucao | None) -> None:
        self.definir_chave(chave(lat, lng), valor)
