"""Operator commands against the real database: status, the review queue, re-georeferencing."""

from __future__ import annotations

import datetime
import threading
import time
import uuid
from typing import Any

import psycopg
import pytest

from d2 import config, errors
from d2.eventlog import bus, registry
from d2.handler import handler
from d2.handler.outputs import TIPO_SAIDA, payload_saida
from d2.ops import regeo, revisoes, status
from d2.worker import loop
from tests.support import Conn, drenar, semear_cursor
from tests.support.events import inserir_evento, payload_normalizada, saidas
from tests.support.territorio import Territorio, inserir_uc, poligono, quadrado, sincronizar_mirror

FORA = (-27.0, -20.0)  # (lat, lng): east of Brasil [-50,-30]..[-30,-10], in no polygon
LONGE = (-5.0, -25.0)  # also outside everything, and outside the polygon added later


def publicar(conn: Conn, lat: Any, lng: Any, **kw: Any) -> tuple[uuid.UUID, str]:
    payload = payload_normalizada(lat, lng)
    return inserir_evento(conn, payload, **kw), payload["demanda_id"]


def resolucao(conn: Conn, demanda_id: str) -> dict[str, Any]:
    row = conn.execute(
        "SELECT * FROM d2.resolucoes_geo WHERE demanda_id = %s", [demanda_id]
    ).fetchone()
    assert row is not None
    return row


def pendentes(conn: Conn) -> set[str]:
    rows = conn.execute("SELECT demanda_id FROM d2.revisoes_geo_pendentes").fetchall()
    return {str(r["demanda_id"]) for r in rows}


def cadeia(*ucs: uuid.UUID) -> list[str]:
    return [str(u) for u in ucs]


# --- status ----------------------------------------------------------------------------------


