"""Which geocoder the worker says it runs, and the D2_NOMINATIM setting, without a
database (the address path without a Nominatim runs in tests/integration)."""

from __future__ import annotations

import pytest

from d2 import config, errors
from d2.worker import health


def test_without_nominatim__healthz_says_which_geocoder() -> None:
    estado = health.State(geocodificador="nenhum", pronto=True, lider=True)
    vivo, corpo = health.vivo(estado, 60.0)
    assert vivo and corpo["geocodificador"] == "nenhum"
    vivo, corpo = health.vivo(health.State(pronto=True), 60.0)
    assert vivo and "geocodificador" not in corpo


@pytest.mark.parametrize(("valor", "ativo"), [("", True), ("auto", True), ("OFF", False)])
def test_without_nominatim__the_setting(
    valor: str, ativo: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("D2_NOMINATIM", valor)
    assert config.load().nominatim_ativo is ativo
    monkeypatch.setenv("D2_NOMINATIM", "nenhum")
    with pytest.raises(errors.ConfigError, match="D2_NOMINATIM must be auto or off"):
        config.load()
