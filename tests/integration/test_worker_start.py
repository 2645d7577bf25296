"""The worker's start (docs/notes/drain.md, "The worker's start"): a batch of GPS demands
pays nothing for the address path. `d2 worker --drain` over GPS demands never loads it;
a running worker builds it beside its loop once its first batch is committed (and
/healthz then says which geocoder answers), and an address that comes later is read."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

from d2 import config
from d2.worker import loop
from tests.support import (
    Conn,
    esperar,
    inserir_evento,
    invariants,
    payload_normalizada,
    publicar_endereco,
    resposta_endereco,
    semear_cursor,
)
from tests.support.territorio import Territorio

_CAMINHO = ("d2.geocoder.address", "d2.geocoder.ladder", "d2.geocoder.places", "rapidfuzz")


def _processados(conn: Conn) -> int:
    row = conn.execute("SELECT count(*) AS n FROM d2.eventos_processados").fetchone()
    assert row is not None
    return int(row["n"])


def test_worker_start__a_drain_of_gps_demands_never_loads_the_address_path(
    conn: Conn, db_url: str, territorio: Territorio
) -> None:
    semear_cursor(conn, mover=True)
    for i in range(3):
        inserir_evento(conn, payload_normalizada(-27.0 - i / 10, -49.0))
    # `d2 worker --drain` in a process of its own, which then names the modules it holds.
    codigo = (
        "import json, sys\nfrom d2.cli import main\n"
        "codigo = main(['worker', '--drain', '--log-level', 'WARNING'])\n"
        f"print(json.dumps([codigo, [m for m in {_CAMINHO!r} if m in sys.modules]]))"
    )
    feito = subprocess.run(
        [sys.executable, "-c", codigo],
        env=dict(os.environ, DATABASE_URL=db_url),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    codigo_saida, carregados = json.loads(feito.stdout.strip().splitlines()[-1])
    assert codigo_saida == 0
    assert _processados(conn) == 3
    assert carregados == []
    invariants.verificar(conn)


def test_worker_start__the_geocoder_is_chosen_after_the_first_batch_and_answers_later(
    conn: Conn, db_url: str, territorio: Territorio, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Running (not draining): nothing of the address path before the first batch; once
    it is committed, the stage builds the path on its own thread and the worker's state
    names the geocoder; an address published afterwards ends in a terminal state."""
    monkeypatch.setenv("D2_NOMINATIM", "off")
    semear_cursor(conn, mover=True)
    worker = loop.Worker(config.load(), url=db_url)
    fio = threading.Thread(target=worker.executar, daemon=True)

    inserir_evento(conn, payload_normalizada())
    fio.start()
    try:
        assert esperar(lambda: _processados(conn) == 1)
        assert esperar(lambda: worker.estado.geocodificador == "nenhum")
        endereco = publicar_endereco(conn, {"endereco": "Rua das Flores, 10, Lugar Nenhum"})
        assert esperar(lambda: _processados(conn) == 2)
        assert not resposta_endereco(conn, endereco)["parada"]
    finally:
        worker.parar.set()
        fio.join(30)
    assert not fio.is_alive()
    assert worker.estado.geocodificador is None  # said only while the stage runs
    invariants.verificar(conn)
