"""The geo cache: key format, TTL, bound, version change."""

from __future__ import annotations

import uuid

from d2.handler import geo_cache
from d2.territorio import resolver


def resolucao(nivel: int = 4) -> resolver.Resolucao:
    uc = str(uuid.uuid4())
    return resolver.Resolucao(uc, nivel, (uc,))


class Relogio:
    def __init__(self) -> None:
        self.agora = 0.0

    def __call__(self) -> float:
        return self.agora


def test_key_is_prefixed_and_rounded_to_five_decimals() -> None:
    assert geo_cache.chave(-23.550004, -46.633339) == "d2:geo:-23.55000:-46.63334"
    assert geo_cache.chave(-23.550004, -46.633339) == geo_cache.chave(-23.55, -46.63334)


def test_hit_and_miss_are_counted() -> None:
    c = geo_cache.GeoCache()
    assert c.obter(1.0, 2.0) == (False, None)
    valor = resolucao()
    c.definir(1.0, 2.0, valor)
    assert c.obter(1.000001, 2.0) == (True, valor)
    assert (c.hits, c.misses) == (1, 1)


def test_negative_answers_are_cached_as_hits() -> None:
    c = geo_cache.GeoCache()
    c.definir(1.0, 2.0, None)
    assert c.obter(1.0, 2.0) == (True, None)


def test_entries_expire_after_ttl_and_purge_drops_them() -> None:
    relogio = Relogio()
    c = geo_cache.GeoCache(ttl_s=10, clock=relogio)
    c.definir(1.0, 2.0, resolucao())
    c.definir(3.0, 4.0, resolucao())
    relogio.agora = 9.9
    assert c.obter(1.0, 2.0)[0]
    relogio.agora = 10.0
    assert c.purgar_expirados() == 2
    assert len(c) == 0


def test_size_is_bounded_least_recently_used_first() -> None:
    c = geo_cache.GeoCache(max_entries=2)
    c.definir(1.0, 1.0, resolucao())
    c.definir(2.0, 2.0, resolucao())
    c.obter(1.0, 1.0)
    c.definir(3.0, 3.0, resolucao())
    assert len(c) == 2
    assert c.obter(2.0, 2.0)[0] is False
    assert c.obter(1.0, 1.0)[0] and c.obter(3.0, 3.0)[0]


def test_a_new_mirror_version_empties_the_cache() -> None:
    c = geo_cache.GeoCache()
    c.observar_versao(1)
    c.definir(1.0, 1.0, resolucao())
    assert c.observar_versao(1) is False and len(c) == 1
    assert c.observar_versao(2) is True and len(c) == 0


def test_iniciar_starts_empty() -> None:
    c = geo_cache.GeoCache()
    c.definir(1.0, 1.0, resolucao())
    c.iniciar()
    assert len(c) == 0
