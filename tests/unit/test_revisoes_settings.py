"""The near rule's settings (D2_REVISAO_DISTANCIA_M, D2_REVISAO_MARGEM_M): their defaults,
the bound that keeps the work per point bounded, and the reach the follow-up uses."""

from __future__ import annotations

import math

import pytest

from d2 import config, errors
from d2.territorio import resolver


def test_defaults__100_m_and_a_margin_of_500_m(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("D2_REVISAO_DISTANCIA_M", raising=False)
    monkeypatch.delenv("D2_REVISAO_MARGEM_M", raising=False)
    regra = resolver.NearRule.de(config.load())
    assert (regra.limite_m, regra.margem_m, regra.ativa) == (100.0, 500.0, True)
    assert regra == resolver.NearRule()  # the SQL functions' defaults are the same


@pytest.mark.parametrize(
    ("variavel", "valor"),
    [
        ("D2_REVISAO_DISTANCIA_M", "-1"),
        ("D2_REVISAO_DISTANCIA_M", "1001"),
        ("D2_REVISAO_DISTANCIA_M", "nan"),
        ("D2_REVISAO_DISTANCIA_M", "cem"),
        ("D2_REVISAO_MARGEM_M", "inf"),
        ("D2_REVISAO_MARGEM_M", "-0.5"),
    ],
)
def test_out_of_bounds__refused_with_one_line(
    monkeypatch: pytest.MonkeyPatch, variavel: str, valor: str
) -> None:
    monkeypatch.setenv(variavel, valor)
    with pytest.raises(errors.ConfigError, match=variavel):
        config.load()


def test_zero__turns_the_rule_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("D2_REVISAO_DISTANCIA_M", "0")
    regra = resolver.NearRule.de(config.load())
    assert not regra.ativa and regra.alcance_graus == 0.0


def test_reach_in_degrees__covers_both_axes_at_brazils_southern_tip() -> None:
    regra = resolver.NearRule(100, 500)
    # A degree of longitude at 33.75° S (Chuí) spans ~92.7 km; of latitude, ~110.6 km.
    metros_lng = 111_320 * math.cos(math.radians(33.75))
    assert regra.alcance_graus * metros_lng >= 600
    assert regra.alcance_graus * 110_574 >= 600
