"""The address corpus and the verdicts of `d2 bench geocode-quality`: the committed corpus
is what its generator makes and covers every category in 5 UFs, every expected answer is
complete, each kind of answer gets its verdict and a wrong street breaks the targets (the
short form through the real worker runs in tests/integration)."""

from __future__ import annotations

import re
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from d2.bench import address_corpus, geocode_quality
from d2.bench.corpus import generator
from d2.importers import ibge
from tests.support.address_fixtures import CORPUS_CATEGORIAS as CATEGORIAS
from tests.support.address_fixtures import CORPUS_ESPERADO as _ESPERADO
from tests.support.address_fixtures import CORPUS_UC as _UC


@pytest.mark.shared_data
def test_address_corpus__the_committed_file_is_what_the_generator_makes(
    shared_data: Path,
) -> None:
    feito = address_corpus.gerar(shared_data).jsonl()

    assert address_corpus.ARQUIVO.read_text(encoding="utf-8") == feito


def test_address_corpus__covers_every_category_ufs_and_long_texts() -> None:
    cabecalho, casos = address_corpus.ler()

    assert len(casos) >= 300
    assert len({c["uf"] for c in casos if c["uf"]}) >= 5
    assert set(Counter(c["categoria"] for c in casos)) == CATEGORIAS
    assert len({c["id"] for c in casos}) == len(casos)
    assert cabecalho["licenca"] == "ODbL-1.0" and "CEP Aberto" in cabecalho["sobre"]
    textos = [c["payload"]["entidades_extraidas"].get("endereco", "") for c in casos]
    assert any(len(t.encode()) >= 2048 for t in textos)  # the 2 kB texts
    ceps = [
        valor
        for c in casos
        if c["categoria"] == "cep_sozinho"
        for valor in c["payload"]["entidades_extraidas"].values()
    ]
    assert any(re.fullmatch(r"\d{5}-\d{3}", v) for v in ceps)  # CEP alone, both forms
    assert any(re.fullmatch(r"\d{8}", v) for v in ceps)


def test_address_corpus__every_expected_answer_is_complete() -> None:
    _, casos = address_corpus.ler()
    for caso in casos:
        esperado = caso["esperado"]
        if esperado["uc"] is None:
            assert esperado == generator.NENHUM, caso["id"]
        else:
            assert len(esperado["uc"]) in (7, 10), caso["id"]
            assert (esperado["metodo"], esperado["confianca"]) in {
                ("endereco", "media"), ("inferencia", "baixa"), ("gps", "alta"),
            }, caso["id"]  # fmt: skip
        gps = caso["payload"]["coordenadas_validadas"] is not None
        assert gps == (esperado["metodo"] == "gps"), caso["id"]


@pytest.mark.parametrize(
    ("esperado", "resposta", "veredito"),
    [
        (_ESPERADO, {"unidade_civica_id": ibge.uc_id(2, _UC), "metodo_resolucao": "endereco"},
         "right"),
        (_ESPERADO, {"unidade_civica_id": ibge.uc_id(2, _UC), "metodo_resolucao": "inferencia"},
         "under_confident"),
        (_ESPERADO, {"unidade_civica_id": ibge.uc_id(4, "5002704"),
                     "metodo_resolucao": "inferencia"}, "under_confident"),
        (_ESPERADO, {"unidade_civica_id": ibge.uc_id(4, "5003702"),
                     "metodo_resolucao": "endereco"}, "wrong_uc"),
        (_ESPERADO, {"unidade_civica_id": None}, "missed"),
        (generator.NENHUM, {"unidade_civica_id": None}, "right"),
        (generator.NENHUM, {"unidade_civica_id": ibge.uc_id(4, "5002704"),
                                 "metodo_resolucao": "inferencia"}, "unexpected"),
        (dict(_ESPERADO, uc="5002704", metodo="inferencia"),
         {"unidade_civica_id": ibge.uc_id(2, _UC), "metodo_resolucao": "endereco",
          "cadeia_ucs": [ibge.uc_id(4, "5002704")]}, "over_confident"),
    ],
    ids=["right", "surer-expected", "above", "elsewhere", "nothing", "nothing-expected",
         "where-none", "inside"],
)  # fmt: skip
def test_quality_verdict__each_kind_of_answer(
    esperado: dict[str, Any], resposta: dict[str, Any], veredito: str
) -> None:
    assert geocode_quality.julgar(esperado, resposta) == veredito


def test_quality_score__a_wrong_street_answer_breaks_the_targets() -> None:
    placar = geocode_quality.Placar()
    caso = {"esperado": _ESPERADO}
    placar.somar(caso, {"unidade_civica_id": ibge.uc_id(2, _UC), "metodo_resolucao": "endereco",
                        "processado": True})  # fmt: skip
    assert all(placar.alvos().values())

    placar.somar(caso, {"unidade_civica_id": uuid.uuid4(), "metodo_resolucao": "endereco",
                        "processado": True})  # fmt: skip

    assert placar.errados_na_media == 1
    assert not placar.alvos()["0 wrong answers at endereco/media"]
