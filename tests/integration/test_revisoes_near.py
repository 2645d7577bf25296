"""The near rule (docs/design.md, decision 12): a GPS point in no polygon within
D2_REVISAO_DISTANCIA_M of exactly one município, and no other within that plus the margin,
is answered there (at its bairro where exactly one is that near), with the step and the
distance recorded in d2.revisoes_tratadas; two municípios near, or none, leave it in
review. The same answer from the batch path, the per-event path, `d2 revisoes
reprocessar` and the follow-up; d2.resolver_territorio unchanged."""

from __future__ import annotations

import logging
import math
import uuid
from typing import Any

import pytest

from d2 import config, logs
from d2.eventlog import registry
from d2.handler.outputs import TIPO_SAIDA
from d2.ops import regeo, revisoes
from d2.territorio import resolver
from tests.support import Conn, drenar, semear_cursor
from tests.support.events import inserir_evento, payload_normalizada, saidas
from tests.support.territorio import Territorio, inserir_uc, poligono, quadrado


def oeste(metros: float, lat: float, lng: float) -> tuple[float, float]:
    """(lat, lng) metros west of (lat, lng): degrees of longitude on WGS 84."""
    return lat, lng - metros / _metros_por_grau_lng(lat)


def sul(metros: float, lat: float, lng: float) -> tuple[float, float]:
    """(lat, lng) metros south of (lat, lng) (a degree of latitude near 30° S: 110,852 m)."""
    return lat - metros / 110_852.0, lng


def _metros_por_grau_lng(lat: float) -> float:
    a, e2 = 6_378_137.0, 0.006_694_379_990_14
    phi = math.radians(lat)
    return math.pi / 180 * a * math.cos(phi) / math.sqrt(1 - e2 * math.sin(phi) ** 2)


# The test territory (tests/support/territorio.py): município A [-50,-30]..[-45,-25] with
# bairros A1 [-50,-47.5] and A2 [-47.5,-45]; município B [-45,-30]..[-40,-25], no bairros.
# West of -50 and south of -30 lies no polygon at all.
PERTO_A1 = oeste(50, -27.0, -50.0)  # 50 m west of A, of A1
PERTO_B = sul(40, -30.0, -42.0)  # 40 m south of B (no bairro)
ENTRE_A1_A2 = sul(40, -30.0, -47.5)  # 40 m south of A, on the line between A1 and A2
CANTO_AB = sul(40, -30.0, -45.0)  # 40 m south of the corner A and B share
LONGE_A = oeste(160, -27.0, -50.0)  # 160 m west of A: beyond the 100 m


def proximo(conn: Conn, lat: float, lng: float, **kw: float) -> dict[str, Any] | None:
    limite, margem = kw.get("limite", 100.0), kw.get("margem", 100.0)
    return conn.execute(
        "SELECT * FROM d2.resolver_proximo(%s, %s, %s, %s)", [lat, lng, limite, margem]
    ).fetchone()


def test_near__answers_the_one_municipio_and_its_one_bairro(
    conn: Conn, territorio: Territorio
) -> None:
    a1 = proximo(conn, *PERTO_A1)
    assert a1 is not None
    assert (a1["unidade_civica_id"], a1["nivel_minimo_resolvido"]) == (territorio.bairro_a1, 2)
    assert a1["cadeia_ucs"] == territorio.cadeia_a1
    assert a1["distancia_m"] == pytest.approx(50, abs=1.0)  # the rounding moves it < 1 m

    b = proximo(conn, *PERTO_B)
    assert b is not None
    assert (b["unidade_civica_id"], b["nivel_minimo_resolvido"]) == (territorio.mun_b, 4)
    assert b["distancia_m"] == pytest.approx(40, abs=1.0)

    # Two bairros as near: the município, not a guess between them.
    entre = proximo(conn, *ENTRE_A1_A2)
    assert entre is not None
    assert (entre["unidade_civica_id"], entre["nivel_minimo_resolvido"]) == (territorio.mun_a, 4)


