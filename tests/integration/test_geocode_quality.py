"""The short form of `d2 bench geocode-quality`: the address corpus runs through the
real worker's address path and through the baseline (Nominatim alone), every case judged;
the address path meets its targets on it (docs/notes/geocoding-quality.md)."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from d2.bench import common, geocode_quality, geocode_quality_run
from d2.importers import ibge
from tests.support import Conn
from tests.support.address_fixtures import CORPUS_CATEGORIAS as CATEGORIAS
from tests.support.address_fixtures import CORPUS_ESPERADO as _ESPERADO
from tests.support.address_fixtures import CORPUS_UC as _UC

if TYPE_CHECKING:
    from tests.conftest import Server

POR_CATEGORIA = 3  # the short form: the first cases of each category


# --- the short form, through the real worker ---------------------------------------------------


@pytest.fixture(scope="module")
def avaliacao(pg_server: Server) -> Iterator[geocode_quality.Avaliacao]:
    shared = Path(__file__).resolve().parents[2].parent / "shared" / "data"
    if not (shared / "br_municipios.geojson.gz").exists():
        pytest.skip(f"shared data not found at {shared}")
    if shutil.which("osm2pgsql") is None:
        pytest.skip("osm2pgsql is not installed (apt-get install osm2pgsql; scripts/setup.sh)")
    if not (Path(sys.executable).parent / "nominatim").exists() and not shutil.which("nominatim"):
        pytest.skip("Nominatim is not installed (pip install nominatim-db nominatim-api)")
    srv = common.Server(pg_server.url("postgres"))
    with geocode_quality_run.ambiente(srv, shared) as amb:
        yield geocode_quality.avaliar(amb, geocode_quality.amostra(amb.corpus.casos, POR_CATEGORIA))


@pytest.mark.shared_data
@pytest.mark.timeout(900)
def test_geocode_quality__both_runs_judge_every_case_of_the_short_form(
    avaliacao: geocode_quality.Avaliacao,
) -> None:
    n = len(avaliacao.casos)
    assert n == POR_CATEGORIA * len(CATEGORIAS)
    for valor in geocode_quality.CAMINHOS:
        placar = avaliacao.total[valor]
        assert placar.casos == n and sum(placar.vereditos.values()) == n
        assert placar.nao_terminados == 0  # every event reached a terminal state
    # The baseline answers GPS as the worker does and nothing where the text names no
    # place: the corpus's points, the Nominatim built from its streets and the verdicts
    # agree, so what it misses elsewhere is the reading, not the environment.
    base = geocode_quality_run.NOMINATIM
    por_categoria = avaliacao.por_categoria
    for categoria in ("gps_com_texto", "sem_sentido"):
        assert por_categoria[categoria][base].vereditos["right"] == POR_CATEGORIA, categoria
    assert avaliacao.execucoes[base].gravacao.buscas, "the baseline asked Nominatim"
    # and its answers are judged as the worker's are: complete addresses, which Nominatim
    # finds as free text, come out right.
    assert por_categoria["completo"][base].vereditos["right"] > 0
    linhas = list(geocode_quality.relatorio(avaliacao))
    total = next(linha for linha in linhas if linha.get("category") == "total")
    assert total[base]["right"] + total[base]["missed"] <= n
    assert {linha["target"] for linha in linhas if "target" in linha} == set(
        avaliacao.total[base].alvos()
    )


@pytest.mark.shared_data
@pytest.mark.timeout(900)
def test_geocode_quality__the_ladder_meets_the_targets_on_the_short_form(
    avaliacao: geocode_quality.Avaliacao,
) -> None:
    alvos = avaliacao.total[geocode_quality_run.LADDER].alvos()

    assert alvos == dict.fromkeys(alvos, True)


# --- reading the answers: d2.v_geocodificacoes when it is there, d2.resolucoes_geo else ------


def _resolucao(conn: Conn, caso: dict[str, Any]) -> None:
    """A stored answer for the case's event, as the worker writes one."""
    conn.execute(
        """
        INSERT INTO d2.resolucoes_geo (id, demanda_id, unidade_civica_id, nivel_minimo_resolvido,
            cadeia_ucs, metodo_resolucao, confianca_geo, coordenadas_lat, coordenadas_lng,
            event_id, correlacao_id)
        VALUES (gen_random_uuid(), gen_random_uuid(), %(uc)s, 2, ARRAY[%(uc)s], 'endereco',
                'media', -20.46, -54.61, %(event_id)s, gen_random_uuid())
        """,
        {"uc": ibge.uc_id(2, _UC), "event_id": geocode_quality_run.event_id(caso)},
    )


_CASO = {"id": "completo-999", "payload": {"entidades_extraidas": {"endereco": "Rua X, 1"}}}


def test_quality_answers__from_the_resolutions_when_the_view_is_missing(
    db_url: str, conn: Conn
) -> None:
    _resolucao(conn, _CASO)
    conn.execute("DROP VIEW d2.v_geocodificacoes")  # as before the ladder's migration

    respostas, com_passos = geocode_quality_run.ler_respostas(db_url, [_CASO])

    assert not com_passos
    assert respostas["completo-999"]["unidade_civica_id"] == ibge.uc_id(2, _UC)
    assert respostas["completo-999"]["metodo_resolucao"] == "endereco"
    assert "passo" not in respostas["completo-999"]


def test_quality_answers__precision_step_and_searches_from_the_view(
    db_url: str, conn: Conn
) -> None:
    _resolucao(conn, _CASO)
    # What the geocoding stage writes beside the resolution (d2.v_geocodificacoes joins it).
    conn.execute(
        """
        INSERT INTO d2.geocodificacoes (event_id, demanda_id, precisao, passo,
            endereco_entendido, consultas)
        SELECT event_id, demanda_id, 'numero', 'estruturada_numero', '{}'::jsonb, 2
        FROM d2.resolucoes_geo
        """
    )

    respostas, com_passos = geocode_quality_run.ler_respostas(db_url, [_CASO])

    assert com_passos
    resposta = respostas["completo-999"]
    assert (resposta["precisao"], resposta["passo"], resposta["consultas"]) == (
        "numero", "estruturada_numero", 2,
    )  # fmt: skip
    execucao = geocode_quality_run.Execucao(
        geocode_quality_run.LADDER, respostas, geocode_quality_run.Gravacao(), 1, 1, True
    )
    assert geocode_quality.buscas_por_endereco(execucao)["distribution"] == {2: 1}
    placar = geocode_quality.Placar()
    placar.somar({"esperado": _ESPERADO}, resposta)
    assert placar.linha(True)["precision_as_expected"] == 1
