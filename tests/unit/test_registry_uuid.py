"""The Registry's "uuid" format check accepts exactly what uuid.UUID accepts."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from d2.eventlog import registry

CANONICO = "12345678-9abc-def0-1234-56789abcdef0"
HEX = CANONICO.replace("-", "")


def _aceito_por_uuid(texto: str) -> bool:
    """The check as it was before the canonical fast path."""
    try:
        uuid.UUID(texto)
    except ValueError:
        return False
    return True


DIFICEIS = [
    CANONICO,
    CANONICO.upper(),
    "12345678-9ABC-def0-1234-56789ABCDEF0",
    "{" + CANONICO + "}",
    "{{" + CANONICO + "}",
    "urn:uuid:" + CANONICO,
    "URN:UUID:" + CANONICO,
    "uuid:" + CANONICO,
    "urn:" + CANONICO,
    "1234urn:5678-9abc-def0-1234-56789abcdef0",
    HEX,
    HEX.upper(),
    "-".join([HEX[:4], HEX[4:20], HEX[20:]]),
    "-" + HEX + "-",
    " " + HEX[1:],
    HEX[1:] + " ",
    " " + CANONICO,
    CANONICO + " ",
    CANONICO + "\n",
    "\t" + CANONICO,
    "0x" + HEX[2:],
    "+" + HEX[1:],
    HEX[:4] + "_" + HEX[5:],
    "_" + HEX[1:],
    HEX[:31] + "\u0663",  # ARABIC-INDIC DIGIT THREE: int() reads it as 3
    CANONICO.replace("1", "\u0661"),
    CANONICO[:-1],
    CANONICO + "0",
    HEX[:-1],
    HEX + "0",
    CANONICO.replace("-", "", 1),
    CANONICO[:8] + "--" + CANONICO[9:],
    "00000000-0000-0000-0000-00000000000g",
    "g" * 32,
    "",
    "-",
    "{}",
    "urn:uuid:",
    "\x00" * 32,
    CANONICO.replace("-", "\u2010"),  # HYPHEN, not hyphen-minus
    "１２３４５６７８-9abc-def0-1234-56789abcdef0",  # fullwidth digits # noqa: RUF001
]


@pytest.mark.parametrize("texto", DIFICEIS)
def test_registry__uuid_format_accepts_what_uuid_uuid_accepts(texto: str) -> None:
    assert registry._e_uuid(texto) is _aceito_por_uuid(texto)


def test_registry__uuid_format_tricky_set_covers_both_answers() -> None:
    aceitos = {texto for texto in DIFICEIS if _aceito_por_uuid(texto)}
    # uuid.UUID's own leniency, kept on purpose (the schemas' patterns refuse these).
    for texto in ("{" + CANONICO + "}", "urn:uuid:" + CANONICO, HEX, " " + HEX[1:], "0x" + HEX[2:]):
        assert texto in aceitos
    assert CANONICO + "\n" not in aceitos
    assert CANONICO[:-1] not in aceitos


hexa = st.sampled_from("0123456789abcdefABCDEF")
quase_uuid = st.lists(
    st.one_of(hexa, hexa, hexa, st.sampled_from("-{}:_ \n+xXgu\u0661")), min_size=28, max_size=42
).map("".join)


@settings(max_examples=2000, deadline=None)
@given(st.one_of(st.uuids().map(str), st.uuids().map(lambda u: str(u).upper()), quase_uuid))
def test_registry__uuid_format_agrees_with_uuid_uuid(texto: str) -> None:
    assert registry._e_uuid(texto) is _aceito_por_uuid(texto)
