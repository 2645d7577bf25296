"""What the bus reads from jsonb::text: the payload exactly as json.loads reads it (the bus
decodes with orjson first), Evento.tamanho_max_bytes never underestimating the payload's
size as Python re-encodes it (the measure of D2_MAX_PAYLOAD_BYTES; only floats differ),
and Evento.profundidade_max never underestimating its depth."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from d2.eventlog import bus, wire
from tests.support import Conn
from tests.support.events import JsonBruto, inserir_evento

# The readers serve only the types D-2 reads (d2.eventos_tipos_lidos).
TIPO = "demanda.normalizada"


# Numbers whose jsonb text and Python repr differ the most, both ways.
NUMEROS_CRUS = [
    "1e-300",  # jsonb: 0.000…1 (302 characters); Python: 1e-300
    "0.1000000000000000055511151231257827021181583404541015625",
    "12345678901234567.0",  # Python: 1.2345678901234568e+16
    "-2.2250738585072014e-308",
    "1.50",
    "-0.0",
    "1E+2",
    "1e400",  # jsonb: an integer of 401 digits, which Python reads as an int
    "1" + "0" * 400 + ".5",  # Python reads inf and writes Infinity
    "-1" + "0" * 400 + ".5",
    "0.00001",
    "123.456e-10",
    "18446744073709551615",  # the largest integer orjson reads as one
    "18446744073709551616",  # beyond it orjson reads a float, json an int
    "-9223372036854775808",
    "-9223372036854775809",
    "9223372036854775808.0",
]

texto = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=8
)
escalares = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.integers(min_value=2**63 - 3, max_value=2**64 + 3),
    st.floats(allow_nan=False, allow_infinity=False),
    texto,
)
valores = st.recursive(
    escalares,
    lambda filhos: st.one_of(
        st.lists(filhos, max_size=4), st.dictionaries(texto, filhos, max_size=4)
    ),
    max_leaves=20,
)


def _tem_float(valor: Any) -> bool:
    if isinstance(valor, float):
        return True
    if isinstance(valor, dict):
        return any(map(_tem_float, valor.values()))
    if isinstance(valor, list):
        return any(map(_tem_float, valor))
    return False


def _profundidade(valor: Any) -> int:
    if isinstance(valor, dict):
        return 1 + max(map(_profundidade, valor.values()), default=0)
    if isinstance(valor, list):
        return 1 + max(map(_profundidade, valor), default=0)
    return 0


def _conferir(conn: Conn, tipo: str) -> int:
    eventos = bus.ler_desde(conn, tipo, 0)
    for evento in eventos:
        row = conn.execute(
            "SELECT payload::text AS t FROM core.event_log WHERE event_id = %s",
            [evento.event_id],
        ).fetchone()
        assert row is not None
        # Equal and of the same types (1 == 1.0 in Python, not in JSON).
        assert json.dumps(evento.payload) == json.dumps(json.loads(row["t"]))
        exato = len(json.dumps(evento.payload, ensure_ascii=False).encode())
        assert evento.tamanho_max_bytes is not None
        assert evento.tamanho_max_bytes >= exato, evento.payload
        assert evento.profundidade_max is not None
        assert evento.profundidade_max >= _profundidade(evento.payload)
        if not _tem_float(evento.payload):
            # Without floats Python writes the very text the database wrote.
            assert len(row["t"].encode()) == exato
    return len(eventos)


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(valores, min_size=1, max_size=40))
def test_tamanho_max__bounds_the_python_size(conn: Conn, payloads: list[Any]) -> None:
    tipo = TIPO
    # Hypothesis runs every example in the same database: each starts from an empty log.
    conn.execute("DELETE FROM core.event_log WHERE tipo = %(tipo)s", {"tipo": tipo})
    for payload in payloads:
        inserir_evento(conn, payload, tipo=tipo)
    assert _conferir(conn, tipo) == len(payloads)


def test_tamanho_max__numbers_printed_differently(conn: Conn) -> None:
    tipo = TIPO
    for numero in NUMEROS_CRUS:
        inserir_evento(conn, JsonBruto(numero), tipo=tipo)
        inserir_evento(
            conn, JsonBruto(f'{{"n": [{numero}, {numero}], "s": "é\\n\\u0001"}}'), tipo=tipo
        )
    assert _conferir(conn, tipo) == 2 * len(NUMEROS_CRUS)
    valores_lidos = [e.payload for e in bus.ler_desde(conn, tipo, 0)]
    assert math.inf in valores_lidos  # the case where Python writes "Infinity"
    assert 18446744073709551616 in valores_lidos and 10**400 in valores_lidos


def test_tamanho_max__unreadable_payload_still_gets_a_bound(conn: Conn) -> None:
    inserir_evento(conn, JsonBruto("[" * 5000 + "]" * 5000), tipo=TIPO)
    [evento] = bus.ler_desde(conn, TIPO, 0)
    assert isinstance(evento.payload, wire.UnreadablePayload)
    assert evento.tamanho_max_bytes == 10_000


def test_tamanho_max__strings_and_structure_written_alike(conn: Conn) -> None:
    tipo = TIPO
    todos = "".join(map(chr, range(1, 256))) + "\u2028\u2029\ufeff😀"
    inserir_evento(
        conn,
        {todos: todos, 'k"\\/': [{}, [], None, True, False, -12, 10**40, {"": ""}], "b": 0},
        tipo=tipo,
    )
    inserir_evento(
        conn,
        JsonBruto('{"a": 1, "a": 2, "bb": {"x": [ ]}, "c" : "\\u00e9\\ud83d\\ude00"}'),
        tipo=tipo,
    )
    inserir_evento(conn, todos, tipo=tipo)
    assert _conferir(conn, tipo) == 3
