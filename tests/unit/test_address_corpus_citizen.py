"""The corpora of what users write: the committed files are what their generators make
from CEP Aberto and the shared data; the citizen corpus has its two halves, from two
writers, in at least 30 phrasings and every UF; its texts that name no place are at least
500; the national corpus drawn per município holds one-CEP towns; every case says which
of its own rows' names the benchmark holds out."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from d2.bench import address_corpus_municipios as municipios
from d2.bench import common
from d2.bench.corpus import citizen


@pytest.mark.shared_data
def test_citizen_corpus__the_committed_file_is_what_the_generator_makes(shared_data: Path) -> None:
    assert citizen.ARQUIVO.read_text(encoding="utf-8") == citizen.jsonl(citizen.gerar(shared_data))


@pytest.mark.shared_data
def test_municipios_corpus__the_committed_file_is_what_the_generator_makes(
    shared_data: Path,
) -> None:
    feito = municipios.jsonl(municipios.gerar(shared_data))
    assert municipios.ARQUIVO.read_text(encoding="utf-8") == feito


def test_citizen_corpus__two_halves_thirty_phrasings_every_uf_and_texts_that_name_no_place() -> (
    None
):
    cabecalho, casos = common.ler_corpus(citizen.ARQUIVO)
    assert cabecalho["licenca"] == "ODbL-1.0" and "CEP Aberto" in cabecalho["sobre"]
    assert len({c["id"] for c in casos}) == len(casos)
    escritos = [c for c in casos if c["forma"] != "sem_lugar"]
    sem_lugar = [c for c in casos if c["forma"] == "sem_lugar"]
    assert len(escritos) >= 1000 and len(sem_lugar) >= 500
    assert len({c["modelo"] for c in escritos}) >= 30
    for parte in citizen.PARTES:
        da_parte = [c for c in escritos if c["parte"] == parte]
        assert Counter(c["uf"] for c in da_parte) == dict.fromkeys(
            citizen.UFS, citizen.TEXTS_PER_UF
        )
        # Each half from its own writer: no phrasing in both.
        assert {c["modelo"] for c in da_parte} <= {m["id"] for m in citizen.phrasings(parte)}
    for caso in escritos:
        esperado = caso["esperado"]
        assert re.fullmatch(r"\d{7}", esperado["verdadeiro"]), caso["id"]
        assert esperado["municipio"] in (None, esperado["verdadeiro"]), caso["id"]
        assert (esperado["municipio"] is None) == (esperado["indecidivel"] is not None), caso["id"]
        assert caso["retirar"]["municipio"] == esperado["verdadeiro"], caso["id"]
    assert all(c["esperado"]["municipio"] is None for c in sem_lugar)


def test_citizen_corpus__every_slot_of_every_phrasing_is_one_the_generator_fills() -> None:
    for parte in citizen.PARTES:
        for modelo in citizen.phrasings(parte):
            slots = re.findall(r"\{(\w+)(?::([\w+]+))?\}", modelo["modelo"])
            assert slots and {"municipio", "cep"} & {s for s, _ in slots}, modelo["id"]
            for slot, mods in slots:
                assert slot in citizen.SLOTS, modelo["id"]
                assert all(m in citizen.MODIFICADORES for m in mods.split("+") if m), modelo["id"]


def test_municipios_corpus__drawn_per_municipio_with_one_cep_towns_and_rows_held_out() -> None:
    cabecalho, casos = municipios.ler()
    assert cabecalho["municipios_sorteados"] == municipios.MUNICIPIOS
    completos = [c for c in casos if c["forma"] == "completo"]
    assert len(completos) >= municipios.MUNICIPIOS - 10
    # Most municípios of Brazil have one CEP: their rows name no street.
    linhas = Counter(c["linha"] for c in completos)
    assert linhas["localidade"] > linhas["rua"] > 0
    for caso in casos:
        assert caso["retirar"]["municipio"] == caso["esperado"]["verdadeiro"], caso["id"]
        if caso["esperado"]["municipio"] is not None:
            assert caso["esperado"]["municipio"] == caso["esperado"]["verdadeiro"], caso["id"]
