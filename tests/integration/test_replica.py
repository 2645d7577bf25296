"""The event-synced replica (spec Phase 2): the mirror built from
uc.poligono_* events answers every point as the mirror built from core.uc_polygons does;
a replica started from empty catches up from the log; changes by event move the mirror
and the re-georeferencing follow-up; hostile events end in the dead letters and the
drain goes on; a consumer stopped mid-catch-up resumes without loss or duplicates."""

from __future__ import annotations

import random
import uuid
from typing import Any

import psycopg
import pytest

from d2 import config, errors
from d2.eventlog import registry
from d2.importers import sample
from d2.territorio import replica
from tests.support import Conn, drenar
from tests.support.events import inserir_evento, inserir_evento_importador
from tests.support.territorio import poligono, quadrado, resolver_batch

ESCALA = 128  # = d2.faixas_por_grau(): points exactly on band edges


def _pontos(
    conn: Conn, n_aleatorios: int, n_vertices: int, seed: int = 7
) -> list[tuple[float, float]]:
    """Random points over the territory's box, polygon vertices (shared borders, in a
    coverage), and points exactly on band edges."""
    caixa = conn.execute(
        "SELECT ST_XMin(e) AS x0, ST_YMin(e) AS y0, ST_XMax(e) AS x1, ST_YMax(e) AS y1"
        " FROM (SELECT ST_Extent(geom)::geometry AS e FROM d2.mirror_uc) t"
    ).fetchone()
    assert caixa is not None and caixa["x0"] is not None
    rng = random.Random(seed)
    pontos = [
        (rng.uniform(caixa["y0"], caixa["y1"]), rng.uniform(caixa["x0"], caixa["x1"]))
        for _ in range(n_aleatorios)
    ]
    vertices = conn.execute(
        "SELECT ST_Y(d.geom) AS lat, ST_X(d.geom) AS lng"
        " FROM (SELECT (ST_DumpPoints(geom)).geom FROM d2.mirror_uc) d"
        " ORDER BY md5(ST_AsText(d.geom)) LIMIT %(n)s",
        {"n": n_vertices},
    ).fetchall()
    pontos += [(v["lat"], v["lng"]) for v in vertices]
    for _ in range(n_aleatorios // 10):
        faixa = rng.randint(int(caixa["y0"] * ESCALA), int(caixa["y1"] * ESCALA))
        pontos.append((faixa / ESCALA, rng.uniform(caixa["x0"], caixa["x1"])))
    return pontos


def _equivalentes(conn: Conn, settings: config.Settings, pontos_n: tuple[int, int]) -> None:
    assert replica.fonte(conn) == "core"
    pontos = _pontos(conn, *pontos_n)
    de_core = resolver_batch(conn, pontos)
    feito = replica.definir_fonte(conn, settings, "eventos")
    assert feito["replica"]["dead_letters"] == 0
    assert replica.fonte(conn) == "eventos"
    contagem = conn.execute(
        "SELECT (SELECT count(*) FROM core.uc_polygons) AS core,"
        " (SELECT count(*) FROM d2.replica_uc) AS replica,"
        " (SELECT count(*) FROM d2.mirror_uc) + (SELECT count(*) FROM d2.mirror_rejected)"
        " AS espelho"
    ).fetchone()
    assert contagem is not None and contagem["core"] == contagem["replica"] == contagem["espelho"]
    de_eventos = resolver_batch(conn, pontos)
    assert sum(1 for r in de_core.values() if r[0] is not None) > len(pontos) // 3
    diferentes = [
        (pontos[i - 1], de_core[i], de_eventos.get(i))
        for i in de_core
        if de_core[i] != de_eventos.get(i)
    ]
    assert not diferentes, diferentes[:5]
    assert len(de_eventos) == len(de_core)


def test_replica__sample_territory_same_answers_from_events(db_url: str, conn: Conn) -> None:
    resumo = sample.load_sample(db_url)
    total = conn.execute("SELECT count(*) AS n FROM core.uc_polygons").fetchone()
    assert total is not None
    assert resumo.eventos["adicionados"] == total["n"] > 0
    _equivalentes(conn, config.load(), (3000, 2000))


@pytest.mark.shared_data
def test_replica__shared_data_same_answers_from_events(brasil_conn: Conn) -> None:
    _equivalentes(brasil_conn, config.load(), (6000, 3000))


def test_replica__every_published_event_is_registry_valid_and_idempotent(
    db_url: str, conn: Conn
) -> None:
    sample.load_sample(db_url)
    eventos = conn.execute(
        "SELECT tipo, versao_schema, payload FROM core.event_log WHERE tipo LIKE 'uc.poligono_%'"
    ).fetchall()
    assert eventos
    for e in eventos:
        registry.validar(e["tipo"], e["payload"], e["versao_schema"])
    assert _publicar_estado(conn) == dict(adicionados=0, atualizados=0, removidos=0, recusados=0)
    # A rename and a removal publish exactly their events.
    alvo = conn.execute(
        "SELECT id FROM core.uc_polygons WHERE nivel = 2 ORDER BY id LIMIT 2"
    ).fetchall()
    conn.execute("UPDATE core.uc_polygons SET nome = 'Renomeado' WHERE id = %s", [alvo[0]["id"]])
    conn.execute("DELETE FROM core.uc_polygons WHERE id = %s", [alvo[1]["id"]])
    assert _publicar_estado(conn) == dict(adicionados=0, atualizados=1, removidos=1, recusados=0)
    ultimos = conn.execute(
        "SELECT tipo, versao_schema, payload FROM core.event_log"
        " WHERE tipo IN ('uc.poligono_atualizado', 'uc.poligono_removido')"
    ).fetchall()
    assert sorted(e["tipo"] for e in ultimos) == ["uc.poligono_atualizado", "uc.poligono_removido"]
    for e in ultimos:
        registry.validar(e["tipo"], e["payload"], e["versao_schema"])


def _publicar_estado(conn: Conn) -> dict[str, int]:
    """`d2 mirror publicar-estado` in its transaction; what it published."""
    with conn.transaction():
        return replica.publicar_estado(conn)


def _uc_evento(
    conn: Conn, tipo: str, poligono_id: uuid.UUID, uc: uuid.UUID, forma: Any, **mais: Any
) -> uuid.UUID:
    payload: dict[str, Any] = {
        "unidade_civica_id": str(uc),
        "uc_polygon_id": str(poligono_id),
        "nivel": 4,
        "nome": "Município do Evento",
        "parent_uc_id": None,
        "fonte": "teste",
        "geometria": forma,
    }
    if tipo == "uc.poligono_removido":
        payload = {k: payload[k] for k in ("unidade_civica_id", "uc_polygon_id", "nivel")}
        payload["motivo"] = "importacao"
    elif tipo == "uc.poligono_atualizado":
        payload["motivo"] = "importacao"
    payload.update(mais)
    return inserir_evento_importador(conn, payload, tipo=tipo)


def _dois_vizinhos_por_eventos(
    conn: Conn, db_url: str
) -> tuple[uuid.UUID, uuid.UUID, uuid.UUID, uuid.UUID]:
    """The mirror switched to the replica, then two neighbouring municipalities a | b
    added by events and drained: (polygon a, its UC, polygon b, its UC)."""
    replica.definir_fonte(conn, config.load(), "eventos")
    a, uc_a = uuid.uuid4(), uuid.uuid4()
    b, uc_b = uuid.uuid4(), uuid.uuid4()
    _uc_evento(conn, "uc.poligono_adicionado", a, uc_a, poligono(quadrado(-50, -20, -49, -19)))
    _uc_evento(conn, "uc.poligono_adicionado", b, uc_b, poligono(quadrado(-49, -20, -48, -19)))
    drenar(db_url)
    return a, uc_a, b, uc_b


def test_replica__from_empty_catches_up_and_follows_each_kind_of_event(
    db_url: str, conn: Conn
) -> None:
    a, uc_a, b, uc_b = _dois_vizinhos_por_eventos(conn, db_url)
    assert resolver_batch(conn, [(-19.5, -49.5), (-19.5, -48.5)]) == {
        1: (uc_a, 4, [uc_a]),
        2: (uc_b, 4, [uc_b]),
    }
    # Nothing of this is in core: the mirror follows the events only.
    assert conn.execute("SELECT count(*) AS n FROM core.uc_polygons").fetchone() == {"n": 0}

    # b's border moves west over half of a, then a goes, then a removal of a polygon the
    # replica never saw (nothing to remove: 'ausente', not a dead letter).
    _uc_evento(conn, "uc.poligono_atualizado", b, uc_b, poligono(quadrado(-49.5, -20, -48, -19)))
    _uc_evento(conn, "uc.poligono_removido", a, uc_a, None)
    _uc_evento(conn, "uc.poligono_removido", uuid.uuid4(), uuid.uuid4(), None)  # never seen
    drenar(db_url)
    assert resolver_batch(conn, [(-19.5, -49.75), (-19.5, -49.25)]) == {2: (uc_b, 4, [uc_b])}
    outcomes = conn.execute(
        "SELECT desfecho, count(*) AS n FROM d2.replica_eventos GROUP BY desfecho ORDER BY 1"
    ).fetchall()
    assert {r["desfecho"]: r["n"] for r in outcomes} == {
        "aplicado": 3,
        "ausente": 1,
        "removido": 1,
    }


def test_replica__a_change_by_event_re_georeferences_stored_answers(
    db_url: str, conn: Conn
) -> None:
    """The follow-up hangs off the mirror, whatever fed it: an atualizado that moves a
    border rewrites the stored answers inside the moved strip."""
    from tests.support.events import payload_normalizada

    a, uc_a, b, uc_b = _dois_vizinhos_por_eventos(conn, db_url)
    demanda = uuid.uuid4()
    inserir_evento(conn, payload_normalizada(-19.5, -49.25, demanda_id=demanda))
    drenar(db_url)
    antes = conn.execute(
        "SELECT unidade_civica_id FROM d2.resolucoes_geo WHERE demanda_id = %s", [demanda]
    ).fetchone()
    assert antes == {"unidade_civica_id": uc_a}
    _uc_evento(conn, "uc.poligono_atualizado", a, uc_a, poligono(quadrado(-50, -20, -49.5, -19)))
    _uc_evento(conn, "uc.poligono_atualizado", b, uc_b, poligono(quadrado(-49.5, -20, -48, -19)))
    drenar(db_url)
    depois = conn.execute(
        "SELECT unidade_civica_id FROM d2.resolucoes_geo WHERE demanda_id = %s", [demanda]
    ).fetchone()
    assert depois == {"unidade_civica_id": uc_b}
    assert conn.execute("SELECT count(*) AS n FROM d2.resolucoes_geo_historico").fetchone() == {
        "n": 1
    }


HOSTIS: dict[str, dict[str, Any]] = {
    "not_a_polygon": {"geometria": {"type": "Point", "coordinates": [-49, -19]}},
    "geometry_not_object": {"geometria": "POLYGON((0 0,1 0,1 1,0 0))"},
    "level_out_of_range": {"nivel": 9},
    "uc_not_uuid": {"unidade_civica_id": "não-é-uuid"},
    "missing_polygon_id": {"uc_polygon_id": None},
}


def test_replica__hostile_events_are_dead_lettered_and_the_drain_goes_on(
    db_url: str, conn: Conn
) -> None:
    settings = config.load()
    replica.definir_fonte(conn, settings, "eventos")
    quadrado_ok = poligono(quadrado(-50, -20, -49, -19))
    ids = {}
    for nome, change in HOSTIS.items():
        ids[nome] = _uc_evento(
            conn, "uc.poligono_adicionado", uuid.uuid4(), uuid.uuid4(), quadrado_ok, **change
        )
    ids["not_json_object"] = inserir_evento(
        conn, [1, 2], tipo="uc.poligono_adicionado", versao="1.0.0", origem="D-2"
    )
    ids["unknown_version"] = _uc_evento(
        conn, "uc.poligono_adicionado", uuid.uuid4(), uuid.uuid4(), quadrado_ok
    )
    conn.execute(
        "UPDATE core.event_log SET versao_schema = '9.0.0' WHERE event_id = %s",
        [ids["unknown_version"]],
    )
    # Larger than the bound for these types: never fetched, dead-lettered.
    enorme = {"type": "Polygon", "coordinates": [[[-49.0, -19.0]] * 4000 + [[-49.0, -19.0]]]}
    ids["too_large"] = _uc_evento(
        conn, "uc.poligono_adicionado", uuid.uuid4(), uuid.uuid4(), enorme
    )
    bom, uc_bom = uuid.uuid4(), uuid.uuid4()
    _uc_evento(conn, "uc.poligono_adicionado", bom, uc_bom, quadrado_ok)
    repetido = _uc_evento(conn, "uc.poligono_adicionado", uuid.uuid4(), uuid.uuid4(), quadrado_ok)

    pequeno = config.Settings(**{**settings.__dict__, "max_payload_bytes_uc": 50_000})
    feito = replica.drenar(conn, pequeno)
    assert feito.dead_letters == len(ids)
    cartas = conn.execute(
        "SELECT event_id, erro FROM core.dead_letter_queue WHERE consumidor = 'D-2/replica'"
    ).fetchall()
    assert {c["event_id"] for c in cartas} == set(ids.values())
    assert all("\n" not in c["erro"] for c in cartas)
    assert feito.por_outcome["aplicado"] == 2
    # A replay applies nothing twice.
    conn.execute(
        "UPDATE d2.consumer_offset SET last_sequence = 0 WHERE tipo_evento = 'uc.poligono_*'"
    )
    conn.execute("DELETE FROM d2.consumer_offset_transacao WHERE tipo_evento = 'uc.poligono_*'")
    de_novo = replica.drenar(conn, pequeno)
    assert de_novo.por_outcome["aplicado"] == 0
    assert de_novo.por_outcome["repetido"] == 2
    linha = conn.execute(
        "SELECT count(*) AS n FROM d2.replica_eventos WHERE event_id = %s", [repetido]
    ).fetchone()
    assert linha == {"n": 1}


def test_replica__a_consumer_stopped_mid_catch_up_resumes_without_loss_or_duplicates(
    db_url: str, conn: Conn, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The drain is cut after some events (a failure in the middle of one of them: its
    transaction rolls back); the next drain finishes: every event applied once."""
    settings = config.load()
    replica.definir_fonte(conn, settings, "eventos")
    for i in range(30):
        _uc_evento(
            conn,
            "uc.poligono_adicionado",
            uuid.uuid4(),
            uuid.uuid4(),
            poligono(quadrado(-50 + i * 0.1, -20, -49.9 + i * 0.1, -19.9)),
        )
    original = registry.validar
    chamadas = {"n": 0}

    def falha_no_meio(*args: Any, **kw: Any) -> str:
        chamadas["n"] += 1
        if chamadas["n"] == 12:
            raise psycopg.OperationalError("server closed the connection unexpectedly")
        return original(*args, **kw)

    monkeypatch.setattr(registry, "validar", falha_no_meio)
    # A transient failure propagates (as d2.errors, mapped at the database boundary).
    with pytest.raises(errors.TransientDatabaseError):
        replica.drenar(conn, settings)
    monkeypatch.setattr(registry, "validar", original)
    parcial = conn.execute("SELECT count(*) AS n FROM d2.replica_uc").fetchone()
    assert parcial == {"n": 11}
    replica.drenar(conn, settings)
    final = conn.execute(
        "SELECT (SELECT count(*) FROM d2.replica_uc) AS uc,"
        " (SELECT count(*) FROM d2.replica_eventos) AS eventos,"
        " (SELECT count(*) FROM core.dead_letter_queue) AS mortos"
    ).fetchone()
    assert final == {"uc": 30, "eventos": 30, "mortos": 0}
