"""The event log's wire format: how payloads are decoded from and encoded to JSON text,
how big a payload may be, and the text form of new event ids.

Decoding and encoding go through orjson first and fall back to the standard json module
wherever the two could disagree, so what the worker reads and writes is exactly what
json.loads / json.dumps(ensure_ascii=False, allow_nan=False) would give. Why orjson at
all, and what it saves, is measured in d2/bench/drain.py.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

# Bounds for a read that sets none: larger than any payload or batch PostgreSQL can hold.
SEM_LIMITE = 2**62


@dataclass(frozen=True)
class UnreadablePayload:
    """Stands in for a payload Python cannot decode (e.g. nested deeper than its parser
    allows), or one left in the database for its size, so that one poisoned event does
    not block the events after it.
    """

    motivo: str


# json.dumps(json.loads(t), ensure_ascii=False) gives back a jsonb::text t byte for byte
# (same separators, key order, string escapes, integers) except the numbers Python reads
# as floats: the database prints each of those in plain notation with a "." (never an
# exponent), at least 3 characters ("0.5"), where float repr takes at most 24
# ("-1.2345678901234567e-308"). tests/integration/test_bus_size.py checks both.
_CARACTERES_FLOAT_MIN = 3
_CARACTERES_FLOAT_MAX = 24


def tamanho_max(texto: str) -> int:
    """An upper bound of the payload's size as Python re-encodes it, from the database's
    text: each "." may be a float that Python prints longer."""
    excesso = _CARACTERES_FLOAT_MAX - _CARACTERES_FLOAT_MIN
    return len(texto.encode()) + excesso * texto.count(".")


def profundidade_max(texto: str) -> int:
    """An upper bound of the payload's nesting depth (a scalar is 0, {} is 1): its
    opening brackets, those inside strings included."""
    return texto.count("{") + texto.count("[")


# orjson reads an integer literal beyond 64 bits as a float where json keeps it an int
# (and only then differs from json on what a jsonb prints). Such a float is at least 2**63
# in magnitude: a payload holding one is decoded by json instead.
_FLOAT_ENORME = 2.0**63


def decodificar(texto: str) -> Any:
    """The payload's JSON value as json.loads gives it, or UnreadablePayload when Python
    cannot decode it."""
    try:
        valor = orjson.loads(texto)
    except orjson.JSONDecodeError:
        pass
    else:
        if not _algum_float(valor, _enorme):
            return valor
    try:
        return json.loads(texto)
    except RecursionError:
        return UnreadablePayload("JSON nested too deep to decode")
    except ValueError as exc:
        return UnreadablePayload(f"invalid JSON: {exc}")


def _enorme(numero: float) -> bool:
    return not -_FLOAT_ENORME < numero < _FLOAT_ENORME


def _infinito_ou_nan(numero: float) -> bool:
    return not math.isfinite(numero)


_SEQUENCIAS = (list, tuple)  # isinstance takes a tuple of types


def _algum_float(valor: Any, teste: Callable[[float], bool]) -> bool:
    """True when teste holds for some float in valor (nested in dicts, lists, tuples)."""
    pilha = [valor]
    while pilha:
        atual = pilha.pop()
        if type(atual) is float:
            if teste(atual):
                return True
        elif isinstance(atual, dict):
            pilha.extend(atual.values())
        elif isinstance(atual, _SEQUENCIAS):
            pilha.extend(atual)
    return False


def json_texto(valor: Any) -> str:
    """valor as compact JSON text: what json.dumps(valor, ensure_ascii=False,
    allow_nan=False) writes, bar the separators' spaces. A NaN or an infinity is refused
    (ValueError) as json refuses it, where orjson alone would write null; an integer
    beyond 64 bits, which orjson refuses, is written by json.
    """
    try:
        texto = orjson.dumps(valor, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:
        return json.dumps(valor, ensure_ascii=False, allow_nan=False)
    # A NaN or an infinity comes out as null, so only then is the value walked.
    if b"null" in texto and _algum_float(valor, _infinito_ou_nan):
        raise ValueError("Out of range float values are not JSON compliant")
    return texto.decode()


# Byte maps that stamp a random uuid's version (4) and RFC 4122 variant bits.
_VERSAO_4 = bytes(b & 0x0F | 0x40 for b in range(256))
_VARIANTE_RFC = bytes(b & 0x3F | 0x80 for b in range(256))


def uuids4_texto(quantos: int) -> list[str]:
    """quantos random (version 4) uuids in their text form, as str(uuid.uuid4()) gives
    them, from one read of the system's randomness and without uuid objects (the worker
    makes one per output event)."""
    bruto = bytearray(os.urandom(16 * quantos))
    bruto[6::16] = bruto[6::16].translate(_VERSAO_4)
    bruto[8::16] = bruto[8::16].translate(_VARIANTE_RFC)
    h = bruto.hex()
    return [
        f"{h[i : i + 8]}-{h[i + 8 : i + 12]}-{h[i + 12 : i + 16]}-{h[i + 16 : i + 20]}-"
        f"{h[i + 20 : i + 32]}"
        for i in range(0, 32 * quantos, 32)
    ]
