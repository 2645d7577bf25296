"""What D-2 puts outside schema d2: docs/monolith.md's table is d2/footprint.py's list
(the database side runs in tests/integration)."""

from __future__ import annotations

from pathlib import Path

from d2 import footprint

README = Path(__file__).resolve().parents[2] / "docs" / "monolith.md"
SECAO = "## For the monolith's operators: what D-2 adds outside schema d2"


def _tabela_do_readme() -> list[str]:
    texto = README.read_text(encoding="utf-8")
    assert SECAO in texto
    secao = texto.split(SECAO, 1)[1].split("\n## ", 1)[0]
    return [linha for linha in secao.splitlines() if linha.startswith("|")]


def test_readme_table_is_the_list() -> None:
    assert _tabela_do_readme() == footprint.markdown().splitlines()
