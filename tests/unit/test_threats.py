"""The threat model (docs/reliability.md, section 6) can be followed to its tests: each
threat is a section saying the threat, who can carry it out, the defence and the
evidence, and every file and test the evidence names exists (a test renamed or moved
leaves no pointer behind)."""

from __future__ import annotations

import ast
import fnmatch
import re
from functools import cache
from pathlib import Path

import pytest

RAIZ = Path(__file__).resolve().parents[2]
PAGINA = RAIZ / "docs" / "reliability.md"
CAMPOS = ("Threat", "Who", "Defence", "Evidence")
# A section the geocoder's defence will fill says so; it names no evidence yet.
A_ESCREVER = "To be written"
# `path/to/file.py`, `file.py::test_name`, `::test_name`, `…part_of_a_name…`.
TOKEN = re.compile(r"`([^`]+)`")
ARQUIVO = re.compile(r"^(?:[\w.-]+/)*[\w.-]+\.(?:py|yml|yaml|sh|sql|toml|md)$")


def secoes() -> dict[str, str]:
    """The threats' sections of section 6, by title."""
    texto = PAGINA.read_text(encoding="utf-8")
    inicio = texto.index("\n## 6. Threats")
    fim = texto.index("\n## 7.", inicio)
    partes = re.split(r"\n### ", texto[inicio:fim])[1:]
    return {
        p.split("\n", 1)[0].strip(): p.split("\n", 1)[1]
        for p in partes
        if not p.startswith("What authenticates")
    }


@cache
def _testes(arquivo: Path) -> frozenset[str]:
    arvore = ast.parse(arquivo.read_text(encoding="utf-8"))
    return frozenset(
        n.name
        for n in ast.walk(arvore)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name.startswith("test")
    )


def _achar(nome: str) -> list[Path]:
    if "/" in nome or not nome.startswith("test_"):
        return [RAIZ / nome] if (RAIZ / nome).is_file() else []
    return sorted((RAIZ / "tests").rglob(nome))


def faltando(evidencia: str) -> tuple[list[str], int]:
    """The pointers of an evidence paragraph that lead nowhere, and how many tests it
    names that exist."""
    perdidos: list[str] = []
    achados = 0
    atual: Path | None = None
    for token in TOKEN.findall(evidencia):
        arquivo, _, teste = token.partition("::")
        if token.startswith("…"):
            arquivo, teste = "", token
        elif arquivo:
            if not ARQUIVO.match(arquivo):
                continue
            caminhos = _achar(arquivo)
            if len(caminhos) != 1:
                perdidos.append(token)
                atual = None
                continue
            atual = caminhos[0]
        elif not teste:
            continue
        if not teste:
            achados += arquivo.startswith("tests/") or arquivo.startswith("test_")
            continue
        if atual is None or atual.suffix != ".py":
            perdidos.append(token)
            continue
        padrao = re.sub(r"\[.*\]$", "", teste).replace("…", "*")
        if any(fnmatch.fnmatchcase(t, padrao) for t in _testes(atual)):
            achados += 1
        else:
            perdidos.append(f"{atual.relative_to(RAIZ)}::{teste}")
    return perdidos, achados


def test_threats__every_threat_is_a_section_with_its_four_parts() -> None:
    todas = secoes()
    assert len(todas) > 30
    incompletas = {
        titulo: [c for c in CAMPOS if f"- **{c}.**" not in corpo]
        for titulo, corpo in todas.items()
        if A_ESCREVER not in corpo
    }
    assert {t: c for t, c in incompletas.items() if c} == {}


def test_threats__every_evidence_names_tests_that_exist() -> None:
    perdidos = {}
    sem_prova = []
    for titulo, corpo in secoes().items():
        if A_ESCREVER in corpo:
            continue
        evidencia = corpo.split("- **Evidence.**", 1)[1]
        faltam, achados = faltando(evidencia)
        if faltam:
            perdidos[titulo] = faltam
        if not achados:
            sem_prova.append(titulo)
    assert perdidos == {}
    assert sem_prova == []


@pytest.mark.parametrize(
    ("evidencia", "perdidos", "achados"),
    [
        ("`tests/unit/test_threats.py::test_threats__every_*`", [], 1),
        ("`tests/unit/test_threats.py` (`…evidence_names_tests…`)", [], 2),
        ("`test_threats.py::test_gone`", ["tests/unit/test_threats.py::test_gone"], 0),
        ("`tests/unit/test_nowhere.py`", ["tests/unit/test_nowhere.py"], 0),
        ("`D2_HOME`, `<img onerror>` and `d2 map`", [], 0),
    ],
)
def test_threats__the_check_finds_what_leads_nowhere(
    evidencia: str, perdidos: list[str], achados: int
) -> None:
    assert faltando(evidencia) == (perdidos, achados)