def test_near__two_municipios_or_none_leave_the_point_in_review(
    conn: Conn, territorio: Territorio
) -> None:
    assert proximo(conn, *CANTO_AB) is None  # A and B both 40 m away
    assert proximo(conn, *LONGE_A) is None  # nothing within 100 m
    # The margin: 160 m is beyond 100 m, but B within limite + margem still blocks A.
    perto_a_longe_b = sul(60, -30.0, -45.0 - 150 / _metros_por_grau_lng(-30.0))
    assert proximo(conn, *perto_a_longe_b, margem=0) is not None
    assert proximo(conn, *perto_a_longe_b) is None
    # Off: limite 0.
    assert proximo(conn, *PERTO_A1, limite=0) is None
    # Its reach is bounded: 5 km asked, 1000 m taken.
    assert proximo(conn, *oeste(1500, -27.0, -50.0), limite=5000, margem=0) is None
    assert proximo(conn, *oeste(900, -27.0, -50.0), limite=5000, margem=0) is not None


def test_near__the_resolver_itself_still_answers_nothing_there(
    conn: Conn, territorio: Territorio
) -> None:
    for ponto in (PERTO_A1, PERTO_B, ENTRE_A1_A2):
        assert conn.execute("SELECT * FROM d2.resolver_territorio(%s, %s)", ponto).fetchall() == []


def test_near__a_bairro_answers_only_inside_the_municipio(
    conn: Conn, territorio: Territorio
) -> None:
    """A bairro near the point whose chain does not hold the near município (drawn out of
    it, or of another one) is not the answer: the município is."""
    c = inserir_uc(
        conn, 4, "Município C", poligono(quadrado(-60.0, -10.0, -59.0, -9.0)), territorio.uf
    )
    # A bairro of B, drawn (wrongly) just east of C: 60 m from the point, C 30 m.
    graus = 1 / _metros_por_grau_lng(-9.5)
    inserir_uc(
        conn,
        2,
        "Bairro de B fora de B",
        poligono(quadrado(-59.0 + 90 * graus, -9.6, -58.9, -9.4)),
        territorio.mun_b,
    )
    achado = proximo(conn, -9.5, -59.0 + 30 * graus)
    assert achado is not None
    assert (achado["unidade_civica_id"], achado["nivel_minimo_resolvido"]) == (c, 4)


def test_near__a_crowded_place_is_not_decided_by_distance(
    conn: Conn, territorio: Territorio
) -> None:
    """Past 1000 candidate pieces within reach the point stays in review: the work per
    point is bounded whatever was drawn around it."""
    lat, lng = PERTO_B
    ja = conn.execute(
        "SELECT count(*) AS n FROM d2.mirror_pieces WHERE nivel IN (2, 4) "
        "AND geom && ST_Expand(ST_SetSRID(ST_MakePoint(%s, %s), 4326), 0.01)",
        [lng, lat],
    ).fetchone()
    assert ja is not None and ja["n"] == 1  # município B's one piece
    conn.execute(
        "INSERT INTO d2.mirror_pieces (uc_polygon_id, unidade_civica_id, nivel, geom) "
        "SELECT gen_random_uuid(), gen_random_uuid(), 2, "
        "       ST_Expand(ST_SetSRID(ST_MakePoint(%(lng)s + 0.00001 * (i %% 30), "
        "                                         %(lat)s + 0.00001 * (i / 30)), 4326), 1e-7)"
        "  ::geometry(Polygon, 4326) "
        "FROM generate_series(1, %(n)s) i",
        {"lat": lat - 0.0002, "lng": lng - 0.0002, "n": 999},
    )
    # 999 bairros (none unique) and B: the município answers.
    achado = proximo(conn, lat, lng)
    assert achado is not None and achado["unidade_civica_id"] == territorio.mun_b
    conn.execute(
        "INSERT INTO d2.mirror_pieces (uc_polygon_id, unidade_civica_id, nivel, geom) "
        "SELECT gen_random_uuid(), gen_random_uuid(), 2, "
        "       ST_Expand(ST_SetSRID(ST_MakePoint(%(lng)s, %(lat)s), 4326), 1e-7) "
        "FROM generate_series(1, 2)",
        {"lat": lat - 0.0003, "lng": lng},
    )
    assert proximo(conn, lat, lng) is None


def test_near__a_pure_function_of_the_rounded_point(conn: Conn, territorio: Territorio) -> None:
    lat, lng = round(PERTO_A1[0], 5), round(PERTO_A1[1], 5)
    base = proximo(conn, lat, lng)
    assert base is not None
    for dlat, dlng in ((4e-6, 0), (-4e-6, 4e-6), (0, -4.9e-6)):
        assert proximo(conn, lat + dlat, lng + dlng) == base


