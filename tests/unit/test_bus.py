"""d2.eventlog.bus's retry, without a database: permanent errors are not retried, a
transient failure is (the rest of the bus runs against PostgreSQL in tests/integration)."""

from __future__ import annotations

import pytest

from d2 import errors
from d2.eventlog import bus


def test_bus__retry_does_not_retry_permanent_errors() -> None:
    tentativas: list[int] = []

    def invalido() -> None:
        tentativas.append(1)
        raise errors.InvalidEvent("campo ruim")

    with pytest.raises(errors.InvalidEvent):
        bus.com_retry(invalido, espera_s=0)
    assert len(tentativas) == 1


def test_bus__retry_recovers_after_a_transient_failure() -> None:
    tentativas: list[int] = []

    def instavel() -> str:
        tentativas.append(1)
        if len(tentativas) < 3:
            raise errors.TransientDatabaseError("database: connection lost")
        return "ok"

    assert bus.com_retry(instavel, espera_s=0.01) == "ok"
    assert len(tentativas) == 3
