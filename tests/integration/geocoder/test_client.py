"""The address path without a Nominatim at all (none configured, or D2_NOMINATIM=off): it
still reads places and CEPs and answers at the bairro or município, while a Nominatim
that is configured but down still makes addresses wait; and a GPS no-fix value (0, 0)
beside an address: the text decides."""

from __future__ import annotations

import csv
import dataclasses
import threading
from pathlib import Path

import psycopg
import pytest
from psycopg.rows import dict_row

from d2 import config
from d2.geocoder.nominatim import client
from d2.importers import cep, ibge
from d2.ops import status
from d2.worker import loop
from tests.support import Conn, drenar, esperar, invariants, publicar_endereco, resposta_endereco
from tests.support.address_fixtures import escrever_ceps, escrever_territorio


def _url() -> str:
    """The database the test's settings name (its worker drains there)."""
    url = config.load().database_url
    assert url is not None
    return url


CG, DOURADOS = "5002704", "5003702"


@pytest.fixture
def lugares_url(db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """This test's database with the MS places and their CEPs, no Nominatim named (the
    session's cluster has no database `nominatim`), the cursor seeded."""
    ibge.run_import(db_url, directory=escrever_territorio(tmp_path / "ibge"), progress=False)
    dump = escrever_ceps(tmp_path / "ceps")
    with (dump / "ms.cepaberto_parte_1.csv").open("a", newline="", encoding="utf-8") as f:
        # A range shared by two municípios (79003), and one whose only CEP is in a
        # locality the territory lacks (79990).
        csv.writer(f).writerows(
            [
                ["79003100", "Rua Um", "", "Centro", "1", "50"],
                ["79003200", "Rua Dois", "", "Centro", "2", "50"],
                ["79990100", "Rua Tres", "", "", "3", "50"],
            ]
        )
    with (dump / "cities.csv").open("a", newline="", encoding="utf-8") as f:
        csv.writer(f).writerow(["3", "Lugar Nenhum", "50"])
    cep.importar(db_url, dump)
    for nome in ("D2_NOMINATIM_URL", "D2_NOMINATIM_DSN", "D2_NOMINATIM"):
        monkeypatch.delenv(nome, raising=False)
    monkeypatch.setenv("D2_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("D2_GEOCODER_TIMEOUT", "1")
    loop.Worker(config.load(), url=db_url).executar(drain=True)  # boot: seeds the cursor
    return db_url


SEM_NOMINATIM = [
    # (entidades_extraidas, CD_MUN, UC named, passo, discard reason)
    (
        {"endereco": "Rua Antônio Maria Coelho, 1500, Centro, Campo Grande - MS"},
        CG,
        "Centro",
        "bairro",
        None,
    ),
    (
        {"endereco": "Rua Hayel Bon Faker 2000, Dourados/MS"},
        DOURADOS,
        "Dourados",
        "municipio",
        None,
    ),
    ({"cep": "79002-220"}, CG, "Centro", "bairro", None),  # the CEP's bairro
    ({"endereco": "1500, 79800-000"}, DOURADOS, "Dourados", "municipio", None),
    ({"endereco": "Jardim Caramuru, Dourados"}, DOURADOS, "Jardim Caramuru", "bairro", None),
    ({"endereco": "Hospital Regional, Campo Grande - MS"}, CG, "Campo Grande", "municipio", None),
    # What needs a search to be told apart stays unanswered, never guessed.
    ({"endereco": "Rua Hayel Bon Faker 2000, Campo Grande"}, None, None, None, "ambiguo"),
    ({"endereco": "Centro"}, None, None, None, "ambiguo"),
]


@pytest.mark.parametrize("modo", ["auto", "off"])
def test_without_nominatim__addresses_answered_at_bairro_or_municipio(
    lugares_url: str, modo: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """None configured (auto: no database `nominatim` on the server) or switched off
    (D2_NOMINATIM=off, even beside a DSN): no search, nothing parked, one terminal state
    each, the answers inferencia/baixa."""
    if modo == "off":
        monkeypatch.setenv("D2_NOMINATIM", "off")
        monkeypatch.setenv("D2_NOMINATIM_DSN", "postgresql://nobody@/nowhere?host=/nonexistent")
    with psycopg.connect(lugares_url, autocommit=True, row_factory=dict_row) as conn:
        ids = [publicar_endereco(conn, entidades) for entidades, *_ in SEM_NOMINATIM]
        drenar(_url())
        for event_id, (entidades, municipio, uc, passo, motivo) in zip(
            ids, SEM_NOMINATIM, strict=True
        ):
            r = resposta_endereco(conn, event_id)
            assert (r["municipio"], r["uc_nome"], r["passo"], r["motivo"]) == (
                municipio,
                uc,
                passo,
                motivo,
            ), entidades
            assert (r["consultas"], r["parada"]) == (0, False)
            if municipio is not None:
                assert (r["metodo_resolucao"], r["confianca_geo"]) == ("inferencia", "baixa")
        geo = status.status(conn, config.load())["geocodificador"]
        assert geo["modo"] == "nenhum"
        assert ("D2_NOMINATIM=off" in geo["onde"]) is (modo == "off")
        texto = status.formatar_status(status.status(conn, config.load()))
        assert "geocoder  no Nominatim" in texto
        invariants.verificar(conn)


FAIXAS = [
    # (CEP CEP Aberto lacks, CD_MUN, UC named, precisao): its 5-digit range decides.
    ("79002-999", CG, "Centro", "bairro"),  # every CEP of 79002 in CG's Centro
    ("79806-123", DOURADOS, "Jardim Caramuru", "bairro"),
    ("79800-500", DOURADOS, "Dourados", "municipio"),  # its one CEP names no bairro
    ("79003-300", None, None, None),  # the range spans two municípios: no guess
    ("79990-200", None, None, None),  # its CEPs lie in a locality not linked
    ("79555-000", None, None, None),  # no CEP known in the range
]


def test_without_nominatim__a_cep_missing_is_read_by_its_range(lugares_url: str) -> None:
    """A CEP CEP Aberto lacks whose 5-digit range lies wholly in one município (or
    bairro): that place, at passo cep_faixa; the text's own place wins over it."""
    with psycopg.connect(lugares_url, autocommit=True, row_factory=dict_row) as conn:
        ids = [publicar_endereco(conn, {"cep": c}) for c, *_ in FAIXAS]
        no_texto = publicar_endereco(
            conn, {"endereco": "Rua Sem Nome, 10, Centro, Campo Grande, 79002-999"}
        )
        contradiz = publicar_endereco(conn, {"endereco": "Dourados - MS, 79002-999"})
        drenar(_url())
        for event_id, (c, municipio, uc, precisao) in zip(ids, FAIXAS, strict=True):
            r = resposta_endereco(conn, event_id)
            assert (r["municipio"], r["uc_nome"], r["precisao"]) == (municipio, uc, precisao), c
            assert r["passo"] == ("cep_faixa" if municipio else None), c
            assert r["parada"] is False
        # The text named the place: its own step answers (the range agrees with it).
        r = resposta_endereco(conn, no_texto)
        assert (r["uc_nome"], r["passo"]) == ("Centro", "bairro")
        # A range of another município than the one named: set aside, the text wins.
        r = resposta_endereco(conn, contradiz)
        assert (r["uc_nome"], r["passo"]) == ("Dourados", "municipio")
        entendido = conn.execute(
            "SELECT endereco_entendido FROM d2.geocodificacoes WHERE event_id = %s", [contradiz]
        ).fetchone()
        assert entendido is not None and entendido["endereco_entendido"]["cep_contraditorio"]
        invariants.verificar(conn)


def test_without_nominatim__a_configured_one_that_is_down_still_parks(
    lugares_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Nominatim named (D2_NOMINATIM_DSN) but away: the street waits for it rather than
    take a coarser answer; a place alone needs no search and is answered."""
    monkeypatch.setenv("D2_NOMINATIM_DSN", "postgresql://nobody@/nowhere?host=/nonexistent")
    with psycopg.connect(lugares_url, autocommit=True, row_factory=dict_row) as conn:
        rua = publicar_endereco(
            conn, {"endereco": "Rua Antônio Maria Coelho, 1500, Campo Grande - MS"}
        )
        lugar = publicar_endereco(conn, {"endereco": "Jardim Caramuru, Dourados"})
        drenar(_url())
        r = resposta_endereco(conn, rua)
        assert (r["parada"], r["metodo_resolucao"]) == (True, None)
        assert resposta_endereco(conn, lugar)["uc_nome"] == "Jardim Caramuru"
        assert status.status(conn, config.load())["geocodificador"]["modo"] == "local"
        invariants.verificar(conn)


def test_without_nominatim__the_default_database_once_imported_is_expected(
    lugares_url: str,
) -> None:
    """None named, no database `nominatim`, but `d2 nominatim import` built one here:
    it is being rebuilt or was dropped, so addresses wait for it."""
    with psycopg.connect(lugares_url, autocommit=True, row_factory=dict_row) as conn:
        conn.execute(
            "INSERT INTO d2.nominatim_importacoes (arquivo, bytes, duracao_s) "
            "VALUES ('brasil.osm.pbf', 1, 1)"
        )
        rua = publicar_endereco(
            conn, {"endereco": "Rua Antônio Maria Coelho, 1500, Campo Grande - MS"}
        )
        drenar(_url())
        assert resposta_endereco(conn, rua)["parada"] is True
        assert status.status(conn, config.load())["geocodificador"]["modo"] == "local"


def test_without_nominatim__a_worker_started_before_the_first_import_takes_it(
    lugares_url: str,
) -> None:
    """A worker that started with none (none named, no database `nominatim`) and then sees
    `d2 nominatim import` recorded asks that Nominatim from its next round, without a
    restart: a street it answered at the bairro before now waits for the database (away
    here, as while an import is being rebuilt)."""
    w = loop.Worker(config.load(), url=lugares_url)
    fio = threading.Thread(target=w.executar, daemon=True)

    rua = {"endereco": "Rua Antônio Maria Coelho, 1500, Centro, Campo Grande - MS"}
    with psycopg.connect(lugares_url, autocommit=True, row_factory=dict_row) as conn:
        fio.start()
        try:
            antes = publicar_endereco(conn, rua)
            assert esperar(lambda: resposta_endereco(conn, antes)["metodo_resolucao"] is not None)
            assert resposta_endereco(conn, antes)["uc_nome"] == "Centro"
            assert w.estado.geocodificador == client.NENHUM
            conn.execute(
                "INSERT INTO d2.nominatim_importacoes (arquivo, bytes, duracao_s) "
                "VALUES ('brasil.osm.pbf', 1, 1)"
            )
            depois = publicar_endereco(conn, rua)
            assert esperar(lambda: resposta_endereco(conn, depois)["parada"])
            assert resposta_endereco(conn, depois)["metodo_resolucao"] is None
            assert w.estado.geocodificador == client.LOCAL
        finally:
            w.parar.set()
            fio.join(30)
        assert not fio.is_alive()


def test_without_nominatim__gps_zero_zero_with_an_address_the_text_decides(
    lugares_url: str,
) -> None:
    """(0, 0), the no-fix value of many phones: beside an address it is no position (the
    address answers); alone it is a point outside every polygon (the review queue)."""
    zero = {"lat": 0, "lng": 0}
    with psycopg.connect(lugares_url, autocommit=True, row_factory=dict_row) as conn:
        com_texto = publicar_endereco(conn, {"endereco": "Jardim Caramuru, Dourados - MS"}, zero)
        sem_texto = publicar_endereco(conn, None, zero)
        longe = publicar_endereco(conn, {"cep": "79002220"}, {"lat": 48.85, "lng": 2.35})
        dentro = publicar_endereco(
            conn, {"endereco": "Jardim Caramuru, Dourados"}, {"lat": -20.45, "lng": -54.62}
        )
        drenar(_url())
        r = resposta_endereco(conn, com_texto)
        assert (r["uc_nome"], r["metodo_resolucao"], r["passo"]) == (
            "Jardim Caramuru",
            "inferencia",
            "bairro",
        )
        s = resposta_endereco(conn, sem_texto)
        assert (s["metodo_resolucao"], s["em_revisao"]) == (None, True)
        assert resposta_endereco(conn, longe)["uc_nome"] == "Centro"
        # A real point wins over the text, as always.
        d = resposta_endereco(conn, dentro)
        assert (d["metodo_resolucao"], d["municipio"], d["passo"]) == ("gps", CG, None)
        invariants.verificar(conn)


def test_without_nominatim__status_names_the_server_without_its_credentials(conn: Conn) -> None:
    settings = dataclasses.replace(
        config.load(), nominatim_url="https://d2:segredo@geo.interno:8443/nominatim/"
    )
    escolha = client.escolher(settings, conn)
    assert escolha == client.Escolha("http", "https://geo.interno:8443/nominatim")
    desligado = dataclasses.replace(settings, nominatim_ativo=False)
    assert client.escolher(desligado, conn).modo == "nenhum"
    sem_geocoder = dataclasses.replace(settings, geocoder_ativo=False)
    assert status.geocodificador(sem_geocoder, conn)["modo"] == "desligado"
