"""One word per concept in the code itself (CONTRIBUTING.md, "Names"): no Python identifier
in d2/ or tests/ carries a Portuguese synonym of a concept the glossary names in English.

The synonyms are read from docs/glossary.md, the one place they are written: the column
"never in Python names" of its table of D-2's technical words. An identifier is every
name the code gives: functions and classes, their arguments, assigned names (variables,
constants, attributes, loop and `with` targets), attributes read, and import aliases. A
keyword in a call is not one: it spells a parameter whose name is checked where it is
defined, or an interface that keeps its spelling (a metric label, an SQL column), and
string literals (SQL, JSON and log keys, flags) are interfaces too. Identifiers are split
into words at underscores and at CamelCase humps; a word fails when it is a kept-out
synonym or its plural."""

from __future__ import annotations

import ast
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

RAIZ = Path(__file__).resolve().parents[2]
GLOSSARIO = RAIZ / "docs" / "glossary.md"
COLUNA = "never in Python names"


def sinonimos(texto: str) -> dict[str, str]:
    """Each word the glossary keeps out of Python names, with its concept's one word."""
    fora: dict[str, str] = {}
    coluna: int | None = None
    for linha in texto.splitlines():
        celulas = [c.strip() for c in linha.strip().strip("|").split("|")]
        if not linha.startswith("|"):
            coluna = None
        elif COLUNA in celulas:
            coluna = celulas.index(COLUNA)
        elif coluna is not None and not set(celulas[0]) <= set("-: "):
            for palavra in re.findall(r"`([^`]+)`", celulas[coluna]):
                fora[palavra] = celulas[0]
    return fora


def palavras(nome: str) -> list[str]:
    """`quem_trava` → quem, trava; `TerritorioDesenhos` → territorio, desenhos."""
    return [
        p.lower()
        for parte in nome.split("_")
        for p in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+", parte)
    ]


def identificadores(arvore: ast.AST) -> Iterator[tuple[str, int]]:
    for no in ast.walk(arvore):
        if isinstance(no, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield no.name, no.lineno
        elif isinstance(no, ast.arg):
            yield no.arg, no.lineno
        elif isinstance(no, ast.Name) and isinstance(no.ctx, ast.Store):
            yield no.id, no.lineno
        elif isinstance(no, ast.Attribute):
            yield no.attr, no.lineno
        elif isinstance(no, ast.alias) and no.asname:
            yield no.asname, no.lineno
        elif isinstance(no, ast.ExceptHandler) and no.name:
            yield no.name, no.lineno
        elif isinstance(no, ast.MatchAs | ast.MatchStar) and no.name:
            yield no.name, no.lineno


def _arquivos() -> list[str]:
    saida = subprocess.run(
        ["git", "ls-files", "d2/*.py", "tests/*.py"],
        cwd=RAIZ,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return saida


def _proibida(palavra: str, fora: dict[str, str]) -> str | None:
    for singular in (palavra, palavra.removesuffix("s"), palavra.removesuffix("es")):
        if singular in fora:
            return fora[singular]
    return None


def test_identifiers_use_one_word_per_concept() -> None:
    fora = sinonimos(GLOSSARIO.read_text(encoding="utf-8"))
    arquivos = _arquivos()
    if not arquivos:
        pytest.skip("not a git checkout")
    achados: dict[str, list[str]] = {}
    for arquivo in arquivos:
        arvore = ast.parse((RAIZ / arquivo).read_text(encoding="utf-8"), arquivo)
        for nome, linha in identificadores(arvore):
            for palavra in palavras(nome):
                if conceito := _proibida(palavra, fora):
                    achados.setdefault(f"{arquivo}:{linha}", []).append(
                        f"{nome}: {palavra} is {conceito}"
                    )
    assert achados == {}


def test_the_glossary_names_the_words_kept_out() -> None:
    """The check reads what the glossary says: a renamed column or a table it no longer
    parses would pass everything, so the words it reads are held to their shape."""
    fora = sinonimos(GLOSSARIO.read_text(encoding="utf-8"))
    assert len(fora) >= 6, fora
    assert all(re.fullmatch(r"[a-z]+", p) for p in fora), sorted(fora)
    assert all(re.fullmatch(r"[a-z][a-z' -]*", c) for c in fora.values()), sorted(fora.values())


@pytest.mark.parametrize(
    ("nome", "esperadas"),
    [
        ("quem_trava", ["quem", "trava"]),
        ("TerritorioDesenhos", ["territorio", "desenhos"]),
        ("LIDERANCA_PERDIDA", ["lideranca", "perdida"]),
        ("_metricas_geo", ["metricas", "geo"]),
        ("HTTPServer", ["http", "server"]),
        ("d2_worker", ["d", "worker"]),
    ],
)
def test_words__snake_and_camel_case_split(nome: str, esperadas: list[str]) -> None:
    assert palavras(nome) == esperadas


def test_sinonimos__read_from_the_column_and_its_rows_only() -> None:
    texto = (
        "| word | meaning | never in Python names | stays |\n"
        "|---|---|---|---|\n"
        "| batch | the events (`D2_BATCH_SIZE`) | `lote` | `--lote` |\n"
        "| lock | a lock | `trava`, `travas` | — |\n"
        "\n"
        "| other | table | stays |\n"
        "| x | `y` | `z` |\n"
    )
    assert sinonimos(texto) == {"lote": "batch", "trava": "lock", "travas": "lock"}
    assert _proibida("lotes", sinonimos(texto)) == "batch"
    assert _proibida("loteamento", sinonimos(texto)) is None
