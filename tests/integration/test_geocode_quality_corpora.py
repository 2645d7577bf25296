"""The short form of `d2 bench geocode-quality --corpus users`: a few texts of the citizen
corpus, of its texts that name no place and of the national corpus drawn per município,
read by the real worker against some UFs' territory and CEPs with the texts' own rows held
out of d2.cep_nomes, and by the previous commit's worker in a process beside it."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from d2.bench import common, geocode_quality_corpora, geocode_quality_national_run, previous

if TYPE_CHECKING:
    from tests.conftest import Server

UFS = ("AC", "MS")


@pytest.fixture(scope="module")
def ambiente(pg_server: Server) -> Iterator[geocode_quality_national_run.Ambiente]:
    shared = Path(__file__).resolve().parents[2].parent / "shared" / "data"
    if not (shared / "br_municipios.geojson.gz").exists():
        pytest.skip(f"shared data not found at {shared}")
    srv = common.Server(pg_server.url("postgres"))
    with geocode_quality_national_run.ambiente(srv, shared, UFS) as amb:
        yield amb


def _casos(rapido: bool = True) -> dict[str, list[dict[str, object]]]:
    escolha = geocode_quality_corpora.Escolha(partes=("seen",), anterior=None, rapido=rapido)
    corpora = geocode_quality_corpora.casos(escolha)
    return {
        "citizen": [c for c in corpora["citizen"] if c["uf"] in UFS],
        "no_place": corpora["no_place"][:10],
        "municipios": [c for c in corpora["municipios"] if c["uf"] in UFS],
    }


@pytest.mark.shared_data
@pytest.mark.timeout(600)
def test_users_corpora__every_text_read_with_its_rows_held_out_and_judged(
    ambiente: geocode_quality_national_run.Ambiente,
) -> None:
    for nome, lista in _casos().items():
        assert lista, nome
        leitura = geocode_quality_corpora.ler(ambiente, lista)
        assert all(r.get("processado") for r in leitura.respostas.values()), nome
        por_parte, _, vereditos = geocode_quality_corpora.placares(lista, leitura)
        assert sum(p.casos for p in por_parte.values()) == len(lista) == len(vereditos)
        # The first rule: never a wrong município at endereco/media; and these texts
        # that name no place are given none.
        assert all(p.errados_na_media == 0 for p in por_parte.values()), nome
        if nome == "no_place":
            assert {v.municipio for v in vereditos.values()} == {"right"}
        linhas = list(geocode_quality_corpora.relatorio(nome, lista, [leitura], falhas=True))
        assert any(linha.get("target") for linha in linhas)
        assert all(linha["text"] for linha in linhas if "miss" in linha)


@pytest.mark.shared_data
def test_users_corpora__a_texts_own_rows_are_held_out_of_the_gazetteer(
    ambiente: geocode_quality_national_run.Ambiente,
) -> None:
    # The whole seen half: the quick sample of these two UFs may draw no named row.
    lista = [c for c in _casos(rapido=False)["municipios"] if (c["retirar"] or {}).get("nomes")]
    assert lista, "no drawn row of AC or MS names a street or bairro"
    with common.scratch_db(ambiente.srv, "held", template=ambiente.template) as url:
        with common.connect(url) as conn:
            antes = conn.execute("SELECT count(*) AS n FROM d2.cep_nomes").fetchone()
        retirados = geocode_quality_corpora.retirar(url, lista)
        with common.connect(url) as conn:
            depois = conn.execute("SELECT count(*) AS n FROM d2.cep_nomes").fetchone()
    assert antes is not None and depois is not None
    assert retirados > 0 and antes["n"] - depois["n"] == retirados


@pytest.mark.shared_data
@pytest.mark.timeout(600)
def test_users_corpora__the_previous_commits_worker_reads_the_same_texts(
    ambiente: geocode_quality_national_run.Ambiente,
) -> None:
    conhecido = subprocess.run(
        ["git", "-C", str(previous.RAIZ), "cat-file", "-e", geocode_quality_corpora.ANTERIOR],
        capture_output=True,
        check=False,
    )
    if not previous.disponivel() or conhecido.returncode != 0:
        pytest.skip("not a git checkout that holds the previous commit")
    lista = _casos()["no_place"][:3]
    with previous.worktree(geocode_quality_corpora.ANTERIOR) as arvore:
        assert (arvore / "d2" / "geocoder").is_dir()
        leitura = geocode_quality_corpora.ler(ambiente, lista, arvore)
    assert leitura.quem == "previous" and set(leitura.respostas) == {c["id"] for c in lista}
    assert all(r.get("processado") for r in leitura.respostas.values())
