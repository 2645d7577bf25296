"""Proposals to the event-synced replica: uc.poligono_* events D-2's importers did not
publish, whatever origem and fonte they declare. A colony holding only INSERT on
core.event_log, declaring origem 'D-2', published one level-1 polygon of fonte
'prefeitura' without parent per official UC, shaped as that UC minus a tiny square
around every interior point the old bound sampled: every one was applied as official,
none counted toward the breaker, and every stored answer moved to the forged units. Here
each attack is replayed with that role and the worker runs as a d2_worker login; the
defences are the judgement of a proposal by what it would take (d2.replica_proposta),
its community rank, the owner's limits (d2.replica_limites) and the cleaning of names."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import psycopg
import pytest

from d2 import config
from d2.importers import osm, sample
from d2.ops import status
from d2.territorio import comunitario, mirror, replica
from tests.integration.test_replica_security import (
    _cartas,
    _estado,
    _forjar,
    _limites,
    _territorio_e_respostas,
)
from tests.support import Conn, drenar
from tests.support.events import inserir_evento_importador, submeter_drawing
from tests.support.territorio import (
    TerritorioDrawings,
    micro_areas,
    poligono,
    quadrado,
    quadrado_em,
)

# What a terminal would act on: ESC/CSI (clear screen), CR/LF (a forged line), OSC, a
# C1 control, the right-to-left override, a zero-width joiner.
HOSTIL = "\x1b[2J\rmoderacao aceita\n\x1b]0;titulo\x07\x9b31m\u202eairtsudnI\u200d"


def _furados(conn: Conn) -> list[dict[str, Any]]:
    """Each official UC of levels 1-4 as a GeoJSON polygon minus a 0.0001° square around
    every interior point (ST_PointOnSurface) of the UCs it holds, its own included."""
    return conn.execute(
        "SELECT u.unidade_civica_id AS uc, ST_AsGeoJSON(ST_Difference(u.geom, coalesce("
        "  (SELECT ST_Union(ST_Expand(ST_PointOnSurface(m.geom), 0.00005))"
        "   FROM d2.mirror_uc m WHERE ST_Intersects(u.geom, ST_PointOnSurface(m.geom))),"
        "  'POLYGON EMPTY'::geometry)))::jsonb AS forma"
        " FROM d2.mirror_uc u WHERE u.nivel <= 4 ORDER BY u.unidade_civica_id"
    ).fetchall()


@pytest.mark.parametrize(
    "sob", ["sem_pai", "sob_a_propria_uc"], ids=["parent_null", "under_the_uc"]
)
def test_replica__pinhole_polygons_over_every_official_uc_take_no_answer(
    conn: Conn, db_url: str, login_url: str, colonia: Conn, sob: str
) -> None:
    antes = _territorio_e_respostas(conn, db_url, login_url)
    furados = _furados(conn)
    assert len(furados) == 13
    forjados = [
        _forjar(
            colonia,
            "uc.poligono_adicionado",
            {
                "unidade_civica_id": str(uuid.uuid4()),
                "uc_polygon_id": str(uuid.uuid4()),
                "nivel": 1,
                "nome": "Unidade da prefeitura",
                "parent_uc_id": str(f["uc"]) if sob == "sob_a_propria_uc" else None,
                "fonte": "prefeitura",
                "geometria": f["forma"],
            },
        )
        for f in furados
    ]
    drenar(login_url)
    assert _estado(conn) == antes
    cartas = _cartas(conn, forjados)
    assert len(cartas) == len(forjados) and all("refused" in c for c in cartas), cartas[:3]
    assert status.status(conn)["replica"]["parada"] is None


def test_replica__a_proposal_ranks_as_community_and_is_bounded_by_the_answers_it_takes(
    conn: Conn, db_url: str, login_url: str, colonia: Conn
) -> None:
    """Within every bound of area, a proposal is still refused past the stored answers
    the owner lets one take; under it, it is applied with community rank whatever fonte
    it claims, and the answers it took are counted."""
    _territorio_e_respostas(conn, db_url, login_url)
    _limites(conn, respostas_max=0)
    grande, pequena = micro_areas(conn, 2, com_respostas=True)
    recusada = _forjar(colonia, "uc.poligono_adicionado", grande | {"fonte": "prefeitura"})
    drenar(login_url)
    [carta] = _cartas(conn, [recusada])
    assert "stored answers (at most 0)" in carta
    _limites(conn, respostas_max=50)
    aceita = _forjar(colonia, "uc.poligono_adicionado", pequena | {"fonte": "prefeitura"})
    drenar(login_url)
    assert _cartas(conn, [aceita]) == []
    linha = conn.execute(
        "SELECT r.fonte, r.oficial, m.prioridade, e.tomadas, e.disjuntor"
        " FROM d2.replica_uc r JOIN d2.mirror_uc m ON m.uc_polygon_id = r.id"
        " JOIN d2.replica_eventos e ON e.event_id = r.event_id WHERE r.event_id = %(id)s",
        {"id": aceita},
    ).fetchone()
    assert linha is not None
    assert (linha["fonte"], linha["oficial"], linha["prioridade"]) == ("comunitario", False, 1)
    assert linha["tomadas"] >= 1 and linha["disjuntor"]
    movidas = conn.execute(
        "SELECT count(*) AS n FROM d2.resolucoes_geo WHERE unidade_civica_id = %(uc)s",
        {"uc": pequena["unidade_civica_id"]},
    ).fetchone()
    assert movidas is not None and movidas["n"] == linha["tomadas"]


def test_replica__a_stolen_worker_login_cannot_change_the_limits_or_stop_the_replica(
    conn: Conn, como_worker: Conn, colonia: Conn
) -> None:
    antes = conn.execute("SELECT * FROM d2.replica_limites").fetchall()
    for ataque in (
        "UPDATE d2.replica_limites SET disjuntor_max = 1000000, origens = '{D-2,X}'",
        "DELETE FROM d2.replica_limites",
        "INSERT INTO d2.replica_limites (unica) VALUES (true)",
        "INSERT INTO d2.replica_paradas (event_id, motivo) VALUES (gen_random_uuid(), 'x')",
        "UPDATE d2.replica_paradas SET retomada_em = now()",
    ):
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            como_worker.execute(ataque)
    # The previous signatures, which took the limits and the motivo from the caller, are
    # gone.
    with pytest.raises(psycopg.errors.UndefinedFunction):
        como_worker.execute(
            "SELECT * FROM d2.replica_aplicar(gen_random_uuid(), '{D-2}', 1000000, 1)"
        )
    with pytest.raises(psycopg.errors.UndefinedFunction):
        como_worker.execute("SELECT d2.replica_parar(gen_random_uuid(), 'parado')")
    # Stopping needs the breaker to hold the event: the worker's word is not enough.
    evento = _forjar(
        colonia,
        "uc.poligono_removido",
        {"unidade_civica_id": str(uuid.uuid4()), "uc_polygon_id": str(uuid.uuid4()), "nivel": 1},
    )
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="does not hold"):
        como_worker.execute("SELECT d2.replica_parar(%(id)s::uuid)", {"id": evento})
    assert conn.execute("SELECT count(*) AS n FROM d2.replica_paradas").fetchone() == {"n": 0}
    assert conn.execute("SELECT count(*) AS n FROM d2.replica_eventos").fetchone() == {"n": 0}
    assert conn.execute("SELECT * FROM d2.replica_limites").fetchall() == antes


def test_replica__hostile_names_are_stored_cleaned(
    conn: Conn, db_url: str, login_url: str, colonia: Conn
) -> None:
    sample.load_sample(db_url)
    replica.definir_fonte(conn, config.load(), "eventos")
    proposta, do_importador = micro_areas(conn, 2)
    _forjar(colonia, "uc.poligono_adicionado", proposta | {"nome": HOSTIL})
    inserir_evento_importador(
        conn,
        do_importador | {"nome": HOSTIL, "fonte": "ibge", "parent_uc_id": None},
        tipo="uc.poligono_adicionado",
    )
    drenar(login_url)
    nomes = conn.execute("SELECT nome FROM d2.replica_uc WHERE nivel = 1 ORDER BY nome").fetchall()
    assert len(nomes) == 2
    for linha in nomes:
        assert linha["nome"] == "[2Jmoderacao aceita]0;titulo31mairtsudnI"


def test_replica__d2s_own_drawings_flow_unattended_a_micro_area_inside_a_new_bairro(
    conn: Conn, territorio_drawings: TerritorioDrawings, settings: config.Settings
) -> None:
    """The drawings' events are proposals too, and flow as they did: a bairro and a
    micro-area inside it, drawn and published in one round, are both applied by the next
    drain (the micro-area judged once the mirror holds its new parent)."""
    with conn.transaction():
        replica.publicar_estado(conn)  # the territory, as the importers publish it
    replica.definir_fonte(conn, settings, "eventos")
    bairro = submeter_drawing(conn, quadrado_em(-54.95, -22.05))
    micro = submeter_drawing(conn, quadrado_em(-54.948, -22.048, lado=0.002), nivel=1, nome="Vila")
    assert comunitario.drenar(conn, settings).por_decisao["nova"] == 2

    feito = replica.drenar(conn, settings)
    mirror.aplicar(conn)

    assert (feito.por_outcome["aplicado"], feito.dead_letters, feito.parada) == (2, 0, None)
    ucs = {
        e: conn.execute(
            "SELECT alvo_uc_id FROM d2.territorio_submissoes WHERE event_id = %(e)s", {"e": e}
        ).fetchone()["alvo_uc_id"]  # type: ignore[index]
        for e in (bairro, micro)
    }
    resolvido = conn.execute("SELECT * FROM d2.resolver_territorio(-22.047, -54.947)").fetchone()
    assert resolvido is not None
    assert resolvido["cadeia_ucs"][:3] == [ucs[micro], ucs[bairro], territorio_drawings.municipio]


# An OSM bairro in Campo Largo (sample territory, no IBGE bairro), and a point inside it.
BAIRRO_OSM = {
    "type": "FeatureCollection",
    "features": [
        {
            "type": "Feature",
            "id": "relation/7001",
            "properties": {"@id": "relation/7001", "admin_level": "10", "name": "Vila OSM"},
            "geometry": poligono(quadrado(-54.5, -12.5, -54.4, -12.4)),
        }
    ],
}


def _importar_osm(db_url: str, tmp_path: Path) -> uuid.UUID:
    arquivo = tmp_path / "bairro.geojson"
    arquivo.write_text(json.dumps(BAIRRO_OSM), encoding="utf-8")
    osm.importar_osm(db_url, arquivo)
    return osm.uc_id("relation/7001")


def _no_resolver(conn: Conn) -> Any:
    row = conn.execute(
        "SELECT unidade_civica_id FROM d2.resolver_territorio(-12.45, -54.45)"
    ).fetchone()
    return row["unidade_civica_id"] if row else None


def _remocao(colonia: Conn, proposta: dict[str, Any]) -> uuid.UUID:
    campos = {k: proposta[k] for k in ("unidade_civica_id", "uc_polygon_id", "nivel")}
    return _forjar(colonia, "uc.poligono_removido", campos | {"motivo": "moderacao"})


def test_replica__removals_of_proposals_that_took_nothing_do_not_trip_the_breaker(
    conn: Conn, db_url: str, login_url: str, colonia: Conn, tmp_path: Path
) -> None:
    """Before: 21 tiny proposals of a producer's own, then their 21 removals, tripped the
    breaker; an official OSM import made afterwards never reached the resolver until `d2
    mirror resume`. Now a removal gives back what its addition took: nothing here."""
    _territorio_e_respostas(conn, db_url, login_url)
    propostas = micro_areas(conn, 21)
    for p in propostas:
        _forjar(colonia, "uc.poligono_adicionado", p)
    for p in propostas:
        _remocao(colonia, p)
    drenar(login_url)
    parada = status.status(conn)["replica"]["parada"]
    bairro = _importar_osm(db_url, tmp_path)
    drenar(login_url)
    mirror.aplicar(conn)
    print(f"breaker tripped: {parada is not None}; OSM bairro in the resolver: "
          f"{_no_resolver(conn) == bairro}")  # fmt: skip
    assert parada is None
    assert _no_resolver(conn) == bairro
    assert conn.execute("SELECT count(*) AS n FROM d2.replica_uc WHERE nivel = 1").fetchone() == {
        "n": 0
    }


def test_replica__a_removal_gives_back_what_its_addition_took_and_counts(
    conn: Conn, db_url: str, login_url: str, colonia: Conn
) -> None:
    """The control: removing proposals that took stored answers counts as their additions
    did, with the answers they took: the breaker still stops mass changes."""
    _territorio_e_respostas(conn, db_url, login_url)
    _limites(conn, disjuntor_max=5)
    propostas = micro_areas(conn, 3, com_respostas=True)
    for p in propostas:
        _forjar(colonia, "uc.poligono_adicionado", p)
    remocoes = [_remocao(colonia, p) for p in propostas]
    drenar(login_url)
    parada = status.status(conn)["replica"]["parada"]
    assert parada is not None and parada["event_id"] == remocoes[2]
    contadas = conn.execute(
        "SELECT e.tipo, e.tomadas FROM d2.replica_eventos e WHERE e.disjuntor ORDER BY aplicado_em"
    ).fetchall()
    assert [c["tipo"] for c in contadas] == ["uc.poligono_adicionado"] * 3 + [
        "uc.poligono_removido"
    ] * 2
    assert [c["tomadas"] for c in contadas[3:]] == [c["tomadas"] for c in contadas[:2]]


def test_replica__the_importers_events_flow_while_the_breaker_holds_proposals(
    conn: Conn, db_url: str, login_url: str, colonia: Conn, tmp_path: Path
) -> None:
    """Before: a stopped replica applied nothing, the importers' events included, so an
    official import stayed out of the resolver until an operator resumed. Now the
    importers' recorded events keep flowing; the proposals wait for the resume, in their
    order, and one a later event superseded is not applied over it."""
    _territorio_e_respostas(conn, db_url, login_url)
    _limites(conn, disjuntor_max=3)
    micros = micro_areas(conn, 6, com_respostas=True)
    forjados = [_forjar(colonia, "uc.poligono_adicionado", m) for m in micros]
    drenar(login_url)
    parada = status.status(conn)["replica"]["parada"]
    assert parada is not None and parada["event_id"] == forjados[3]
    bairro = _importar_osm(db_url, tmp_path)
    # The importers publish one held proposal's polygon themselves, later and smaller
    # (as they republish a community row of core.uc_polygons): the later state.
    x, y = micros[4]["geometria"]["coordinates"][0][0]
    depois = micros[4] | {
        "geometria": poligono(quadrado(x, y, x + 0.001, y + 0.001)),
        "motivo": "importacao",
    }
    inserir_evento_importador(conn, depois, tipo="uc.poligono_atualizado")
    drenar(login_url)
    mirror.aplicar(conn)
    print(f"OSM bairro in the resolver while stopped: {_no_resolver(conn) == bairro}")
    assert _no_resolver(conn) == bairro
    assert status.status(conn)["replica"]["parada"]["event_id"] == forjados[3]
    held = conn.execute(
        "SELECT count(*) AS n FROM d2.replica_eventos WHERE event_id = ANY(%(ids)s)",
        {"ids": forjados[3:]},
    ).fetchone()
    assert held == {"n": 0}

    replica.retomar(conn, por="ana", descartar_remocoes=False)
    _limites(conn, disjuntor_max=20)
    drenar(login_url)
    finais = conn.execute(
        "SELECT event_id, desfecho FROM d2.replica_eventos WHERE event_id = ANY(%(ids)s)",
        {"ids": forjados},
    ).fetchall()
    assert {r["event_id"]: r["desfecho"] for r in finais} == {
        e: ("superado" if i == 4 else "aplicado") for i, e in enumerate(forjados)
    }
    forma = conn.execute(
        "SELECT geometria FROM d2.replica_uc WHERE id = %(id)s", {"id": micros[4]["uc_polygon_id"]}
    ).fetchone()
    assert forma is not None and forma["geometria"] == depois["geometria"]
    assert _no_resolver(conn) == bairro
