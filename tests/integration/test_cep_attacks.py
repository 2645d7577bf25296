"""A hostile CEP source for `d2 cep import`: a crafted states.csv whose UF sigla carried a
row of its own into COPY (a CEP no row of the dump names), and terminal escapes and
direction overrides in cidade, bairro and logradouro stored raw (and sent to Nominatim).
Each failed on the code before its defence."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from d2 import errors
from d2.importers import cep, sample, sample_cep
from tests.support import Conn

# What no stored text may hold: C0/C1 controls, zero-width and direction marks, the BOM.
PROIBIDOS = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")
INJETADO = "66666666"


def _reescrever(arquivo: Path, mudar: object) -> None:
    with arquivo.open(encoding="utf-8", newline="") as f:
        linhas = list(csv.reader(f))
    assert callable(mudar)
    mudar(linhas)
    with arquivo.open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows(linhas)


def test_cep_attack__a_sigla_carrying_a_row_of_its_own_adds_nothing(
    conn: Conn, tmp_path: Path
) -> None:
    """Before: the sigla went into COPY's text unescaped, so a tab and a newline in it
    made a second row, and CEP 66666666 was stored though no CEP file names it."""
    sample.load_sample(conn.info.dsn)
    dump = sample_cep.write_dump(tmp_path / "d")

    def envenenar(linhas: list[list[str]]) -> None:
        sigla = linhas[0][2]
        linhas[0][2] = f"{sigla}\tX\tCENTRO\tRUA X\tRUA X\n{INJETADO}\t{sigla}"

    _reescrever(dump / "states.csv", envenenar)
    with pytest.raises(errors.ImportFailed, match="not two capital letters") as exc:
        cep.importar(conn.info.dsn, dump)
    assert "\n" not in str(exc.value) and "\t" not in str(exc.value)
    assert conn.execute("SELECT count(*) AS n FROM d2.ceps").fetchone() == {"n": 0}
    assert conn.execute("SELECT count(*) AS n FROM d2.cep_localidades").fetchone() == {"n": 0}


def test_cep_attack__control_and_direction_characters_are_never_stored(
    conn: Conn, tmp_path: Path
) -> None:
    """Before: ESC, OSC and U+202E in a street, a bairro or a city were stored as sent."""
    sample.load_sample(conn.info.dsn)
    dump = sample_cep.write_dump(tmp_path / "d")
    arquivo = next(dump.glob("*.cepaberto_parte_1.csv"))
    alvo: dict[str, str] = {}

    def sujar_cep(linhas: list[list[str]]) -> None:
        linhas[0][1] = "Rua\x1b]0;aceito\x07 das\tFlores\u202e"
        linhas[0][3] = "Centro\x1b[2J\r\n\u200f"
        alvo["cep"] = linhas[0][0]

    def sujar_cidades(linhas: list[list[str]]) -> None:
        for linha in linhas:
            linha[1] = f"\u202e{linha[1]}\x9b"

    _reescrever(arquivo, sujar_cep)
    _reescrever(dump / "cities.csv", sujar_cidades)
    resumo = cep.importar(conn.info.dsn, dump)
    assert resumo.lidos == len(sample_cep.linhas())
    for tabela, colunas in (
        ("d2.ceps", "bairro || logradouro || logradouro_busca"),
        ("d2.cep_localidades", "nome || uf"),
    ):
        textos = [r["t"] for r in conn.execute(f"SELECT {colunas} AS t FROM {tabela}")]
        assert textos and not [t for t in textos if PROIBIDOS.search(t)], tabela
    linha = conn.execute(
        "SELECT bairro, logradouro FROM d2.ceps WHERE cep = %s", [alvo["cep"]]
    ).fetchone()
    assert linha == {"bairro": "Centro[2J", "logradouro": "Rua]0;aceito das Flores"}
    # The cities, cleaned, still link to their municípios as before.
    assert resumo.municipios["nome"][1] == 17
