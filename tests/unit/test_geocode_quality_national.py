"""The verdicts of `d2 bench geocode-quality --corpus national` and its selection of rows
by UF, form and count (the short form through the real worker runs in tests/integration)."""

from __future__ import annotations

from typing import Any

import pytest

from d2 import errors
from d2.bench import (
    address_corpus_national,
    geocode_quality_national,
)
from d2.importers import ibge

_M = "5002704"  # Campo Grande (MS)
_B = "5002704001"


def _resposta(codigo: str | None, metodo: str = "inferencia") -> dict[str, Any]:
    if codigo is None:
        return {"unidade_civica_id": None}
    nivel = {2: 5, 7: 4, 10: 2}[len(codigo)]
    return {"unidade_civica_id": ibge.uc_id(nivel, codigo), "uc_codigo": codigo,
            "metodo_resolucao": metodo}  # fmt: skip


@pytest.mark.parametrize(
    ("esperado", "resposta", "municipio", "bairro", "nivel"),
    [
        ({"municipio": _M, "bairro": None}, _resposta(_M), "right", None, "as_expected"),
        ({"municipio": _M, "bairro": None}, _resposta(_B), "right", None, "over_confident"),
        ({"municipio": _M, "bairro": _B}, _resposta(_M), "right", "missed", "under_confident"),
        ({"municipio": _M, "bairro": _B}, _resposta("5002704002"), "right", "wrong",
         "as_expected"),
        ({"municipio": _M, "bairro": None}, _resposta("5003702"), "wrong", None, "as_expected"),
        ({"municipio": _M, "bairro": None}, _resposta("50"), "missed", None, "as_expected"),
        ({"municipio": _M, "bairro": None}, _resposta(None), "missed", None, "as_expected"),
        ({"municipio": None, "bairro": None}, _resposta(None), "right", None, "as_expected"),
        ({"municipio": None, "bairro": None}, _resposta(_M), "unexpected", None,
         "as_expected"),
    ],
    ids=["right", "finer", "coarser", "other-bairro", "elsewhere", "uf-only", "nothing",
         "homonym-left", "homonym-guessed"],
)  # fmt: skip
def test_national_verdict__each_kind_of_answer(
    esperado: dict[str, Any], resposta: dict[str, Any], municipio: str, bairro: str | None,
    nivel: str,
) -> None:  # fmt: skip
    v = geocode_quality_national.julgar(esperado, resposta)

    assert (v.municipio, v.bairro, v.nivel) == (municipio, bairro, nivel)


def test_national_score__a_wrong_municipio_at_media_breaks_the_targets() -> None:
    placar = geocode_quality_national.Placar()
    placar.somar(geocode_quality_national.julgar({"municipio": _M, "bairro": None},
                                                 _resposta("5003702", "endereco")))  # fmt: skip

    assert placar.errados_na_media == 1 and placar.municipio["wrong"] == 1
    assert placar.linha()["wrong_at_media"] == 1


def test_national_selection__by_uf_form_and_rows() -> None:
    _, casos = address_corpus_national.ler()
    selecao = geocode_quality_national.Selecao(("RJ",), ("cep_sozinho",), 3)

    escolhidos = selecao.escolher(casos)

    assert [c["id"] for c in escolhidos] == [f"nacional-rj-0{i}-cep_sozinho" for i in (1, 2, 3)]
    with pytest.raises(errors.InvalidInput, match="unknown form"):
        geocode_quality_national.Selecao(formas=("tudo",)).escolher(casos)
