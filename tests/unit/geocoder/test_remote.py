"""The HTTP client against a local server that misbehaves on purpose (mocking Nominatim
here is the point: its failures are what is tested; the real one is in
tests/integration/geocoder/test_address.py), and a stage that stops asking once the
worker stops."""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from d2.geocoder import address, answer, ladder, ladder_steps
from d2.geocoder.nominatim import remote, search

RESPOSTA_OK = [
    {
        "lat": "-12.5",
        "lon": "-58.0",
        "place_rank": 30,
        "category": "place",
        "type": "house",
        "display_name": "123, Rua das Palmeiras",
        "address": {"country_code": "br"},
    }
]


class _Servidor(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        caso = self.path.split("q=", 1)[1].split("&", 1)[0]
        if caso == "lento":
            time.sleep(2)
        codigo, corpo = {
            "ok": (200, json.dumps(RESPOSTA_OK).encode()),
            "vazio": (200, b"[]"),
            "recusa": (400, b"{}"),
            "ocupado": (503, b""),
            "lixo": (200, b"<html>"),
            "enorme": (200, b"[" + b" " * (2 << 20) + b"]"),
            "lento": (200, b"[]"),
        }[caso]
        self.send_response(codigo)
        self.end_headers()
        self.wfile.write(corpo)

    def log_message(self, *args: Any) -> None:
        pass


class _Silencioso(http.server.ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # the client hangs up on "enorme" and "lento": that is the point


@pytest.fixture
def servidor() -> Iterator[str]:
    srv = _Silencioso(("127.0.0.1", 0), _Servidor)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}"
    finally:
        srv.shutdown()
        srv.server_close()


def test_remote__answers_refusals_and_failures(servidor: str) -> None:
    medidas: list[float] = []
    cliente = remote.NominatimHTTP(servidor, timeout_s=0.5, observar=medidas.append)
    try:
        ok, vazio, recusa, ocupado, lixo, enorme, lento = cliente.pesquisar(
            [
                search.Consulta(texto=caso)
                for caso in ("ok", "vazio", "recusa", "ocupado", "lixo", "enorme", "lento")
            ]
        )
    finally:
        cliente.fechar()
    assert isinstance(ok, tuple) and len(ok) == 1
    assert ok[0].de_rua and (ok[0].lat, ok[0].lng) == (-12.5, -58)
    assert vazio == () and recusa == ()  # nothing found; a query the server refuses
    for falha in (ocupado, lixo, enorme, lento):  # later: 5xx, garbage, unbounded, slow
        assert isinstance(falha, search.Unavailable), falha
    assert len(medidas) == 7


class _Contador:
    modo = "teste"

    def __init__(self) -> None:
        self.perguntas = 0

    def pesquisar(self, consultas: list[search.Consulta]) -> list[search.Resultados]:
        self.perguntas += len(consultas)
        return [()] * len(consultas)


def test_ladder__asks_nothing_more_once_the_worker_stops() -> None:
    """Once the worker's stop is set, the searches not yet asked come back unavailable
    (they wait for the next worker) and nothing more reaches Nominatim."""
    contador = _Contador()
    parar = threading.Event()
    cache = address.AddressCache(1000, 60)

    def perguntar(inicio: int) -> dict[int, search.Resultados]:
        buscas = {
            i: ladder_steps.Tentativa(
                ladder_steps.Passo.RUA, consulta=search.Consulta(texto=f"rua {i}")
            )
            for i in range(inicio, inicio + 50)
        }
        geocodings = [answer.Geocoding() for _ in range(inicio + 50)]
        return ladder._perguntar(contador, cache, buscas, geocodings, 8, parar.is_set)

    assert set(perguntar(0).values()) == {()}
    parar.set()
    depois = perguntar(50)
    assert contador.perguntas == 50
    assert all(isinstance(r, search.Unavailable) for r in depois.values())
