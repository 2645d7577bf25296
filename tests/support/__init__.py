"""The tests' shared harness, loaded as a pytest plugin by tests/conftest.py: the
connection type, the test territory, the demand worker's cursor, a drain. Fixtures here
are available to every test; the functions are imported (`from tests.support import …`).

The database fixtures themselves (a throw-away cluster, one migrated clone per test) are
tests/conftest.py's; the cluster comes from d2.embedded.temporario, as the benchmarks'."""

from __future__ import annotations

import random
import uuid
from typing import Any

import pytest

from d2 import config, db, service, worker
from tests.eventos import inserir_evento, payload_normalizada
from tests.territorio import Territorio

Conn = db.Connection
"""An autocommit connection with dict rows, as the `conn` fixture gives."""

TIPO_DEMANDA = service.TIPO_ENTRADA


def semear_cursor(conn: Conn, tipo: str = TIPO_DEMANDA, apos: int = 0) -> None:
    """The consumer's cursor at sequence `apos` (0: the whole log is to be read), as a
    worker that booted before the events were published would have it. A cursor that
    exists already is left alone."""
    conn.execute(
        "INSERT INTO d2.consumer_offset (tipo_evento, last_sequence) VALUES (%s, %s) "
        "ON CONFLICT (tipo_evento) DO NOTHING",
        [tipo, apos],
    )


def drenar(
    db_url: str, settings: config.Settings | None = None, batch_size: int = 50
) -> service.Resultado:
    """Everything pending through the real worker loop (`d2 worker --drain`), in process."""
    runner = worker.Worker(settings or config.load(), url=db_url, batch_size=batch_size)
    return runner.executar(drain=True)


def backlog(conn: Conn, n: int, seed: int = 1) -> None:
    """A mixed backlog of n demands in one transaction, the same for the same seed: valid
    (most), outside every polygon, invalid coordinates, without coordinates, malformed
    (dead letter) and duplicated demanda_id. Seed the cursor first (semear_cursor)."""
    rng = random.Random(seed)
    repetidas = [str(uuid.uuid4()) for _ in range(max(1, n // 100))]
    with conn.transaction():
        for _ in range(n):
            sorteio = rng.random()
            payload: Any
            if sorteio < 0.05:
                payload = {"demanda_id": "não-é-uuid"}
            elif sorteio < 0.10:
                payload = payload_normalizada(rng.uniform(0, 5), rng.uniform(0, 5))
            elif sorteio < 0.13:
                payload = payload_normalizada(123.0, 0.0)
            elif sorteio < 0.15:
                payload = payload_normalizada(coordenadas_validadas=None)
            elif sorteio < 0.20:
                payload = payload_normalizada(
                    rng.uniform(-30, -25), rng.uniform(-50, -40), demanda_id=rng.choice(repetidas)
                )
            else:
                payload = payload_normalizada(rng.uniform(-30, -25), rng.uniform(-50, -40))
            inserir_evento(
                conn, payload, correlacao_id=uuid.uuid4() if rng.random() < 0.3 else None
            )


@pytest.fixture
def settings() -> config.Settings:
    """The settings from this test's environment (monkeypatch D2_* before asking)."""
    return config.load()


@pytest.fixture
def territorio(conn: Conn) -> Territorio:
    """The small test territory of tests/territorio.py, in this test's database."""
    return Territorio(conn)