def test_near__the_batch_function_answers_as_the_one_point_function(
    conn: Conn, territorio: Territorio
) -> None:
    pontos = [
        PERTO_A1, PERTO_B, ENTRE_A1_A2, CANTO_AB, LONGE_A,
        *(sul(m, -30.0, -45.0 + d) for m in (10, 60, 99, 140) for d in (-0.002, 0.0, 0.0009)),
        *(oeste(m, -25.0 - d, -50.0) for m in (5, 95, 101) for d in (0.0, 0.5, 4.9999)),
    ]  # fmt: skip
    em_batch = {
        r["ordem"]: r
        for r in conn.execute(
            "SELECT * FROM d2.resolver_proximos(%s::float8[], %s::float8[], 100, 100)",
            [[p[0] for p in pontos], [p[1] for p in pontos]],
        )
    }
    for i, ponto in enumerate(pontos, start=1):
        um = proximo(conn, *ponto)
        assert (dict(em_batch[i]) if i in em_batch else None) == (
            None if um is None else {"ordem": i} | um
        )
    assert len(em_batch) >= 8  # the grid has answers and non-answers both


# --- through the worker ----------------------------------------------------------------------


def _publicar(conn: Conn, ponto: tuple[float, float]) -> tuple[uuid.UUID, str]:
    payload = payload_normalizada(*ponto)
    return inserir_evento(conn, payload), payload["demanda_id"]


def _outcome(conn: Conn, event_id: uuid.UUID) -> tuple[Any, ...]:
    row = conn.execute(
        "SELECT g.unidade_civica_id, g.nivel_minimo_resolvido, g.metodo_resolucao, "
        "       g.confianca_geo, t.passo, round(t.distancia_m::numeric, 3) AS distancia, "
        "       t.limite_m, t.revisao_desde, "
        "       EXISTS (SELECT 1 FROM d2.revisoes_geo_pendentes p WHERE p.event_id = e.id) "
        "FROM (SELECT %s::uuid AS id) e "
        "LEFT JOIN d2.resolucoes_geo g ON g.event_id = e.id "
        "LEFT JOIN d2.revisoes_tratadas t ON t.event_id = e.id",
        [event_id],
    ).fetchone()
    assert row is not None
    return tuple(row.values())


PONTOS = (PERTO_A1, PERTO_B, ENTRE_A1_A2, CANTO_AB, LONGE_A)


