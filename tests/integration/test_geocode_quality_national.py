"""The short form of `d2 bench geocode-quality --corpus national`: the first rows of a few
UFs, in the six forms, through the real worker against those UFs' territory and CEPs,
every text judged; and the verdicts themselves."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from d2 import errors
from d2.bench import (
    address_corpus_national,
    common,
    geocode_quality_national,
    geocode_quality_national_run,
)
from d2.importers import ibge

if TYPE_CHECKING:
    from tests.conftest import Server

# MS for its bairro UCs; the others where the issue found most misses. Only their
# territory and CEPs are loaded, so a name shared with another UF's município is easier
# here than in the full run.
UFS = ("AC", "AL", "MS", "RJ")
LINHAS = 2  # rows of each UF, each in the six forms

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


# --- the short form, through the real worker ---------------------------------------------------


@pytest.fixture(scope="module")
def avaliacao(pg_server: Server) -> Iterator[geocode_quality_national.Avaliacao]:
    shared = Path(__file__).resolve().parents[2].parent / "shared" / "data"
    if not (shared / "br_municipios.geojson.gz").exists():
        pytest.skip(f"shared data not found at {shared}")
    if shutil.which("osm2pgsql") is None:
        pytest.skip("osm2pgsql is not installed (apt-get install osm2pgsql; scripts/setup.sh)")
    if not (Path(sys.executable).parent / "nominatim").exists() and not shutil.which("nominatim"):
        pytest.skip("Nominatim is not installed (pip install nominatim-db nominatim-api)")
    _, casos = address_corpus_national.ler()
    escolhidos = geocode_quality_national.Selecao(UFS, (), LINHAS).escolher(casos)
    srv = common.Server(pg_server.url("postgres"))
    with geocode_quality_national_run.ambiente(srv, shared, UFS) as amb:
        yield geocode_quality_national.avaliar(amb, escolhidos)


@pytest.mark.shared_data
@pytest.mark.timeout(600)
def test_geocode_quality_national__every_text_of_the_short_form_judged(
    avaliacao: geocode_quality_national.Avaliacao,
) -> None:
    n = len(UFS) * LINHAS * len(address_corpus_national.FORMS)
    assert len(avaliacao.casos) == n
    assert avaliacao.total.casos == n == sum(avaliacao.total.municipio.values())
    assert all(r.get("processado") for r in avaliacao.execucao.respostas.values())
    assert list(avaliacao.por_forma) == list(address_corpus_national.FORMS)
    assert set(avaliacao.por_uf) == set(UFS)
    # A CEP alone is settled by d2.ceps: the import linked each CEP's locality to the
    # município the generator linked it to, by the same rule.
    assert avaliacao.por_forma["cep_sozinho"].municipio["right"] == len(UFS) * LINHAS
    # The first rule of the address path: never a wrong município at endereco/media.
    assert avaliacao.total.errados_na_media == 0
    linhas = list(geocode_quality_national.relatorio(avaliacao))
    formas = [linha["form"] for linha in linhas if "form" in linha]
    assert formas == [*address_corpus_national.FORMS, "total"]
    falhas = [linha for linha in linhas if "miss" in linha]
    assert len(falhas) == sum(
        1 for v in avaliacao.vereditos.values()
        if v.municipio != "right" or v.bairro not in (None, "right") or v.nivel != "as_expected"
    )  # fmt: skip
    assert all(f["text"] and ("motivo" in f and "passo" in f) for f in falhas)
