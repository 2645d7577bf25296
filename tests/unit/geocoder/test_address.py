"""The address path's door and its cache of Nominatim's answers, without a database."""

from __future__ import annotations

import pytest

from d2.geocoder import address
from d2.geocoder.nominatim import remote, search


def test_cache__bounded_expires_and_empties_on_a_new_import() -> None:
    agora = [0.0]
    cache = address.AddressCache(2, 10, clock=lambda: agora[0])
    achado = (search.Match(-1, -2, 30, "place", "house", "br", "x"),)
    cache.observar_geracao(1)
    cache.definir_chave("a", achado)
    cache.definir_chave("b", ())
    assert cache.obter_chave("a") == (True, achado)
    cache.definir_chave("c", ())  # "b" was the least recently used
    assert cache.obter_chave("b") == (False, None) and len(cache) == 2
    agora[0] = 11
    assert cache.obter_chave("a") == (False, None)
    cache.definir_chave("d", ())
    cache.observar_geracao(2)
    assert len(cache) == 0


def test_address_path__keeps_the_cache_it_is_given_even_empty() -> None:
    """The worker's cache outlives a reconnect: an empty one (falsy) is still the one."""
    from d2 import config

    cache = address.AddressCache(10, 10)
    http = remote.NominatimHTTP("http://127.0.0.1:9")
    try:
        assert address.AddressPath(config.load(), http, cache=cache).cache is cache
    finally:
        http.fechar()


@pytest.mark.parametrize("valor", ["off", "0", "false"])
def test_config__the_retired_free_text_path_is_refused_in_one_line(
    valor: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A deployment that chose D2_GEOCODER_LADDER=off learns at start that addresses are
    read one way now; `on`, the only path, stays accepted."""
    from d2 import config, errors

    monkeypatch.setenv("D2_GEOCODER_LADDER", "on")
    config.load()
    monkeypatch.setenv("D2_GEOCODER_LADDER", valor)
    with pytest.raises(errors.ConfigError, match="D2_GEOCODER_LADDER=off is no longer") as exc:
        config.load()
    assert "\n" not in str(exc.value)
