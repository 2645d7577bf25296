"""Personal data never reaches the dead letters or the logs (LGPD; docs/design.md,
the departure on the log line of invalid coordinates).

Dead letters (core.dead_letter_queue, read by every colony's operators) and ERROR logs
(shipped to aggregators, kept for long) are read by more people than the event log. An
error text keeps the event, the field's path and the rule it breaks; the value, which may
be a citizen's name, CPF, address or position, stays in the event, where its own
privileges guard it. Logs are captured with caplog's handler on the "d2" logger (d2's
JSON logging turns propagation off) and rendered by d2's own JSON formatter, extras
included."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from d2 import config, logs
from d2.eventlog import bus
from d2.territorio import comunitario
from tests.support import Conn, drenar, semear_cursor
from tests.support.events import inserir_evento, payload_normalizada
from tests.support.territorio import Territorio

PESSOAL = "Maria Souza, CPF 123.456.789-00, Rua das Acácias 45"
# Distinctive digits of coordinates, easy to find in any text.
MARCAS = ("Maria", "123.456.789-00", "Acácias", "98.765432", "46.633309", "23.55052")


@pytest.fixture
def registros(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    raiz = logging.getLogger("d2")
    raiz.addHandler(caplog.handler)
    nivel = raiz.level
    raiz.setLevel(logging.DEBUG)
    try:
        yield caplog
    finally:
        raiz.removeHandler(caplog.handler)
        raiz.setLevel(nivel)


def _linhas(caplog: pytest.LogCaptureFixture) -> list[str]:
    formato = logs.JsonFormatter()
    return [formato.format(r) for r in caplog.records]


def _sem_marcas(textos: list[str]) -> list[str]:
    """The texts that carry one of MARCAS (none expected)."""
    return [t for t in textos if any(m in t for m in MARCAS)]


def _cartas(conn: Conn) -> list[dict[str, Any]]:
    return conn.execute("SELECT consumidor, event_id, erro FROM core.dead_letter_queue").fetchall()


def _lugar(conn: Conn, payload: dict[str, Any]) -> uuid.UUID:
    return inserir_evento(conn, payload, tipo=comunitario.TIPO_ENTRADA, versao="1.0.0")


def test_personal_data__a_place_of_a_kind_d2_does_not_consume_is_ignored_unread(
    conn: Conn, settings: config.Settings, registros: pytest.LogCaptureFixture
) -> None:
    # A citizen's home registered by L-1: D-2 reads no such place, whatever it holds,
    # even fields that break the schema (a drawing's fields with other meanings).
    _lugar(
        conn,
        {
            "lugar_id": str(uuid.uuid4()),
            "tipo_lugar": "residencia",
            "nome": PESSOAL,
            "nivel": PESSOAL,
            "geometria": [-46.633309, -23.55052],
            "autor_id": PESSOAL,
        },
    )
    # Another kind under a version D-2 has no schema for: still not D-2's to read.
    outro = _lugar(conn, {"lugar_id": PESSOAL, "tipo_lugar": "farmacia", "nome": PESSOAL})
    conn.execute("UPDATE core.event_log SET versao_schema = '7.0.0' WHERE event_id = %s", [outro])

    resultado = comunitario.drenar(conn, settings)

    assert (resultado.ignorados, resultado.dead_letters) == (2, 0)
    assert _cartas(conn) == []
    assert _sem_marcas(_linhas(registros)) == []


def test_personal_data__a_malformed_drawing_is_dead_lettered_with_its_fields_not_values(
    conn: Conn, settings: config.Settings, registros: pytest.LogCaptureFixture
) -> None:
    evento = _lugar(
        conn,
        {
            "lugar_id": str(uuid.uuid4()),
            "tipo_lugar": "poligono_uc",
            "nome": "Vila Nova",
            "nivel": 98.765432,
            "geometria": [-46.633309, -23.55052],
            "autor_id": PESSOAL,
        },
    )

    resultado = comunitario.drenar(conn, settings)

    assert resultado.dead_letters == 1
    [carta] = _cartas(conn)
    assert carta["event_id"] == evento
    assert "autor_id" in carta["erro"] and "uuid" in carta["erro"]
    assert _sem_marcas([carta["erro"], *_linhas(registros)]) == []


def test_personal_data__a_bad_demand_keeps_its_text_and_position_out_of_dead_letters_and_logs(
    conn: Conn,
    db_url: str,
    monkeypatch: pytest.MonkeyPatch,
    registros: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("D2_GEOCODER", "off")
    Territorio(conn)
    semear_cursor(conn)
    # A producer's bug: the citizen's text where the id goes.
    id_pessoal = inserir_evento(conn, payload_normalizada(demanda_id=PESSOAL))
    # Out of range, and the other half a real longitude: a position still.
    fora = inserir_evento(conn, payload_normalizada(98.765432, -46.633309))
    # Coordinates written as text, address and all.
    texto = payload_normalizada()
    texto["coordenadas_validadas"] = f"{PESSOAL}, -23.55052, -46.633309"
    inserir_evento(conn, texto)
    # An object where a number goes.
    objeto = payload_normalizada()
    objeto["coordenadas_validadas"] = {"lat": {"endereco": PESSOAL}, "lng": -46.633309}
    inserir_evento(conn, objeto)

    resultado = drenar(db_url, config.load())

    assert resultado.contagem["dead_letter"] == 1
    assert resultado.contagem["coordenadas_invalidas"] == 3
    [carta] = _cartas(conn)
    assert carta["event_id"] == id_pessoal
    assert carta["erro"].startswith("demanda_id is not a UUID")
    linhas = _linhas(registros)
    assert any(str(fora) in linha and "lat must be between" in linha for linha in linhas)
    assert _sem_marcas([carta["erro"], *linhas]) == []


def test_personal_data__an_unexpected_failure_is_recorded_by_its_type_not_its_message(
    conn: Conn,
    db_url: str,
    monkeypatch: pytest.MonkeyPatch,
    registros: pytest.LogCaptureFixture,
) -> None:
    # Python's messages quote the value they choke on: one, planted, quotes an address.
    Territorio(conn)
    semear_cursor(conn)
    veneno = payload_normalizada(-27.0, -49.0)
    bom = payload_normalizada(-27.0, -49.0)
    ids = [inserir_evento(conn, p) for p in (veneno, bom)]
    original = bus.preparar

    def preparar(tipo: str, payload: dict[str, Any], *args: Any, **kw: Any) -> bus.Prepared:
        if payload["demanda_id"] == veneno["demanda_id"]:
            raise ValueError(f"invalid literal for int() with base 10: {PESSOAL!r}")
        return original(tipo, payload, *args, **kw)

    monkeypatch.setattr(bus, "preparar", preparar)
    resultado = drenar(db_url, config.load(), batch_size=2)

    assert resultado.contagem == {"georreferenciada": 1, "dead_letter": 1}
    [carta] = _cartas(conn)
    assert carta["event_id"] == ids[0]
    assert carta["erro"].startswith("handler failed: ValueError (raised at test_personal_data.py:")
    assert _sem_marcas([carta["erro"], *_linhas(registros)]) == []
