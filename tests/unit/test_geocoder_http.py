"""The HTTP client against a local server that misbehaves on purpose (mocking Nominatim
here is the point: its failures are what is tested; the real one is in test_geocoder.py),
and a stage that stops asking once the worker stops."""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from d2 import config
from d2.geocoder import nominatim_http, nominatim_search
from d2.worker import geocoding

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


def test_http__answers_refusals_and_failures(servidor: str) -> None:
    medidas: list[float] = []
    cliente = nominatim_http.NominatimHTTP(servidor, timeout_s=0.5, observar=medidas.append)
    try:
        ok, vazio, recusa, ocupado, lixo, enorme, lento = cliente.buscar_muitos(
            ["ok", "vazio", "recusa", "ocupado", "lixo", "enorme", "lento"]
        )
    finally:
        cliente.fechar()
    assert isinstance(ok, nominatim_search.Match) and ok.de_rua and (ok.lat, ok.lng) == (-12.5, -58)
    assert vazio is None and recusa is None  # nothing found; a query the server refuses
    for falha in (ocupado, lixo, enorme, lento):  # later: 5xx, garbage, unbounded, slow
        assert isinstance(falha, nominatim_search.Unavailable), falha
    assert len(medidas) == 7


class _Contador:
    modo = "teste"

    def __init__(self) -> None:
        self.perguntas = 0

    def buscar_muitos(self, consultas: list[str]) -> list[nominatim_search.Resposta]:
        self.perguntas += len(consultas)
        return [None] * len(consultas)

    def fechar(self) -> None:
        pass


def test_estagio__asks_nothing_more_once_the_worker_stops() -> None:
    contador = _Contador()
    parar = threading.Event()
    est = geocoding.GeocodingStage(config.load(), contador, parar=parar)
    consultas = [f"rua {i}" for i in range(50)]
    assert est.free_text._buscar(consultas) == [None] * 50
    parar.set()
    depois = est.free_text._buscar(consultas)
    assert contador.perguntas == 50
    assert all(isinstance(r, nominatim_search.Unavailable) for r in depois)
