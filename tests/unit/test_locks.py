"""D-2's locks, each defined once (docs/reliability.md, section 6).

Every lock D-2 waits on or holds is an EXCLUSIVE lock on an empty table of its own,
defined in sql/tables with its reason: LOCK TABLE in that mode needs UPDATE on the table,
which only d2_worker (for the appliers' and the leadership's) or no one (the interval
builder's, taken by the owner's functions) is granted. An advisory lock, which anyone who
can connect may take, is nowhere; nor is a lock key written as a number in two places."""

from __future__ import annotations

import re
from pathlib import Path

from d2 import db

RAIZ = Path(__file__).resolve().parents[2]
_TOMADA = re.compile(r"LOCK\s+TABLE\s+(d2\.\w+)\s+IN\s+([A-Z ]+?)\s+MODE", re.IGNORECASE)
# Tables locked for what they hold (the chains rebuilt whole), not as a lock of their own.
_TABELAS_DE_DADOS = {"d2.mirror_cadeias"}


def _fontes() -> dict[str, str]:
    arquivos = [*db.sql_dir().rglob("*.sql"), *(RAIZ / "d2").rglob("*.py")]
    return {str(a.relative_to(RAIZ)): a.read_text(encoding="utf-8") for a in arquivos}


def _sem_comentarios(texto: str) -> str:
    return re.sub(r"(--|#).*", "", texto)


def test_locks__no_advisory_lock_anywhere() -> None:
    achados = {
        nome: m.group(0)
        for nome, texto in _fontes().items()
        for m in re.finditer(r"pg_(try_)?advisory\w*", _sem_comentarios(texto))
    }
    assert achados == {}


def test_locks__each_is_an_empty_table_of_its_own_taken_in_one_mode() -> None:
    modos: dict[str, set[str]] = {}
    for texto in _fontes().values():
        for tabela, modo in _TOMADA.findall(_sem_comentarios(texto)):
            modos.setdefault(tabela.lower(), set()).add(modo.upper())
    locks = {t: m for t, m in modos.items() if t not in _TABELAS_DE_DADOS}
    assert set(locks) == {
        "d2.mirror_aplicador",
        "d2.mirror_faixas_construtor",
        "d2.worker_lideranca",
    }
    for tabela, modo in locks.items():
        assert modo == {"EXCLUSIVE"}, tabela
        definicao = (db.sql_dir() / "tables" / f"{tabela.split('.')[1]}.sql").read_text()
        assert f"CREATE TABLE {tabela} ();" in definicao, "a lock table has no columns"
        assert "holds an EXCLUSIVE lock on this table (no rows)" in definicao
