"""The worker spaces out Python's young-generation collections (see worker._espacar_coletas)
without ever bringing them closer or turning collection back on."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from d2.worker import loop


@pytest.fixture(autouse=True)
def _limiares_restaurados() -> Iterator[None]:
    antes = gc.get_threshold()
    yield
    gc.set_threshold(*antes)


def test_default_threshold_is_raised_older_generations_kept() -> None:
    gc.set_threshold(700, 10, 7)
    loop._espacar_coletas()
    assert gc.get_threshold() == (loop._LIMIAR_COLETA_JOVEM, 10, 7)


@pytest.mark.parametrize("limiar", [0, loop._LIMIAR_COLETA_JOVEM, 10 * loop._LIMIAR_COLETA_JOVEM])
def test_off_or_higher_threshold_is_left_alone(limiar: int) -> None:
    gc.set_threshold(limiar, 10, 10)
    loop._espacar_coletas()
    assert gc.get_threshold() == (limiar, 10, 10)
