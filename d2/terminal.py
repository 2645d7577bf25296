"""Text that reaches a person's terminal or page, made inert: names, error texts and ids
come from citizens' drawings, other colonies' writers and malformed events, and a
terminal acts on some characters instead of showing them (ESC and CSI sequences set
colours or clear the screen, OSC ones set titles and hyperlinks, CR and LF forge lines),
while others reorder or hide text (bidi overrides and isolates, zero-width characters).

`visivel` shows each such character as a visible escape (`\\x1b`, `\\r`, `\\u202e`); the
JSON form keeps exact JSON with `json_seguro`, whose `\\uXXXX` escapes decode to the
very same string."""

from __future__ import annotations

import functools
import json
import unicodedata
from typing import Any

# Cc: C0 controls, DEL, C1 controls (an 8-bit CSI is U+009B). Cf: format characters, the
# bidi embeddings, overrides and isolates (U+202A to U+202E, U+2066 to U+2069, U+061C, U+200E,
# U+200F), zero-width space and joiners (U+200B to U+200D, U+2060, U+FEFF), soft hyphen and
# tag characters. Zl/Zp: U+2028 and U+2029, line breaks to some terminals and to
# JavaScript. Cs: lone surrogates, which no terminal shows.
_CATEGORIAS = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
_NOMES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


@functools.lru_cache(maxsize=4096)
def _inseguro(c: str) -> bool:
    return unicodedata.category(c) in _CATEGORIAS


def _escape(c: str) -> str:
    if c in _NOMES:
        return _NOMES[c]
    codigo = ord(c)
    if codigo <= 0xFF:
        return f"\\x{codigo:02x}"
    if codigo <= 0xFFFF:
        return f"\\u{codigo:04x}"
    return f"\\U{codigo:08x}"


def visivel(texto: str, manter: str = "") -> str:
    """texto with every control, format and separator character shown as an escape;
    those in manter (a renderer's own line feeds) stay."""
    if texto.isprintable():  # the common case: nothing to look at twice
        return texto
    return "".join(_escape(c) if c not in manter and _inseguro(c) else c for c in texto)


def limpar(dados: Any) -> Any:
    """dados with every string in it (dict keys too) passed through visivel; other values
    (numbers, dates, uuids) as they are, so renderers still format them."""
    if isinstance(dados, str):
        return visivel(dados)
    if isinstance(dados, dict):
        return {limpar(k): limpar(v) for k, v in dados.items()}
    if isinstance(dados, list):
        return [limpar(v) for v in dados]
    if isinstance(dados, tuple):
        return tuple(limpar(v) for v in dados)
    return dados


def json_seguro(texto_json: str) -> str:
    """A JSON text (json.dumps with ensure_ascii=False) whose strings hold no character a
    terminal acts on: json.dumps escapes C0 controls itself but leaves DEL, C1 controls,
    bidi and zero-width characters raw. Each becomes a \\uXXXX escape (a surrogate pair
    above U+FFFF), which decodes to the same character: the JSON value is unchanged."""
    if texto_json.isprintable():
        return texto_json
    partes = []
    for c in texto_json:
        if c not in "\n" and _inseguro(c):
            partes.append(json.dumps(c, ensure_ascii=True)[1:-1])
        else:
            partes.append(c)
    return "".join(partes)
