"""Every reference a reader meets can be followed inside the repository. The tracker where
work was once planned and the brief the project started from do not travel with it, so no
line in d2/, sql/, tests/, docs/, the migrations' Python, the README, CONTRIBUTING or the
CHANGELOG cites a ticket by number or that brief's decisions: a comment says the reason in
words, or cites a numbered decision of docs/design.md as "docs/design.md, decision N" (or a
section of another page). And every link between the pages (README, CONTRIBUTING, CHANGELOG,
docs/) leads to a file that exists and, with an anchor, to one of that page's headings.

Frozen migration SQL (alembic/versions/sql/) is not held to this: it is sealed, and what a
migration installed never changes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

RAIZ = Path(__file__).resolve().parents[2]
PASTAS = ("d2", "sql", "tests", "docs")
ARQUIVOS = ("README.md", "CONTRIBUTING.md", "CHANGELOG.md", "alembic/env.py")
SUFIXOS = {".py", ".sql", ".md", ".json", ".jsonl", ".txt", ".sh", ".toml", ".cfg", ".ini"}

URL = re.compile(r"https?://\S+")
# A decision of docs/design.md, cited by its number (one, a range or a list).
CITACAO = re.compile(r"design\.md,\s+decisions?\s+\d+(?:\s*(?:[-\u2013,]|and)\s*\d+)*")
PROIBIDOS = {
    "a ticket of the tracker": re.compile(r"(?<![A-Za-z])[Ii]ssues?(?![A-Za-z])|ISSUE"),
    "the outside brief": re.compile(r"DESIGN\.md|DESIGN\s+decisions?"),
    "a decision with no page": re.compile(r"(?<![A-Za-z])(?<!DESIGN )[Dd]ecisions?\s+\d+"),
}


def _arquivos() -> list[Path]:
    # The migrations' Python (their docstrings are `alembic history`'s text), not the
    # SQL frozen beside them.
    achados = [RAIZ / a for a in ARQUIVOS] + list((RAIZ / "alembic" / "versions").glob("*.py"))
    for pasta in PASTAS:
        achados += [
            p
            for p in (RAIZ / pasta).rglob("*")
            if p.is_file() and p.suffix in SUFIXOS and "__pycache__" not in p.parts
        ]
    # This file shows the check what it must find.
    return sorted(p for p in achados if p != Path(__file__).resolve())


def referencias(texto: str) -> list[tuple[int, str]]:
    """(line, what) for each reference that leads outside the repository."""
    limpo = CITACAO.sub("", URL.sub("", texto))
    return sorted(
        (limpo.count("\n", 0, m.start()) + 1, f"{o_que}: {m.group(0)!r}")
        for o_que, padrao in PROIBIDOS.items()
        for m in padrao.finditer(limpo)
    )


@pytest.mark.parametrize(
    ("texto", "achadas"),
    [
        ("# kept as it was (issue 14)", 1),
        ("see issue's targets; Issue 29 item 7", 2),
        ("(DESIGN decision 5) and shared/DESIGN.md", 2),
        ("the cursor moves on\n(decision 7).", 1),
        ("a test_x__what_the_issue_asks name", 1),
        ("(docs/design.md, decision 5); docs/design.md, decisions 1-4", 0),
        ("(design.md, decisions 3 and 11)", 0),
        ("https://example.org/issues/12 is a page anyone can open", 0),
        ("the spec's decisions stand; one decision, in words", 0),
    ],
)
def test_references__the_check_finds_what_leads_outside(texto: str, achadas: int) -> None:
    assert len(referencias(texto)) == achadas


def test_references__every_one_can_be_followed_in_the_repository() -> None:
    assert len(_arquivos()) > 300
    fora = [
        f"{caminho.relative_to(RAIZ)}:{linha}: {o_que}"
        for caminho in _arquivos()
        for linha, o_que in referencias(caminho.read_text(encoding="utf-8", errors="replace"))
    ]
    assert fora == []


# A link between pages: [text](path), [text](path#heading) or [text](#heading).
ENLACE = re.compile(r"\]\(([^)\s]+)\)")
PAGINAS = ("README.md", "CONTRIBUTING.md", "CHANGELOG.md", "docs")


def ancora(titulo: str) -> str:
    """The anchor GitHub gives a heading: its text lower-cased, links and code marks
    dropped, punctuation but hyphens and underscores removed, spaces made hyphens."""
    texto = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", titulo).lower()
    return re.sub(r"[^\w\- ]", "", texto).replace(" ", "-")


def _sem_codigo(texto: str) -> str:
    """The text outside code blocks and code spans, line numbers kept."""
    linhas, em_bloco = [], False
    for linha in texto.splitlines():
        if linha.lstrip().startswith("```"):
            em_bloco = not em_bloco
            linhas.append("")
        else:
            linhas.append("" if em_bloco else re.sub(r"`[^`]*`", "``", linha))
    return "\n".join(linhas)


def ancoras(pagina: Path) -> set[str]:
    """The anchors of a page's headings (outside code blocks; a repeated one gets -1, -2)."""
    vistas: dict[str, int] = {}
    achadas: set[str] = set()
    em_bloco = False
    for linha in pagina.read_text(encoding="utf-8").splitlines():
        if linha.lstrip().startswith("```"):
            em_bloco = not em_bloco
        elif not em_bloco and (m := re.match(r"#{1,6}\s+(.*?)\s*#*$", linha)):
            base = ancora(m.group(1))
            n = vistas.get(base, 0)
            vistas[base] = n + 1
            achadas.add(base if n == 0 else f"{base}-{n}")
    return achadas


def enlaces_quebrados(pagina: Path) -> list[str]:
    quebrados = []
    texto = _sem_codigo(pagina.read_text(encoding="utf-8"))
    for numero, linha in enumerate(texto.splitlines(), 1):
        for alvo in ENLACE.findall(linha):
            if re.match(r"[a-z]+:", alvo):
                continue  # a page outside the repository
            caminho, _, trecho = alvo.partition("#")
            destino = (pagina.parent / caminho).resolve() if caminho else pagina
            if not destino.is_relative_to(RAIZ):
                continue  # beside the checkout (the spec, the shared data), not in it
            if not destino.exists():
                quebrados.append(f"{pagina.relative_to(RAIZ)}:{numero}: no {caminho}")
            elif trecho and destino.suffix == ".md" and trecho not in ancoras(destino):
                quebrados.append(f"{pagina.relative_to(RAIZ)}:{numero}: no heading #{trecho}")
    return quebrados


def test_references__the_anchor_of_a_heading_is_githubs() -> None:
    assert (
        ancora("1. Least privilege: the `d2_worker` role") == "1-least-privilege-the-d2_worker-role"
    )
    assert ancora("Quality: the address corpus") == "quality-the-address-corpus"
    assert ancora("The band's row: runs of intervals, the gaps' pieces, the rounding") == (
        "the-bands-row-runs-of-intervals-the-gaps-pieces-the-rounding"
    )
    assert ancora("For the monolith's operators: what D-2 adds outside schema d2") == (
        "for-the-monoliths-operators-what-d-2-adds-outside-schema-d2"
    )


def test_references__every_link_between_pages_leads_to_a_page_and_its_heading() -> None:
    paginas = [RAIZ / p for p in PAGINAS if p.endswith(".md")]
    paginas += sorted((RAIZ / "docs").rglob("*.md"))
    assert len(paginas) > 10
    assert [q for p in paginas for q in enlaces_quebrados(p)] == []
