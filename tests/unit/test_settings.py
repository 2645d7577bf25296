"""The manual names every setting: each environment variable d2 reads has exactly one
row in a configuration table of the README or of docs/ (the README's table, the address
path's in docs/geocoding.md, the benchmarks' in docs/performance.md)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import d2

RAIZ = Path(d2.__file__).resolve().parent.parent
_VARIAVEL = re.compile(r"^(D2_[A-Z0-9_]+|DATABASE_URL|NOMINATIM_DATABASE_WEBUSER)$")
_LINHA = re.compile(r"^\| `([A-Z0-9_]+)` \|", re.MULTILINE)


def _lidas() -> set[str]:
    """Every variable name written as a string in the package."""
    nomes: set[str] = set()
    for caminho in (RAIZ / "d2").rglob("*.py"):
        for no in ast.walk(ast.parse(caminho.read_text(encoding="utf-8"))):
            if isinstance(no, ast.Constant) and isinstance(no.value, str):
                if _VARIAVEL.match(no.value):
                    nomes.add(no.value)
    return nomes


def _linhas() -> list[str]:
    paginas = [RAIZ / "README.md", *sorted((RAIZ / "docs").glob("*.md"))]
    return [nome for p in paginas for nome in _LINHA.findall(p.read_text(encoding="utf-8"))]


def test_every_setting_d2_reads_has_one_row_in_the_manual() -> None:
    lidas = _lidas()
    linhas = _linhas()
    assert len(lidas) > 40  # the scan found the settings, not nothing
    faltam = sorted(v for v in lidas if v not in linhas)
    repetidas = sorted({v for v in linhas if v in lidas and linhas.count(v) > 1})
    assert (faltam, repetidas) == ([], [])


def test_the_manual_documents_no_setting_d2_does_not_read() -> None:
    lidas = _lidas()
    sobrando = sorted(v for v in _linhas() if _VARIAVEL.match(v) and v not in lidas)
    assert sobrando == []
