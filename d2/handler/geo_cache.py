"""The geo cache (spec 5.6, 6.2): d2:geo:{lat}:{lng} → resolution, in memory.

Unlike the spec's Map it is bounded (least recently used entries go first), entries
expire after the TTL (30 days by default) and a periodic purge drops expired ones, and
it empties itself when the mirror's version changes (a new polygon, a moved border, a
new parent), so a hit never answers differently from the database.
Negative answers (no polygon) are cached too: the version check keeps them honest.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from d2.lru import LRUCache
from d2.territorio import resolver

PREFIXO = "d2:geo:"


def chave(lat: float, lng: float) -> str:
    """The cache key of a point: coordinates rounded to 5 decimals like the SQL resolver."""
    return f"{PREFIXO}{resolver.arredondar(lat):.5f}:{resolver.arredondar(lng):.5f}"


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
