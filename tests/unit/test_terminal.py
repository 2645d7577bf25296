"""d2/terminal.py and the CLI's renderers: what a terminal would act on,
or what reorders or hides text, is printed as a visible escape; JSON stays exact."""

from __future__ import annotations

import argparse
import json
import unicodedata

import pytest

from d2.cli import common
from d2.terminal import json_seguro, limpar, visivel

# One of each kind a drawn name or an error text could carry.
PERIGOSOS = {
    "\x1b": "ESC (colours, cursor moves: CSI)",
    "\x9b": "8-bit CSI",
    "\x9d": "8-bit OSC",
    "\x07": "BEL (ends an OSC)",
    "\r": "carriage return (overwrites the line)",
    "\n": "line feed (forges a line)",
    "\x08": "backspace",
    "\x7f": "DEL",
    "\x00": "NUL",
    "\u202a": "LRE",
    "\u202b": "RLE",
    "\u202c": "PDF",
    "\u202d": "LRO",
    "\u202e": "RLO",
    "\u2066": "LRI",
    "\u2067": "RLI",
    "\u2068": "FSI",
    "\u2069": "PDI",
    "\u061c": "arabic letter mark",
    "\u200e": "LRM",
    "\u200f": "RLM",
    "\u200b": "zero-width space",
    "\u200c": "zero-width non-joiner",
    "\u200d": "zero-width joiner",
    "\u2060": "word joiner",
    "\ufeff": "zero-width no-break space",
    "\u2028": "line separator",
    "\u2029": "paragraph separator",
    "\U000e0041": "tag latin capital A",
}


@pytest.mark.parametrize("c", list(PERIGOSOS), ids=list(PERIGOSOS.values()))
def test_terminal__every_dangerous_character_becomes_a_visible_escape(c: str) -> None:
    saida = visivel(f"a{c}b")
    assert c not in saida and saida.startswith("a\\") and saida.endswith("b")
    assert saida.isprintable()


def test_terminal__printable_text_is_untouched() -> None:
    for texto in ("São João d'Aliança", "Vila 🏳 Nova", "北京", "C:\\dir", "a  b", ""):
        assert visivel(texto) == texto


def test_terminal__escapes_name_the_character() -> None:
    assert visivel("\x1b[31mX\r\n\u202e") == "\\x1b[31mX\\r\\n\\u202e"
    assert visivel("a\nb\tc\x1b", manter="\n\t") == "a\nb\tc\\x1b"


def test_terminal__limpar_reaches_every_string_and_keeps_other_values() -> None:
    dados = {"n\x1b": ["\r", ("\u202e", 1)], "x": None, "y": 2.5}
    assert limpar(dados) == {"n\\x1b": ["\\r", ("\\u202e", 1)], "x": None, "y": 2.5}


def test_terminal__json_seguro_is_the_same_json_without_raw_characters() -> None:
    valor = {"nome": "".join(PERIGOSOS) + "ç🏳", "lista": ["\x9b2J"]}
    texto = json_seguro(json.dumps(valor, ensure_ascii=False, indent=2))
    assert json.loads(texto) == valor
    assert all(unicodedata.category(c) not in ("Cc", "Cf", "Zl", "Zp") for c in texto if c != "\n")
    assert "ç🏳" in texto  # what is printable stays readable


def test_tabela__a_hostile_cell_neither_adds_a_row_nor_reaches_the_terminal() -> None:
    linhas = [{"nome": "Vila\r\nmoderacao aceita\x1b[2K", "n": 1}, {"nome": "ok", "n": 2}]
    texto = common.tabela(linhas, ("nome", "n"))
    assert len(texto.splitlines()) == 3
    assert "\x1b" not in texto and "\r" not in texto
    assert not any(linha.startswith("moderacao") for linha in texto.splitlines())


def test_chave_valor__keys_and_values_are_escaped() -> None:
    texto = common.chave_valor({"a\u202e": "x\ny", "b": None})
    assert texto.splitlines() == ["a\\u202e  x\\ny", "b        None"]


def test_emitir__text_form_escapes_data_and_keeps_the_renderers_own_lines(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = argparse.Namespace(json=False)
    common.emitir(args, {"nome": "A\nB\x1b"}, lambda d: f"nome:\n\t{d['nome']}")
    assert capsys.readouterr().out == "nome:\n\tA\\nB\\x1b\n"


def test_emitir__json_form_decodes_to_the_exact_data(capsys: pytest.CaptureFixture[str]) -> None:
    dados = {"nome": "".join(PERIGOSOS)}
    common.emitir(argparse.Namespace(json=True), dados, lambda d: "text")
    saida = capsys.readouterr().out
    assert json.loads(saida) == dados
    assert all(c not in saida for c in PERIGOSOS if c != "\n")
    common.emitir_linha(dados)
    linha = capsys.readouterr().out
    assert linha.count("\n") == 1 and json.loads(linha) == dados
