"""The short form of `d2 bench geocode-quality --corpus national`: the first rows of a few
UFs, in the six forms, through the real worker against those UFs' territory and CEPs,
every text judged (the verdicts themselves: tests/unit/test_geocode_quality_national.py)."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from d2.bench import (
    address_corpus_national,
    common,
    geocode_quality_national,
    geocode_quality_national_run,
)

if TYPE_CHECKING:
    from tests.conftest import Server

# MS for its bairro UCs; the others where addresses from other states were most often
# missed. Only their territory and CEPs are loaded, so a name shared with another UF's
# município is easier here than in the full run.
UFS = ("AC", "AL", "MS", "RJ")
LINHAS = 2  # rows of each UF, each in the six forms


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