def test_near__the_worker_answers_a_beach_point_and_publishes_it(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    semear_cursor(conn)
    ids = [_publicar(conn, p) for p in PONTOS]
    drenar(db_url, settings)

    a1 = _outcome(conn, ids[0][0])
    assert a1[:5] == (territorio.bairro_a1, 2, "gps", "media", "proximidade")
    assert float(a1[5]) == pytest.approx(50, abs=1.0) and a1[6] == 100.0 and a1[7] is None
    assert _outcome(conn, ids[1][0])[:5] == (territorio.mun_b, 4, "gps", "media", "proximidade")
    assert _outcome(conn, ids[2][0])[:2] == (territorio.mun_a, 4)
    for event_id, _ in ids[3:]:  # two municípios near, none near: in review
        assert _outcome(conn, event_id) == (None,) * 8 + (True,)
    publicados = {s["payload"]["demanda_id"]: s["payload"] for s in saidas(conn)}
    assert set(publicados) == {d for _, d in ids[:3]}
    for saida in publicados.values():
        registry.validar(TIPO_SAIDA, saida)
        assert (saida["metodo_resolucao"], saida["confianca_geo"]) == ("gps", "media")
    # psql sees the step and the distance beside the answer.
    vista = conn.execute(
        "SELECT passo_revisao, distancia_m FROM d2.v_resolucoes WHERE demanda_id = %s",
        [ids[1][1]],
    ).fetchone()
    assert vista is not None and vista["passo_revisao"] == "proximidade"
    assert vista["distancia_m"] == pytest.approx(40, abs=1.0)


def test_near__its_log_line_says_the_step_and_distance_not_the_point(
    conn: Conn,
    db_url: str,
    settings: config.Settings,
    territorio: Territorio,
    caplog: pytest.LogCaptureFixture,
) -> None:
    raiz = logging.getLogger("d2")
    raiz.addHandler(caplog.handler)
    nivel = raiz.level
    raiz.setLevel(logging.INFO)
    try:
        semear_cursor(conn)
        event_id, _ = _publicar(conn, PERTO_B)
        drenar(db_url, settings)
    finally:
        raiz.removeHandler(caplog.handler)
        raiz.setLevel(nivel)
    # The handler added to "d2" and the root's both see it: one record, maybe twice.
    [linha] = {r for r in caplog.records if r.getMessage() == "Demanda georreferenciada"}
    assert (linha.__dict__["passo"], linha.__dict__["event_id"]) == ("proximidade", event_id)
    assert linha.__dict__["distancia_m"] == pytest.approx(40, abs=1.0)
    texto = logs.JsonFormatter().format(linha)
    assert f"{PERTO_B[0]:.5f}"[:8] not in texto and "-42.0" not in texto  # no coordinates


def test_near__batch_and_per_event_paths_give_the_same_outcome(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    semear_cursor(conn)
    em_batch = [_publicar(conn, p)[0] for p in PONTOS * 2]  # the second half: cache hits
    drenar(db_url, settings, batch_size=500)
    um = [_publicar(conn, p)[0] for p in PONTOS * 2]
    drenar(db_url, settings, batch_size=1)

    def sem_tempo(outcome: tuple[Any, ...]) -> tuple[Any, ...]:
        return outcome[:7] + outcome[8:]

    assert [sem_tempo(_outcome(conn, e)) for e in em_batch] == [
        sem_tempo(_outcome(conn, e)) for e in um
    ]


def test_near__off_when_the_distance_is_zero(
    conn: Conn, db_url: str, monkeypatch: pytest.MonkeyPatch, territorio: Territorio
) -> None:
    monkeypatch.setenv("D2_REVISAO_DISTANCIA_M", "0")
    semear_cursor(conn)
    event_id, _ = _publicar(conn, PERTO_A1)
    drenar(db_url, config.load())
    assert _outcome(conn, event_id)[-1] is True


def test_near__reprocessar_answers_the_queue_already_there(
    conn: Conn, settings: config.Settings, territorio: Territorio
) -> None:
    """Reviews queued before the rule (or with it off) are answered by `d2 revisoes
    reprocessar` as the worker would now, with when they began waiting."""
    fila = {}
    for ponto in PONTOS:
        event_id, demanda = _publicar(conn, ponto)
        conn.execute(
            "INSERT INTO d2.revisoes_geo_pendentes (demanda_id, event_id, coordenadas_lat, "
            "coordenadas_lng, criado_em) VALUES (%s, %s, %s, %s, now() - interval '3 days')",
            [demanda, event_id, *ponto],
        )
        fila[event_id] = demanda

    relatorio = revisoes.reprocessar(conn, settings)

    assert relatorio["examinadas"] == 5 and relatorio["resolvidas"] == 3
    assert relatorio["por_proximidade"] == 3 and relatorio["continuam_pendentes"] == 2
    ids = list(fila)
    assert _outcome(conn, ids[0])[:5] == (territorio.bairro_a1, 2, "gps", "media", "proximidade")
    assert _outcome(conn, ids[0])[7] is not None  # revisao_desde: it waited
    assert {s["payload"]["demanda_id"] for s in saidas(conn)} == {fila[e] for e in ids[:3]}
    # A second run finds nothing more to answer and publishes nothing more.
    assert revisoes.reprocessar(conn, settings)["resolvidas"] == 0
    assert len(saidas(conn)) == 3


def test_near__the_follow_up_answers_a_review_a_new_polygon_lies_near(
    conn: Conn, settings: config.Settings, territorio: Territorio
) -> None:
    """A review 50 m outside a polygon drawn after it: not inside the changed area, so
    only the near rule's reach brings it to the follow-up."""
    graus = 1 / _metros_por_grau_lng(-5.0)
    ponto = (-5.0, -60.0 - 50 * graus)
    event_id, demanda = _publicar(conn, ponto)
    conn.execute(
        "INSERT INTO d2.revisoes_geo_pendentes (demanda_id, event_id, coordenadas_lat, "
        "coordenadas_lng) VALUES (%s, %s, %s, %s)",
        [demanda, event_id, *ponto],
    )
    regeo.acompanhar(conn, regra=resolver.NearRule.de(settings))  # the fixture's own areas
    novo = inserir_uc(
        conn, 4, "Município D", poligono(quadrado(-60.0, -6.0, -59.0, -4.0)), territorio.uf
    )

    relatorio = regeo.acompanhar(conn, regra=resolver.NearRule.de(settings))

    assert relatorio["revisoes_resolvidas"] == 1
    assert _outcome(conn, event_id)[:5] == (novo, 4, "gps", "media", "proximidade")
    assert {s["payload"]["demanda_id"] for s in saidas(conn)} == {demanda}
