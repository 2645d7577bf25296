"""The consumers' cursors have one writer, and a dead letter one builder: the queries that
write d2.consumer_offset live in sql/queries/consumer.sql and only d2/eventlog/consumer.py
runs them, as it alone turns an event into a dead letter. Two writers drift apart (the
demand worker's and the drawings' cursors were once moved by two copies of one query)."""

from __future__ import annotations

import re
from pathlib import Path

import d2
from d2 import db

PACOTE = Path(d2.__file__).resolve().parent
CONSUMER = PACOTE / "eventlog" / "consumer.py"
ESCREVE = re.compile(r"\b(?:INSERT\s+INTO|UPDATE)\s+d2\.consumer_offset", re.IGNORECASE)
NOME = re.compile(r"^--\s*name:\s*(\w+)\s*$", re.MULTILINE)


def _onde() -> dict[str, str]:
    """Each named query's file."""
    return {
        nome: caminho.name
        for caminho in (db.sql_dir() / "queries").glob("*.sql")
        for nome in NOME.findall(caminho.read_text(encoding="utf-8"))
    }


def test_cursor__only_consumer_sql_writes_it() -> None:
    escritores = {nome for nome, corpo in db.queries().items() if ESCREVE.search(corpo)}
    assert escritores >= {"cursor_seed", "cursor_advance"}
    onde = _onde()
    assert {onde[n] for n in escritores} == {"consumer.sql"}


def test_cursor__only_the_consumer_module_runs_those_queries_and_builds_dead_letters() -> None:
    consultas = {nome for nome, arquivo in _onde().items() if arquivo == "consumer.sql"}
    chamada = re.compile(r"""db\.q\(\s*["'](\w+)["']""")
    quem: dict[str, set[str]] = {}
    for caminho in sorted(PACOTE.rglob("*.py")):
        texto = caminho.read_text(encoding="utf-8")
        usadas = set(chamada.findall(texto)) & consultas
        if usadas or "dead_letters.registrar(" in texto:
            quem[str(caminho.relative_to(PACOTE))] = usadas
    assert list(quem) == [str(CONSUMER.relative_to(PACOTE))]
    assert quem[str(CONSUMER.relative_to(PACOTE))] == consultas
