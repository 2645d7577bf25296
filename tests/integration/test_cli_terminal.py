"""What `d2` prints cannot drive the operator's terminal: names, error
texts and ids come from citizens' drawings, other colonies' writers of core.uc_polygons
and malformed events. Control characters (ESC, OSC, CR, LF, C1), bidi overrides and
zero-width characters are printed as visible escapes in every text form; --json stays
exact JSON that decodes to the stored string.

The hostile values are written straight into the tables the commands read, as a writer
of core.uc_polygons can and as rows stored before names were cleaned would be: what is
tested here is the printing, whatever storage lets through."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from d2 import config
from d2.eventlog import dead_letters
from d2.territorio import comunitario
from tests.support import Conn
from tests.support.events import submeter_drawing
from tests.support.territorio import inserir_uc, poligono, quadrado

# Colours, an OSC 8 hyperlink, a carriage return and a line feed that forge a line,
# a right-to-left override, an isolate, a zero-width joiner and an 8-bit CSI.
HOSTIL = (
    "Vila\x1b[31m Nova\x1b]8;;https://x.invalid/\x07link\x1b]8;;\x07"
    "\r\nmoderacao aceita\u202eetad\u2066\u200d\x9b2J\x7f"
)
FALSA = "moderacao aceita"


def _inseguro(texto: str) -> list[str]:
    """Characters a terminal would act on or that reorder or hide text: C0 and C1
    controls (but the line feeds and tabs a renderer writes itself), format characters
    (bidi, zero-width), line and paragraph separators."""
    return [
        c
        for c in texto
        if c not in "\n\t" and unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp", "Cs")
    ]


@pytest.fixture
def hostil(conn: Conn, settings: config.Settings) -> Conn:
    """A territory whose names, a drawing's name and a dead letter's text are HOSTIL."""
    pais = inserir_uc(conn, 7, "País", poligono(quadrado(-56, -23, -54, -21)), fonte="ibge")
    uf = inserir_uc(conn, 5, "UF", poligono(quadrado(-56, -23, -54, -21)), pais)
    municipio = inserir_uc(
        conn, 4, HOSTIL, poligono(quadrado(-55.0, -22.1, -54.9, -22.0)), uf, fonte="ibge"
    )
    assert municipio
    primeiro = submeter_drawing(conn, poligono(quadrado(-54.95, -22.05, -54.94, -22.04)))
    submeter_drawing(conn, poligono(quadrado(-54.947, -22.05, -54.937, -22.04)))
    comunitario.drenar(conn, settings)
    conn.execute("UPDATE d2.territorio_submissoes SET nome = %s", [HOSTIL])
    conn.execute("UPDATE d2.territorio_ucs SET nome = %s", [HOSTIL])
    uc = conn.execute(
        "SELECT alvo_uc_id FROM d2.territorio_submissoes WHERE event_id = %s", [primeiro]
    ).fetchone()["alvo_uc_id"]
    conn.execute("UPDATE core.uc_polygons SET nome = %s WHERE unidade_civica_id = %s", [HOSTIL, uc])
    dead_letters.registrar(
        conn,
        consumer="D-2",
        event_id=uuid.uuid4(),
        tipo="demanda.normalizada",
        sequence_number=None,
        erro=HOSTIL,
    )
    return conn


def _d2(db_url: str, *argumentos: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "d2.cli", *argumentos],
        env=os.environ | {"DATABASE_URL": db_url},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert not _inseguro(proc.stderr), proc.stderr
    return proc.stdout


TEXTOS = [
    ["territorio", "list", "--all"],
    ["territorio", "health"],
    ["dlq", "list"],
    ["status"],
]


@pytest.mark.parametrize("comando", TEXTOS, ids=[" ".join(c) for c in TEXTOS])
def test_cli_terminal__hostile_names_print_as_visible_escapes(
    hostil: Conn, db_url: str, comando: list[str]
) -> None:
    texto = _d2(db_url, *comando)
    assert not _inseguro(texto), [hex(ord(c)) for c in _inseguro(texto)]
    assert not any(linha.lstrip().startswith(FALSA) for linha in texto.splitlines())
    if comando != ["status"]:
        assert "Vila\\x1b[31m Nova" in texto and "\\u202e" in texto and "\\r\\n" in texto


JSONS = [
    ["territorio", "list", "--all", "--json"],
    ["territorio", "health", "--json"],
    ["dlq", "list", "--json"],
    ["resolve", "-22.045", "-54.945"],
]


@pytest.mark.parametrize("comando", JSONS, ids=[" ".join(c) for c in JSONS])
def test_cli_terminal__json_stays_exact_and_carries_no_raw_control(
    hostil: Conn, db_url: str, comando: list[str]
) -> None:
    saida = _d2(db_url, *comando)
    assert not _inseguro(saida), [hex(ord(c)) for c in _inseguro(saida)]
    assert HOSTIL in set(_textos(json.loads(saida)))


def _textos(valor: Any) -> Iterator[str]:
    """Every string in a decoded JSON value."""
    if isinstance(valor, str):
        yield valor
    elif isinstance(valor, dict):
        for v in valor.values():
            yield from _textos(v)
    elif isinstance(valor, list):
        for v in valor:
            yield from _textos(v)
