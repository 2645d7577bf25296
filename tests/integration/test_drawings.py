"""Citizen-drawn polygons (spec 8.5, layer 2): validation, consensus, moderation, evidence.

Every expectation about overlap is computed here with shapely from the drawings
themselves, independently of the SQL under test.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import subprocess
import sys
import threading
import uuid
from typing import Any

import psycopg
import pytest
from shapely.geometry import shape

from d2 import cli, config, db, errors
from d2.eventlog import bus
from d2.ops import dlq
from d2.territorio import comunitario
from tests.support import Conn
from tests.support.events import submeter_drawing
from tests.support.territorio import (
    LADO,
    TerritorioDrawings,
    iou,
    mesma_forma,
    poligono,
    quadrado,
    quadrado_em,
    sincronizar_mirror,
)


def drawing_row(conn: Conn, event_id: uuid.UUID) -> dict[str, Any]:
    row = conn.execute(
        "SELECT * FROM d2.territorio_submissoes WHERE event_id = %s", [event_id]
    ).fetchone()
    assert row is not None, f"no submission for {event_id}"
    return row


def publicados(conn: Conn, tipo: str) -> list[dict[str, Any]]:
    return [
        r["payload"]
        for r in conn.execute(
            "SELECT payload FROM core.event_log WHERE tipo = %s ORDER BY sequence_number", [tipo]
        ).fetchall()
    ]


def test_drawings__new_bairro_becomes_a_community_uc_that_resolves(
    conn: Conn, territorio_drawings: TerritorioDrawings, settings: config.Settings
) -> None:
    drawing = quadrado_em(-54.95, -22.05)
    evento = submeter_drawing(conn, drawing, nome="  Jardim das Flores  ")

    resultado = comunitario.drenar(conn, settings)

    assert resultado.por_decisao["nova"] == 1
    s = drawing_row(conn, evento)
    uc = s["alvo_uc_id"]
    assert (s["decisao"], s["parent_uc_id"]) == ("nova", territorio_drawings.municipio)
    [uc_polygon] = [
        r["uc_polygon_id"]
        for r in conn.execute(
            "SELECT uc_polygon_id FROM d2.territorio_ucs WHERE unidade_civica_id = %s", [uc]
        )
    ]
    linha = conn.execute(
        "SELECT id, nivel, parent_uc_id, nome, fonte FROM core.uc_polygons "
        "WHERE unidade_civica_id = %s",
        [uc],
    ).fetchone()
    assert linha == {
        "id": uc_polygon,
        "nivel": 2,
        "parent_uc_id": territorio_drawings.municipio,
        "nome": "Jardim das Flores",
        "fonte": "comunitario",
    }
    [adicionado] = publicados(conn, "uc.poligono_adicionado")
    assert adicionado["unidade_civica_id"] == str(uc)
    assert mesma_forma(adicionado["geometria"], drawing)

    sincronizar_mirror(conn)
    resolvido = conn.execute("SELECT * FROM d2.resolver_territorio(-22.045, -54.945)").fetchone()
    assert resolvido is not None
    assert resolvido["unidade_civica_id"] == uc
    assert resolvido["cadeia_ucs"][:2] == [uc, territorio_drawings.municipio]
    assert comunitario.cursor(conn).sequencia == max(
        r["sequence_number"]
        for r in conn.execute(
            "SELECT sequence_number FROM core.event_log WHERE tipo = 'lugar.cadastrado'"
        ).fetchall()
    )


# A square shifted by d (a fraction of its side) overlaps the original with
# intersection over union (1 - d) / (1 + d): d solves for the overlap wanted.
def _deslocamento(sobreposicao: float) -> float:
    return (1 - sobreposicao) / (1 + sobreposicao)


@pytest.mark.parametrize(
    ("alvo", "esperada"),
    [
        (0.95, "confirmacao"),
        (0.81, "confirmacao"),
        (0.79, "alternativa"),
        (0.51, "alternativa"),
        # Below 0.5 it is another place, but one covering more than 10% of a community UC
        # of its level waits for a moderator (a superset drawn to take a
        # micro-area's demands); a sliver of overlap does not.
        (0.49, "retida"),
        (0.10, "retida"),
        (0.04, "nova"),
    ],
)
def test_drawings__consensus_thresholds_around_80_and_50_percent(
    conn: Conn,
    territorio_drawings: TerritorioDrawings,
    settings: config.Settings,
    alvo: float,
    esperada: str,
) -> None:
    original = quadrado_em(-54.95, -22.05)
    primeiro = submeter_drawing(conn, original)
    outro = quadrado_em(-54.95 + _deslocamento(alvo) * LADO, -22.05)
    segundo = submeter_drawing(conn, outro)

    comunitario.drenar(conn, settings)

    s = drawing_row(conn, segundo)
    assert s["decisao"] == esperada
    assert s["sobreposicao"] == pytest.approx(iou(original, outro), abs=1e-6)
    uc_original = drawing_row(conn, primeiro)["alvo_uc_id"]
    if esperada == "nova":
        assert s["alvo_uc_id"] not in (None, uc_original)
    elif esperada == "retida":
        assert s["alvo_uc_id"] is None and s["moderacao"] == "pendente"
    else:
        assert s["alvo_uc_id"] == uc_original
        assert s["moderacao"] == ("pendente" if esperada == "alternativa" else None)


def test_drawings__drawing_over_an_ibge_bairro_confirms_it_and_never_rewrites_it(
    conn: Conn, territorio_drawings: TerritorioDrawings, settings: config.Settings
) -> None:
    antes = conn.execute(
        "SELECT geometria FROM core.uc_polygons WHERE unidade_civica_id = %s",
        [territorio_drawings.bairro_ibge],
    ).fetchone()
    confirma = submeter_drawing(conn, poligono(quadrado(-54.9899, -22.09, -54.98, -22.08)))
    alternativa = submeter_drawing(conn, poligono(quadrado(-54.987, -22.09, -54.977, -22.08)))

    comunitario.drenar(conn, settings)

    assert drawing_row(conn, confirma)["decisao"] == "confirmacao"
    alt = drawing_row(conn, alternativa)
    assert (alt["decisao"], alt["alvo_uc_id"]) == ("alternativa", territorio_drawings.bairro_ibge)
    with pytest.raises(errors.InvalidInput, match="não é comunitária"):
        comunitario.moderar(conn, alt["id"], "aceitar", "moderadora")
    depois = conn.execute(
        "SELECT geometria FROM core.uc_polygons WHERE unidade_civica_id = %s",
        [territorio_drawings.bairro_ibge],
    ).fetchone()
    assert depois == antes
    assert publicados(conn, "uc.poligono_atualizado") == []


def test_drawings__canonical_is_the_version_with_most_intersection_with_the_others(
    conn: Conn, territorio_drawings: TerritorioDrawings, settings: config.Settings
) -> None:
    original = quadrado_em(-54.95, -22.05)
    # Two later confirmations agree with each other more than with the first one. (An
    # alternative waits for a moderator and takes no part until one accepts it:
    # test_drawings_versions.py.)
    b = quadrado_em(-54.95 + 0.08 * LADO, -22.05)
    c = quadrado_em(-54.95 + 0.1 * LADO, -22.05)
    ids = [submeter_drawing(conn, g) for g in (original, b, c)]

    comunitario.drenar(conn, settings)

    drawings = dict(zip(ids, (original, b, c), strict=True))
    total = {
        e: sum(shape(g).intersection(shape(h)).area for f, h in drawings.items() if f != e)
        for e, g in drawings.items()
    }
    esperado = max(total, key=lambda e: total[e])
    assert esperado != ids[0]
    uc = drawing_row(conn, ids[0])["alvo_uc_id"]
    atual = conn.execute(
        "SELECT t.submissao_canonica, p.geometria FROM d2.territorio_ucs t "
        "JOIN core.uc_polygons p USING (unidade_civica_id) WHERE t.unidade_civica_id = %s",
        [uc],
    ).fetchone()
    assert atual is not None
    assert atual["submissao_canonica"] == drawing_row(conn, esperado)["id"]
    assert mesma_forma(atual["geometria"], drawings[esperado])
    atualizados = publicados(conn, "uc.poligono_atualizado")
    assert atualizados[-1]["submissao_id"] == str(drawing_row(conn, esperado)["id"])
    assert atualizados[-1]["motivo"] == "consenso"


def test_drawings__every_n_conflicting_drawings_raise_one_moderation_alert(
    conn: Conn, territorio_drawings: TerritorioDrawings, settings: config.Settings
) -> None:
    submeter_drawing(conn, quadrado_em(-54.95, -22.05))
    # Shifted a quarter of a side each way and once diagonally: each overlaps the first
    # drawing by 0.57-0.6, and the first keeps the most intersection with all of them.
    for dx, dy in ((0.25, 0), (-0.25, 0), (0, 0.25), (0, -0.25), (0.15, 0.15)):
        submeter_drawing(conn, quadrado_em(-54.95 + dx * LADO, -22.05 + dy * LADO))

    resultado = comunitario.drenar(conn, dataclasses.replace(settings, territorio_alerta_a_cada=2))

    assert resultado.por_decisao["alternativa"] == 5
    alertas = publicados(conn, "uc.moderacao_solicitada")
    assert [a["submissoes_conflitantes"] for a in alertas] == [2, 4]
    assert resultado.alertas == 2
    assert alertas[0]["municipio_uc_id"] == str(territorio_drawings.municipio)
    assert [r["decisao"] for r in comunitario.listar(conn)] == ["alternativa"] * 5


def _bowtie() -> dict[str, Any]:
    x, y = -54.95, -22.05
    return poligono([(x, y), (x + LADO, y + LADO), (x + LADO, y), (x, y + LADO), (x, y)])


def _espinho_torcido() -> dict[str, Any]:
    # A square whose last edge crosses its first near a corner: a loop of ~1e-10 deg².
    x, y = -54.95, -22.05
    return poligono(
        [(x, y), (x + LADO, y), (x + LADO, y + LADO), (x, y + LADO), (x + 1e-5, y - 1e-5), (x, y)]
    )


def _antimeridiano() -> dict[str, Any]:
    return poligono([(179.99, -16.1), (-179.99, -16.1), (-179.99, -16.0), (179.99, -16.0),
                     (179.99, -16.1)])  # fmt: skip


@pytest.mark.parametrize(
    ("geometria", "motivo"),
    [
        (_bowtie(), "inválida"),
        ({"type": "Polygon", "coordinates": []}, "vazia|ilegível"),
        ({"type": "Point", "coordinates": [-54.95, -22.05]}, "não poligonal"),
        ({"type": "LineString", "coordinates": [[-54.95, -22.05], [-54.9, -22.0]]}, "poligonal"),
        (
            poligono([(-54.95, -22.05), (-54.94, -22.05), (-54.94, -22.04), (-54.95, -22.04)]),
            "anel não fechado",
        ),
        (quadrado_em(-54.95, -22.05, lado=0.0001), "área"),  # ~110 m²
        (quadrado_em(-54.99, -22.09, lado=0.2), "área"),  # ~440 km²
        (quadrado_em(-40.0, -30.0), "fora de um município"),
        (quadrado_em(-54.905, -22.05), "fora de um município"),  # half in M, half in N
        (_antimeridiano(), "área|fora"),
        (poligono([(-54.95, 95.0), (-54.94, 95.0), (-54.94, 96.0), (-54.95, 95.0)]), "fora de"),
    ],
    ids=[
        "bowtie", "empty", "point", "linestring", "open-ring", "too-small", "too-large",
        "outside", "straddling", "antimeridian", "latitude-out-of-range",
    ],
)  # fmt: skip
def test_drawings__invalid_and_hostile_geometry_is_refused_with_its_reason(
    conn: Conn,
    territorio_drawings: TerritorioDrawings,
    settings: config.Settings,
    geometria: Any,
    motivo: str,
) -> None:
    evento = submeter_drawing(conn, geometria)

    resultado = comunitario.drenar(conn, settings)

    s = drawing_row(conn, evento)
    assert s["decisao"] == "rejeitada"
    assert s["motivo"]
    assert re.search(motivo, s["motivo"]), s["motivo"]
    assert resultado.por_decisao["rejeitada"] == 1
    assert conn.execute(
        "SELECT count(*) AS n FROM core.uc_polygons WHERE fonte = 'comunitario'"
    ).fetchone() == {"n": 0}


def test_drawings__a_faithful_repair_is_kept_and_ring_order_does_not_matter(
    conn: Conn, territorio_drawings: TerritorioDrawings, settings: config.Settings
) -> None:
    torcido = submeter_drawing(conn, _espinho_torcido())
    horario = quadrado(-54.93, -22.03, -54.92, -22.02)[::-1]  # clockwise exterior ring
    sentido = submeter_drawing(conn, poligono(horario), nome="Horário")

    comunitario.drenar(conn, settings)

    s = drawing_row(conn, torcido)
    assert (s["decisao"], s["reparada"]) == ("nova", True)
    h = drawing_row(conn, sentido)
    assert h["decisao"] == "nova"
    assert h["area_m2"] == pytest.approx(
        conn.execute(
            "SELECT ST_Area(ST_MakeEnvelope(-54.93, -22.03, -54.92, -22.02, 4326)::geography) AS a"
        ).fetchone()["a"],
        rel=1e-9,
    )
    assert conn.execute(
        "SELECT ST_IsPolygonCCW(geom) AS ccw FROM d2.territorio_submissoes WHERE event_id = %s",
        [sentido],
    ).fetchone() == {"ccw": True}


def test_drawings__too_many_vertices_are_refused_and_huge_payloads_dead_lettered(
    conn: Conn, territorio_drawings: TerritorioDrawings, settings: config.Settings
) -> None:
    def circulo(n: int) -> dict[str, Any]:
        pontos = [
            (-54.945 + 0.004 * math.cos(2 * math.pi * i / n),
             -22.045 + 0.004 * math.sin(2 * math.pi * i / n))
            for i in range(n)
        ]  # fmt: skip
        return poligono([*pontos, pontos[0]])

    muitos = submeter_drawing(conn, circulo(25_000))
    enorme = submeter_drawing(conn, circulo(1_000_000))
    permitido = dataclasses.replace(settings, max_payload_bytes=4 * 1024 * 1024)

    resultado = comunitario.drenar(conn, permitido)

    s = drawing_row(conn, muitos)
    assert s["decisao"] == "rejeitada"
    assert "vértices" in s["motivo"]
    assert resultado.dead_letters == 1
    cartas = dlq.listar(conn, consumer=comunitario.CONSUMER)
    assert [d["event_id"] for d in cartas] == [enorme]
    assert "exceeds" in cartas[0]["erro"]


def test_drawings__malformed_events_are_dead_lettered_and_the_drain_goes_on(
    conn: Conn, territorio_drawings: TerritorioDrawings, settings: config.Settings
) -> None:
    with conn.transaction():
        ruim = uuid.uuid4()
        conn.execute(
            "INSERT INTO core.event_log (event_id, tipo, versao_schema, origem, payload) "
            "VALUES (%s, 'lugar.cadastrado', '1.0.0', 'L-1', %s::jsonb)",
            [ruim, '{"lugar_id": "not-a-uuid", "tipo_lugar": "poligono_uc"}'],
        )
    outro_tipo = submeter_drawing(conn, None, tipo_lugar="farmacia")
    bom = submeter_drawing(conn, quadrado_em(-54.95, -22.05))

    resultado = comunitario.drenar(conn, settings)

    assert (resultado.dead_letters, resultado.ignorados, resultado.por_decisao["nova"]) == (
        1,
        1,
        1,
    )
    [carta] = dlq.listar(conn, consumer=comunitario.CONSUMER)
    assert carta["event_id"] == ruim
    assert drawing_row(conn, bom)["decisao"] == "nova"
    assert conn.execute(
        "SELECT count(*) AS n FROM d2.territorio_submissoes WHERE event_id = %s", [outro_tipo]
    ).fetchone() == {"n": 0}


def test_drawings__replay_from_zero_changes_nothing_and_publishes_nothing(
    conn: Conn, territorio_drawings: TerritorioDrawings, settings: config.Settings
) -> None:
    submeter_drawing(conn, quadrado_em(-54.95, -22.05))
    submeter_drawing(conn, quadrado_em(-54.95 + 0.3 * LADO, -22.05))
    comunitario.drenar(conn, settings)
    antes = conn.execute("SELECT count(*) AS n FROM core.event_log").fetchone()

    conn.execute(
        "UPDATE d2.consumer_offset SET last_sequence = 0 WHERE tipo_evento = 'lugar.cadastrado'"
    )
    resultado = comunitario.drenar(conn, settings)

    assert resultado.ja_registrados == 2
    assert sum(resultado.por_decisao.values()) == 0
    assert conn.execute("SELECT count(*) AS n FROM core.event_log").fetchone() == antes
    assert conn.execute(
        "SELECT count(*) AS n FROM core.uc_polygons WHERE fonte = 'comunitario'"
    ).fetchone() == {"n": 1}


def test_drawings__a_failure_while_publishing_leaves_no_trace_and_the_next_drain_completes(
    conn: Conn,
    territorio_drawings: TerritorioDrawings,
    settings: config.Settings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    evento = submeter_drawing(conn, quadrado_em(-54.95, -22.05))
    original = bus.publicar

    def cai(*args: Any, **kwargs: Any) -> list[uuid.UUID]:
        raise psycopg.OperationalError("connection lost (simulated)")

    monkeypatch.setattr(bus, "publicar", cai)
    # A transient failure propagates (as d2.errors, mapped at the database boundary).
    with pytest.raises(errors.TransientDatabaseError):
        comunitario.drenar(conn, settings)
    assert conn.execute("SELECT count(*) AS n FROM d2.territorio_submissoes").fetchone() == {"n": 0}
    assert conn.execute(
        "SELECT count(*) AS n FROM core.uc_polygons WHERE fonte = 'comunitario'"
    ).fetchone() == {"n": 0}

    monkeypatch.setattr(bus, "publicar", original)
    resultado = comunitario.drenar(conn, settings)

    assert resultado.por_decisao["nova"] == 1
    assert drawing_row(conn, evento)["decisao"] == "nova"
    assert len(publicados(conn, "uc.poligono_adicionado")) == 1


def test_drawings__micro_area_inside_a_community_bairro_has_it_as_parent(
    conn: Conn, territorio_drawings: TerritorioDrawings, settings: config.Settings
) -> None:
    bairro = submeter_drawing(conn, quadrado_em(-54.95, -22.05))
    micro = submeter_drawing(conn, quadrado_em(-54.948, -22.048, lado=0.002), nivel=1, nome="Vila")

    comunitario.drenar(conn, settings)

    b = drawing_row(conn, bairro)
    m = drawing_row(conn, micro)
    assert (m["decisao"], m["parent_uc_id"]) == ("nova", b["alvo_uc_id"])
    sincronizar_mirror(conn)
    resolvido = conn.execute("SELECT * FROM d2.resolver_territorio(-22.047, -54.947)").fetchone()
    assert resolvido is not None
    assert resolvido["cadeia_ucs"][:3] == [
        m["alvo_uc_id"],
        b["alvo_uc_id"],
        territorio_drawings.municipio,
    ]


def test_drawings__moderators_accept_a_version_and_remove_vandalism(
    conn: Conn, territorio_drawings: TerritorioDrawings, settings: config.Settings
) -> None:
    original = submeter_drawing(conn, quadrado_em(-54.95, -22.05))
    alternativa_g = quadrado_em(-54.95 + 0.3 * LADO, -22.05)
    alternativa = submeter_drawing(conn, alternativa_g)
    vandalismo = submeter_drawing(conn, quadrado_em(-54.93, -22.03), nome="Bairro do Spam")
    comunitario.drenar(conn, settings)
    alt = drawing_row(conn, alternativa)

    aceito = comunitario.moderar(conn, alt["id"], "aceitar", "moderadora")

    assert aceito["efeito"] == "canonica"
    uc = drawing_row(conn, original)["alvo_uc_id"]
    geometria = conn.execute(
        "SELECT geometria FROM core.uc_polygons WHERE unidade_civica_id = %s", [uc]
    ).fetchone()
    assert geometria is not None
    assert mesma_forma(geometria["geometria"], alternativa_g)
    assert publicados(conn, "uc.poligono_atualizado")[-1]["motivo"] == "moderacao"

    removida = comunitario.moderar(conn, drawing_row(conn, vandalismo)["id"], "rejeitar", "mod")

    assert removida["efeito"] == "removida"
    uc_spam = drawing_row(conn, vandalismo)["alvo_uc_id"]
    assert conn.execute(
        "SELECT count(*) AS n FROM core.uc_polygons WHERE unidade_civica_id = %s", [uc_spam]
    ).fetchone() == {"n": 0}
    [removido] = publicados(conn, "uc.poligono_removido")
    assert removido["unidade_civica_id"] == str(uc_spam)
    with pytest.raises(errors.InvalidInput, match="não encontrada"):
        comunitario.moderar(conn, uuid.uuid4(), "aceitar", "mod")


def test_drawings__health_ranks_a_misplaced_polygon_first(
    conn: Conn, territorio_drawings: TerritorioDrawings, settings: config.Settings
) -> None:
    certo = submeter_drawing(conn, quadrado_em(-54.95, -22.05), nome="Certo")
    errado = submeter_drawing(conn, quadrado_em(-54.93, -22.03), nome="Deslocado")
    comunitario.drenar(conn, settings)
    uc_certo = drawing_row(conn, certo)["alvo_uc_id"]
    uc_errado = drawing_row(conn, errado)["alvo_uc_id"]
    for i in range(3):  # demands that landed inside the right one
        conn.execute(
            "INSERT INTO d2.resolucoes_geo (id, demanda_id, unidade_civica_id, "
            "nivel_minimo_resolvido, cadeia_ucs, metodo_resolucao, confianca_geo, "
            "coordenadas_lat, coordenadas_lng, event_id, correlacao_id) VALUES "
            "(gen_random_uuid(), gen_random_uuid(), %s, 2, ARRAY[%s]::uuid[], 'gps', 'alta', "
            "%s, %s, gen_random_uuid(), gen_random_uuid())",
            [uc_certo, uc_certo, -22.045 + i * 0.001, -54.945],
        )
    for i in range(4):  # citizens just outside the misplaced one, in the review queue
        conn.execute(
            "INSERT INTO d2.revisoes_geo_pendentes (demanda_id, event_id, coordenadas_lat, "
            "coordenadas_lng) VALUES (gen_random_uuid(), gen_random_uuid(), %s, %s)",
            [-22.0305 + i * 0.001, -54.9195],
        )

    health = comunitario.health(conn)

    assert [r["unidade_civica_id"] for r in health] == [uc_errado, uc_certo]
    assert (health[0]["revisoes_perto"], health[0]["demandas_dentro"]) == (4, 0)
    assert (health[1]["revisoes_perto"], health[1]["demandas_dentro"]) == (0, 3)


def test_drawings__the_worker_role_names_an_event_and_nothing_else(
    conn: Conn, territorio_drawings: TerritorioDrawings, db_url: str
) -> None:
    """The definer functions take only an event's id: the worker's role
    chooses no geometry, no level and no id, may not write core.uc_polygons nor moderate,
    and a role without the grant may call none of them."""
    conn.execute("CREATE ROLE territorio_worker_login LOGIN IN ROLE d2_worker")
    conn.execute("CREATE ROLE territorio_qualquer LOGIN")
    try:
        evento = submeter_drawing(conn, quadrado_em(-54.95, -22.05))
        args = {"event_id": evento, "alerta_a_cada": 5}
        with psycopg.connect(db_url, user="territorio_worker_login", autocommit=True) as w:
            row = w.execute(db.q("territorio_submeter"), args).fetchone()
            assert row is not None and row[1] == "nova"
            uc = row[3]
            assert conn.execute(
                "SELECT fonte FROM core.uc_polygons WHERE unidade_civica_id = %s", [uc]
            ).fetchone() == {"fonte": "comunitario"}
            # A UF's id, or any event that is not a drawing, gets it nothing.
            with pytest.raises(psycopg.errors.NoDataFound):
                w.execute(
                    db.q("territorio_submeter"), {**args, "event_id": territorio_drawings.municipio}
                )
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                w.execute(
                    "INSERT INTO core.uc_polygons (id, unidade_civica_id, nivel, nome, "
                    "geometria, fonte) VALUES (gen_random_uuid(), gen_random_uuid(), 2, 'x', "
                    "'{}'::jsonb, 'comunitario')"
                )
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                w.execute("SELECT * FROM d2.territorio_moderar(%s, 'rejeitar', 'w')", [row[0]])
        with psycopg.connect(db_url, user="territorio_qualquer", autocommit=True) as q:
            for nome in ("territorio_tentar", "territorio_avaliar", "territorio_submeter"):
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    q.execute(db.q(nome), args)
    finally:
        conn.execute("DROP OWNED BY territorio_worker_login, territorio_qualquer")
        conn.execute("DROP ROLE territorio_worker_login, territorio_qualquer")


def test_drawings__two_consumers_at_once_handle_each_drawing_once(
    conn: Conn, territorio_drawings: TerritorioDrawings, settings: config.Settings, db_url: str
) -> None:
    eventos = [
        submeter_drawing(conn, quadrado_em(-54.99 + 0.012 * (i % 7), -22.06 + 0.012 * (i // 7)))
        for i in range(14)
    ]
    resultados: list[comunitario.Result] = []

    def consumir() -> None:
        with db.connect(db_url, autocommit=True) as propria:
            resultados.append(comunitario.drenar(propria, settings, batch=3))

    threads = [threading.Thread(target=consumir) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)

    assert len(resultados) == 2
    assert sum(r.eventos for r in resultados) == len(eventos)
    assert sum(r.dead_letters for r in resultados) == 0
    assert conn.execute(
        "SELECT count(*) AS n, count(DISTINCT event_id) AS d FROM d2.territorio_submissoes"
    ).fetchone() == {"n": len(eventos), "d": len(eventos)}


def test_drawings__cli_consumes_lists_and_refuses_with_one_line(
    conn: Conn, territorio_drawings: TerritorioDrawings, db_url: str
) -> None:
    env = {**os.environ, "DATABASE_URL": db_url}
    submeter_drawing(conn, quadrado_em(-54.95, -22.05))
    alternativa = submeter_drawing(conn, quadrado_em(-54.95 + 0.3 * LADO, -22.05))
    d2 = [sys.executable, "-m", "d2.cli", "territorio"]

    consumido = subprocess.run(
        [*d2, "consumir", "--drain", "--json", "--log-level", "ERROR"],
        env=env, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    listado = subprocess.run(
        [*d2, "list", "--json"], env=env, capture_output=True, text=True, timeout=60, check=True
    )
    recusado = subprocess.run(
        [*d2, "aceitar", "nao-e-uuid", "--por", "mod"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip

    assert json.loads(consumido.stdout)["nova"] == 1
    [pendente] = json.loads(listado.stdout)
    assert pendente["submissao_id"] == str(drawing_row(conn, alternativa)["id"])
    assert recusado.returncode == 2
    assert recusado.stderr.strip().count("\n") == 0
    assert "not a UUID" in recusado.stderr


def test_drawings__cli_shows_and_moderates_in_sentences_for_people(
    conn: Conn,
    db_url: str,
    territorio_drawings: TerritorioDrawings,
    settings: config.Settings,
    capsys: pytest.CaptureFixture[str],
) -> None:
    submeter_drawing(conn, quadrado_em(-54.95, -22.05))
    alternativa = submeter_drawing(conn, quadrado_em(-54.95 + 0.3 * LADO, -22.05))
    comunitario.drenar(conn, settings)
    alt = str(drawing_row(conn, alternativa)["id"])

    assert cli.main(["territorio", "show", alt]) == 0
    texto = capsys.readouterr().out
    assert texto.startswith(f"submission {alt}: alternativa\n")
    assert "the UC's versions:" in texto and texto.count("\n") >= 6
    for repr_python in ("{", "datetime", "Decimal(", "None", "True", "False"):
        assert repr_python not in texto
    assert cli.main(["territorio", "show", alt, "--json"]) == 0
    dados = json.loads(capsys.readouterr().out)
    assert dados["geometria"]["type"] in {"Polygon", "MultiPolygon"}

    args = ["territorio", "aceitar", alt, "--by", "moderadora", "--log-level", "ERROR"]
    assert cli.main(args) == 0
    uc = drawing_row(conn, alternativa)["alvo_uc_id"]
    assert capsys.readouterr().out == f"aceitar: now the UC's canonical geometry (UC {uc})\n"