def test_status__counts_the_reviews_closed_without_a_polygon(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    semear_cursor(conn)
    publicar(conn, -30.0004, -42.0)  # ~44 m south of B: the near rule answers it
    _, atribuida = publicar(conn, *FORA)
    _, descartada = publicar(conn, *LONGE)
    drenar(db_url, settings)
    revisoes.atribuir(conn, settings, uuid.UUID(atribuida), territorio.mun_b, por="maria")
    revisoes.descartar(conn, settings, uuid.UUID(descartada), motivo="sem posição", por="joão")

    d = status.status(conn, settings)

    fechadas = d["revisoes_tratadas"]
    assert (fechadas["proximidade"], fechadas["operador"], fechadas["descarte"]) == (1, 1, 1)
    assert fechadas["distancia_m"] == 100.0 and fechadas["ultima_em"] is not None
    # A discarded review is no discard for its coordinates, nor a pending one.
    assert d["descartes"]["total"] == 0 and d["revisoes_pendentes"]["total"] == 0
    assert (
        "closed    1 answered by the near rule (one município within 100 m), "
        "1 by an operator, 1 discarded" in status.formatar_status(d)
    )


def test_status__counts_every_outcome_and_the_mirror(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    semear_cursor(conn)
    publicar(conn, -27.0, -49.0)  # bairro A1
    publicar(conn, -27.0, -48.0)  # bairro A1
    publicar(conn, -27.0, -42.0)  # município B
    publicar(conn, *FORA)  # review
    inserir_evento(conn, payload_normalizada(coordenadas_validadas=None))  # no coordinates
    inserir_evento(conn, payload_normalizada(95.0, -49.0))  # invalid
    inserir_evento(conn, payload_normalizada(demanda_id="nope"))  # dead letter
    drenar(db_url, settings)

    d = status.status(conn)

    assert d["resolucoes"] == {"total": 3, "por_nivel": {"2": 2, "4": 1}}
    assert d["descartes"] == {"total": 2, "sem_coordenadas": 1, "coordenadas_invalidas": 1}
    assert d["revisoes_pendentes"]["total"] == 1
    assert d["dead_letters"]["pendente"] == 1
    assert d["cursor"]["eventos_pendentes"] == 0
    assert d["cursor"]["posicao"] == d["cursor"]["maior_sequencia"]
    assert d["eventos_processados"] == 6
    assert d["ultimo_evento"]["processado_em"] is not None
    assert d["ultimo_evento"]["publicado_em"] is not None
    assert d["mirror"]["uc_polygons"] == 7 and d["mirror"]["mirror_uc"] == 7
    assert d["mirror"]["rejeitadas"] == 0 and d["mirror"]["versao"] > 0
    assert {"nivel": 2, "fonte": "teste", "quantidade": 2} in d["mirror"]["ucs"]
    texto = status.formatar_status(d)
    assert "resolved  3  (bairro 2, município 1)" in texto
    assert "review    1 pending" in texto
    assert "dead      1 pending" in texto
    assert "7 of 7 polygons mirrored" in texto


def test_status__before_the_first_boot(conn: Conn) -> None:
    d = status.status(conn)
    assert d["cursor"]["posicao"] is None
    assert d["resolucoes"]["total"] == 0
    assert "not created yet" in status.formatar_status(d)


# --- the review queue ------------------------------------------------------------------------


def test_listar_revisoes__oldest_first_with_the_nearest_uc(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    semear_cursor(conn)
    _, primeira = publicar(conn, *FORA)
    _, segunda = publicar(conn, *LONGE)
    drenar(db_url, settings)
    linhas = revisoes.listar(conn, 10)
    assert [str(r["demanda_id"]) for r in linhas] == [primeira, segunda]
    assert linhas[0]["uc_proxima_nome"] == "Município B"
    assert linhas[0]["uc_proxima_km"] > 0
    assert revisoes.listar(conn, 1)[0]["demanda_id"] == linhas[0]["demanda_id"]
    assert "nearest Município B (município)" in revisoes.formatar(linhas)


def test_reprocessar_revisoes__new_polygon_resolves_and_publishes_once(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    semear_cursor(conn)
    correlacao = uuid.uuid4()
    evento_a, demanda_a = publicar(conn, *FORA, correlacao_id=correlacao)
    evento_b, demanda_b = publicar(conn, -27.5, -20.5)  # no correlacao_id on the event
    _, demanda_c = publicar(conn, *LONGE)
    drenar(db_url, settings)
    assert pendentes(conn) == {demanda_a, demanda_b, demanda_c}
    antes = len(saidas(conn))

    # A new municipality east of the UF covers the first two points.
    mun_c = inserir_uc(
        conn, 4, "Município C", poligono(quadrado(-22, -29, -18, -25)), territorio.uf
    )
    relatorio = revisoes.reprocessar(conn, settings, batch=2)

    assert relatorio["examinadas"] == 3
    assert relatorio["resolvidas"] == 2 and relatorio["continuam_pendentes"] == 1
    assert relatorio["por_nivel"] == {"4": 2}
    assert pendentes(conn) == {demanda_c}
    a, b = resolucao(conn, demanda_a), resolucao(conn, demanda_b)
    assert (a["event_id"], a["correlacao_id"]) == (evento_a, correlacao)
    assert (b["event_id"], str(b["correlacao_id"])) == (evento_b, demanda_b)
    for r in (a, b):
        assert r["unidade_civica_id"] == mun_c and r["nivel_minimo_resolvido"] == 4
        assert r["metodo_resolucao"] == "gps" and r["confianca_geo"] == "alta"
        assert r["cadeia_ucs"] == [mun_c, territorio.uf, territorio.regiao, territorio.brasil]
    novas = saidas(conn)[antes:]
    assert {o["payload"]["demanda_id"]: o["correlacao_id"] for o in novas} == {
        demanda_a: correlacao,
        demanda_b: uuid.UUID(demanda_b),
    }
    for out in novas:
        assert out["origem"] == handler.ORIGEM
        stored = resolucao(conn, out["payload"]["demanda_id"])
        assert out["payload"] == payload_saida(stored)
        registry.validar(TIPO_SAIDA, out["payload"])

    # Idempotent: a second run finds only the one that still has no polygon.
    again = revisoes.reprocessar(conn, settings)
    assert again["resolvidas"] == 0 and again["continuam_pendentes"] == 1
    assert len(saidas(conn)) == antes + 2


def test_reprocessar_revisoes__skips_rows_another_session_holds(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    semear_cursor(conn)
    _, ocupada = publicar(conn, *FORA)
    _, livre = publicar(conn, -27.5, -20.5)
    drenar(db_url, settings)
    inserir_uc(conn, 4, "Município C", poligono(quadrado(-22, -29, -18, -25)), territorio.uf)

    with psycopg.connect(db_url) as outra:
        outra.execute(
            "SELECT 1 FROM d2.revisoes_geo_pendentes WHERE demanda_id = %s FOR UPDATE", [ocupada]
        )
        relatorio = revisoes.reprocessar(conn, settings)
        assert relatorio["resolvidas"] == 1
        assert pendentes(conn) == {ocupada}
    # The lock is gone: the next run takes it, and nothing is published twice.
    assert revisoes.reprocessar(conn, settings)["resolvidas"] == 1
    assert pendentes(conn) == set()
    demandas = [o["payload"]["demanda_id"] for o in saidas(conn)]
    assert sorted(demandas) == sorted([ocupada, livre])


def test_reprocessar_revisoes__a_failed_publish_leaves_the_chunk_queued(
    conn: Conn,
    db_url: str,
    settings: config.Settings,
    territorio: Territorio,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    semear_cursor(conn)
    _, demanda = publicar(conn, *FORA)
    drenar(db_url, settings)
    inserir_uc(conn, 4, "Município C", poligono(quadrado(-22, -29, -18, -25)), territorio.uf)

    def quebrado(*args: Any, **kw: Any) -> list[uuid.UUID]:
        raise errors.InvalidEvent("registry says no")

    monkeypatch.setattr(bus, "publicar", quebrado)
    with pytest.raises(errors.InvalidEvent):
        revisoes.reprocessar(conn, settings)
    assert pendentes(conn) == {demanda}
    assert conn.execute("SELECT count(*) AS n FROM d2.resolucoes_geo").fetchone() == {"n": 0}
    monkeypatch.undo()
    assert revisoes.reprocessar(conn, settings)["resolvidas"] == 1


# --- re-georeferencing -----------------------------------------------------------------------


@pytest.fixture
def em_municipio_b(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> list[str]:
    """Four demands resolved to Município B (no bairros yet) and one in bairro A1."""
    semear_cursor(conn)
    demandas = [publicar(conn, -27.0, lng)[1] for lng in (-44.0, -43.0, -42.0, -41.0)]
    publicar(conn, -27.0, -49.0)
    drenar(db_url, settings)
    assert {resolucao(conn, d)["nivel_minimo_resolvido"] for d in demandas} == {4}
    return demandas


def historico(conn: Conn) -> list[dict[str, Any]]:
    return conn.execute("SELECT * FROM d2.resolucoes_geo_historico ORDER BY id").fetchall()


def test_regeorreferenciar__dry_run_groups_by_uc_and_writes_nothing(
    conn: Conn, settings: config.Settings, territorio: Territorio, em_municipio_b: list[str]
) -> None:
    # A bairro layer for Município B covering its western half: -45..-42.5.
    b1 = inserir_uc(
        conn, 2, "Bairro B1", poligono(quadrado(-45, -30, -42.5, -25)), territorio.mun_b
    )
    antes = len(saidas(conn))
    relatorio = regeo.regeorreferenciar(conn, settings, uc=None, desde=None, dry_run=True)
    assert relatorio["examinadas"] == 5 and relatorio["alteradas"] == 2
    assert relatorio["mudancas"] == [
        {
            "de": {"unidade_civica_id": str(territorio.mun_b), "nome": "Município B", "nivel": 4},
            "para": {"unidade_civica_id": str(b1), "nome": "Bairro B1", "nivel": 2},
            "quantidade": 2,
        }
    ]
    assert "2  Município B (município) → Bairro B1 (bairro)" in regeo.formatar_regeo(relatorio)
    assert len(saidas(conn)) == antes and historico(conn) == []
    assert {resolucao(conn, d)["nivel_minimo_resolvido"] for d in em_municipio_b} == {4}


def test_regeorreferenciar__rewrites_keeps_history_publishes_and_is_idempotent(
    conn: Conn, settings: config.Settings, territorio: Territorio, em_municipio_b: list[str]
) -> None:
    b1 = inserir_uc(
        conn, 2, "Bairro B1", poligono(quadrado(-45, -30, -42.5, -25)), territorio.mun_b
    )
    antes = len(saidas(conn))
    relatorio = regeo.regeorreferenciar(conn, settings, uc=None, desde=None, dry_run=False, batch=2)
    assert relatorio["alteradas"] == 2 and relatorio["publicadas"] == 2
    assert relatorio["lotes"] == 3

    mudadas = em_municipio_b[:2]  # lng -44 and -43
    for d in mudadas:
        r = resolucao(conn, d)
        assert r["unidade_civica_id"] == b1 and r["nivel_minimo_resolvido"] == 2
        assert r["cadeia_ucs"] == [
            b1,
            territorio.mun_b,
            territorio.uf,
            territorio.regiao,
            territorio.brasil,
        ]
    for d in em_municipio_b[2:]:
        assert resolucao(conn, d)["unidade_civica_id"] == territorio.mun_b

    novas = saidas(conn)[antes:]
    assert sorted(o["payload"]["demanda_id"] for o in novas) == sorted(mudadas)
    for out in novas:
        stored = resolucao(conn, out["payload"]["demanda_id"])
        assert out["payload"] == payload_saida(stored)
        assert out["correlacao_id"] == stored["correlacao_id"]

    hist = historico(conn)
    assert sorted(str(h["demanda_id"]) for h in hist) == sorted(mudadas)
    for h in hist:
        assert h["unidade_civica_id_anterior"] == territorio.mun_b and h["nivel_anterior"] == 4
        assert h["unidade_civica_id_nova"] == b1 and h["motivo"] == "nivel_mais_fino"
        assert h["evento_publicado_id"] in {o["event_id"] for o in novas}
        assert h["cadeia_ucs_anterior"] == [
            territorio.mun_b,
            territorio.uf,
            territorio.regiao,
            territorio.brasil,
        ]

    again = regeo.regeorreferenciar(conn, settings, uc=None, desde=None, dry_run=False)
    assert again["alteradas"] == 0 and again["mudancas"] == []
    assert len(saidas(conn)) == antes + 2 and len(historico(conn)) == 2
    assert status.status(conn)["regeorreferenciamento"]["alteracoes"] == 2


def test_regeorreferenciar__filters_by_uc_and_date(
    conn: Conn, settings: config.Settings, territorio: Territorio, em_municipio_b: list[str]
) -> None:
    inserir_uc(conn, 2, "Bairro B1", poligono(quadrado(-45, -30, -42.5, -25)), territorio.mun_b)
    # Bairro A1 moves east a little: the A1 demand (lng -49) is unaffected, but --uc A
    # examines only the resolutions in município A's chain.
    so_a = regeo.regeorreferenciar(conn, settings, uc=territorio.mun_a, desde=None, dry_run=True)
    assert so_a["examinadas"] == 1 and so_a["alteradas"] == 0
    via_uf = regeo.regeorreferenciar(conn, settings, uc=territorio.uf, desde=None, dry_run=True)
    assert via_uf["examinadas"] == 5 and via_uf["alteradas"] == 2
    amanha = datetime.date.today() + datetime.timedelta(days=2)
    futuro = regeo.regeorreferenciar(conn, settings, uc=None, desde=amanha, dry_run=True)
    assert futuro["examinadas"] == 0
    ontem = datetime.date.today() - datetime.timedelta(days=2)
    passado = regeo.regeorreferenciar(
        conn, settings, uc=territorio.mun_b, desde=ontem, dry_run=True
    )
    assert passado["examinadas"] == 4 and passado["alteradas"] == 2


def test_regeorreferenciar__interrupted_run_resumes_without_duplicates(
    conn: Conn,
    settings: config.Settings,
    territorio: Territorio,
    em_municipio_b: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The whole of Município B gets one bairro: all four of its demands change.
    inserir_uc(conn, 2, "Bairro B", poligono(quadrado(-45, -30, -40, -25)), territorio.mun_b)
    verdadeiro = bus.publicar
    chamadas = []

    def cai_na_segunda(*args: Any, **kw: Any) -> list[uuid.UUID]:
        chamadas.append(1)
        if len(chamadas) == 2:
            raise errors.InvalidEvent("killed in the middle")
        return verdadeiro(*args, **kw)

    monkeypatch.setattr(bus, "publicar", cai_na_segunda)
    with pytest.raises(errors.InvalidEvent):
        regeo.regeorreferenciar(conn, settings, uc=None, desde=None, dry_run=False, batch=1)
    monkeypatch.undo()
    assert len(historico(conn)) == 1  # the first chunk committed, the second rolled back

    resto = regeo.regeorreferenciar(conn, settings, uc=None, desde=None, dry_run=False, batch=1)
    assert resto["alteradas"] == 3
    hist = historico(conn)
    assert sorted(str(h["demanda_id"]) for h in hist) == sorted(em_municipio_b)
    publicadas = [o["payload"]["demanda_id"] for o in saidas(conn)]
    for d in em_municipio_b:
        assert publicadas.count(d) == 2  # the worker's, then exactly one re-georeferenced


def test_regeorreferenciar__a_point_left_outside_every_polygon_is_kept(
    conn: Conn, settings: config.Settings, territorio: Territorio, em_municipio_b: list[str]
) -> None:
    conn.execute("DELETE FROM core.uc_polygons WHERE nivel >= 4")
    sincronizar_mirror(conn)
    relatorio = regeo.regeorreferenciar(conn, settings, uc=None, desde=None, dry_run=False)
    assert relatorio["sem_poligono_hoje"] == 4
    # The A1 demand still resolves to bairro A1, its chain now partial (parent gone).
    assert relatorio["alteradas"] == 1
    [h] = historico(conn)
    assert h["motivo"] == "cadeia_alterada" and h["cadeia_ucs_nova"] == [territorio.bairro_a1]
    assert {resolucao(conn, d)["unidade_civica_id"] for d in em_municipio_b} == {territorio.mun_b}


def test_reprocessar_revisoes__while_the_worker_runs_every_demand_ends_once(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    semear_cursor(conn)
    w = loop.Worker(settings, url=db_url, batch_size=5)
    fio = threading.Thread(target=w.executar, daemon=True)
    fio.start()
    demandas: list[str] = []
    pela_fila = 0

    def esperar_processados(n: int) -> None:
        limite = time.monotonic() + 30
        while time.monotonic() < limite:
            row = conn.execute("SELECT count(*) AS n FROM d2.eventos_processados").fetchone()
            if row and row["n"] >= n:
                return
            time.sleep(0.05)

    try:
        with psycopg.connect(db_url, autocommit=True) as produtor:
            for vez in range(6):
                if vez == 3:  # the polygon arrives while demands keep coming
                    esperar_processados(30)
                    inserir_uc(produtor, 4, "Município C", poligono(quadrado(-22, -29, -18, -25)))
                for i in range(10):
                    # Odd ones fall in the future Município C, even ones in no polygon ever.
                    lng = -20.0 - 0.1 * i if i % 2 else -10.0 - 0.1 * i
                    demandas.append(publicar(produtor, -27.0 + 0.01 * vez, lng)[1])
                pela_fila += revisoes.reprocessar(conn, settings, batch=3)["resolvidas"]
        esperar_processados(len(demandas))
    finally:
        w.parar.set()
        fio.join(30)
    pela_fila += revisoes.reprocessar(conn, settings)["resolvidas"]

    resolvidas = {
        str(r["demanda_id"]) for r in conn.execute("SELECT demanda_id FROM d2.resolucoes_geo")
    }
    na_fila = pendentes(conn)
    assert resolvidas == {d for i, d in enumerate(demandas) if i % 2}
    assert na_fila == {d for i, d in enumerate(demandas) if i % 2 == 0}
    # Rounds 0-2 queued 15 reviews before the polygon existed: the worker's own follow-up
    # (d2/ops/regeo.py) and the command race for them; each is resolved exactly once.
    assert 0 <= pela_fila <= 15
    publicadas = [o["payload"]["demanda_id"] for o in saidas(conn)]
    assert sorted(publicadas) == sorted(resolvidas)  # each exactly once
