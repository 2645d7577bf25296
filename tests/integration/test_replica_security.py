"""Forged uc.poligono_* events. With the mirror built from events, a colony whose role
may only INSERT into core.event_log wrote, under origem 'D-2', a removal of every UC and
one polygon over Brazil: the mirror was left with one polygon and every stored answer
was rewritten and republished. Each test here replays such an attack with that role and
plain INSERTs, runs the worker as a login holding d2_worker, and asserts what the
defences keep: the allow-list of origins, the importers' own record of what they
published (d2.poligonos_eventos), the judgement of every other event as a proposal, and
the breaker on mass removals and takings, whose limits only the owner sets
(d2.replica_limites). The proposals' own attacks: test_replica_attacks.py."""

from __future__ import annotations

import json
import uuid
from typing import Any

import psycopg
import pytest
from psycopg import sql

from d2 import cli, config, errors
from d2.importers import sample
from d2.ops import status
from d2.territorio import replica
from tests.support import Conn, drenar, semear_cursor
from tests.support.events import inserir_evento, inserir_evento_importador, payload_normalizada
from tests.support.territorio import micro_areas, poligono, quadrado

BRASIL = poligono(quadrado(-75.0, -35.0, -28.0, 7.0))


def _forjar(colonia: Conn, tipo: str, payload: dict[str, Any], origem: str = "D-2") -> uuid.UUID:
    """One event, as the colony writes it: a plain INSERT with the origem it chooses."""
    event_id = uuid.uuid4()
    colonia.execute(
        "INSERT INTO core.event_log (event_id, tipo, versao_schema, origem, payload)"
        " VALUES (%(id)s, %(tipo)s, '1.0.0', %(origem)s, %(payload)s::jsonb)",
        {"id": event_id, "tipo": tipo, "origem": origem, "payload": json.dumps(payload)},
    )
    return event_id


def _estado(conn: Conn) -> dict[str, Any]:
    """What an attack on the territory would change: the mirror, every stored answer,
    what was published, the answers' history."""
    linha = conn.execute(
        "SELECT (SELECT count(*) FROM d2.mirror_uc) AS mirror_uc,"
        " (SELECT count(*) FROM d2.replica_uc) AS replica_uc,"
        " (SELECT count(*) FROM d2.resolucoes_geo_historico) AS historico,"
        " (SELECT count(*) FROM core.event_log WHERE tipo = 'demanda.georreferenciada')"
        "   AS publicados"
    ).fetchone()
    assert linha is not None
    respostas = conn.execute(
        "SELECT demanda_id, unidade_civica_id, nivel_minimo_resolvido, cadeia_ucs"
        " FROM d2.resolucoes_geo ORDER BY demanda_id"
    ).fetchall()
    return {**linha, "respostas": respostas}


def _territorio_e_respostas(conn: Conn, db_url: str, login_url: str) -> dict[str, Any]:
    """The sample territory imported (its events are the importer's), the mirror switched
    to the events, and 25 demands at random points of every bairro and município,
    resolved by the worker as the d2_worker login. Returns _estado."""
    sample.load_sample(db_url)
    replica.definir_fonte(conn, config.load(), "eventos")
    semear_cursor(conn)
    pontos = conn.execute(
        "SELECT ST_Y(d.geom) AS lat, ST_X(d.geom) AS lng FROM d2.mirror_uc m,"
        " ST_Dump(ST_GeneratePoints(m.geom, 25, 29)) d WHERE m.nivel <= 4"
    ).fetchall()
    for ponto in pontos:
        inserir_evento(conn, payload_normalizada(ponto["lat"], ponto["lng"]))
    drenar(login_url)
    antes = _estado(conn)
    assert len(antes["respostas"]) == len(pontos) > 100
    return antes


def _cartas(conn: Conn, ids: list[uuid.UUID]) -> list[str]:
    linhas = conn.execute(
        "SELECT erro FROM core.dead_letter_queue"
        " WHERE consumidor = 'D-2/replica' AND event_id = ANY(%(ids)s)",
        {"ids": ids},
    ).fetchall()
    assert all("\n" not in r["erro"] and len(r["erro"]) < 300 for r in linhas)
    return [r["erro"] for r in linhas]


def test_replica__forged_removal_of_every_uc_leaves_the_mirror_and_the_answers_whole(
    conn: Conn, db_url: str, login_url: str, colonia: Conn
) -> None:
    antes = _territorio_e_respostas(conn, db_url, login_url)
    # The ids, as any reader of the log finds them in the importer's events.
    poligonos = conn.execute(
        "SELECT payload FROM core.event_log WHERE tipo = 'uc.poligono_adicionado'"
    ).fetchall()
    forjados = [
        _forjar(
            colonia,
            "uc.poligono_removido",
            {
                "unidade_civica_id": p["payload"]["unidade_civica_id"],
                "uc_polygon_id": p["payload"]["uc_polygon_id"],
                "nivel": p["payload"]["nivel"],
                "motivo": "importacao",
            },
        )
        for p in poligonos
    ]
    drenar(login_url)
    assert _estado(conn) == antes
    cartas = _cartas(conn, forjados)
    assert len(cartas) == len(forjados)
    assert all("not published by D-2's importers" in c for c in cartas), cartas[:3]
    assert status.status(conn)["replica"]["parada"] is None


@pytest.mark.parametrize(
    ("fonte", "sob_o_brasil", "motivo"),
    [
        ("ibge", False, "refused: as a drawing"),
        ("geo", True, "refused: as a drawing"),
        ("geo", False, "refused: as a drawing"),
    ],
    ids=["claiming_ibge", "under_brasil_as_parent", "without_parent"],
)
def test_replica__a_forged_polygon_over_brazil_takes_no_answer(
    conn: Conn,
    db_url: str,
    login_url: str,
    colonia: Conn,
    fonte: str,
    sob_o_brasil: bool,
    motivo: str,
) -> None:
    antes = _territorio_e_respostas(conn, db_url, login_url)
    brasil = conn.execute(
        "SELECT unidade_civica_id, ST_AsGeoJSON(ST_Envelope(geom))::jsonb AS caixa"
        " FROM d2.mirror_uc WHERE nivel = 7"
    ).fetchone()
    assert brasil is not None
    forjado = _forjar(
        colonia,
        "uc.poligono_adicionado",
        {
            "unidade_civica_id": str(uuid.uuid4()),
            "uc_polygon_id": str(uuid.uuid4()),
            "nivel": 1,
            "nome": "Brasil inteiro",
            "parent_uc_id": str(brasil["unidade_civica_id"]) if sob_o_brasil else None,
            "fonte": fonte,
            # Under the país, exactly its box: nothing reaches beyond the parent.
            "geometria": brasil["caixa"] if sob_o_brasil else BRASIL,
        },
    )
    drenar(login_url)
    assert _estado(conn) == antes
    [carta] = _cartas(conn, [forjado])
    assert motivo in carta


def _limites(conn: Conn, **valores: Any) -> None:
    """The owner sets the replica's limits (d2.replica_limites), as an operator does."""
    for coluna, valor in valores.items():
        conn.execute(
            sql.SQL("UPDATE d2.replica_limites SET {} = %(v)s").format(sql.Identifier(coluna)),
            {"v": valor},
        )


def test_replica__an_origin_outside_the_allow_list_is_dead_lettered(
    conn: Conn, db_url: str, colonia: Conn, login_url: str
) -> None:
    sample.load_sample(db_url)
    replica.definir_fonte(conn, config.load(), "eventos")
    estranho, aceito = micro_areas(conn, 2, nome="Micro-área de outra colônia")
    estranho_id = _forjar(colonia, "uc.poligono_adicionado", estranho, "D-4")
    drenar(login_url)
    assert conn.execute("SELECT count(*) AS n FROM d2.replica_uc WHERE nivel = 1").fetchone() == {
        "n": 0
    }
    [carta] = _cartas(conn, [estranho_id])
    assert "origem 'D-4'" in carta and "d2.replica_limites.origens" in carta
    # Listed by the owner, the same producer's proposal is applied.
    _limites(conn, origens=["D-2", "D-4"])
    aceito_id = _forjar(colonia, "uc.poligono_adicionado", aceito, "D-4")
    drenar(login_url)
    assert conn.execute("SELECT count(*) AS n FROM d2.replica_uc WHERE nivel = 1").fetchone() == {
        "n": 1
    }
    assert _cartas(conn, [aceito_id]) == []


def test_replica__a_forged_update_of_an_ibge_uc_is_refused(
    conn: Conn, db_url: str, login_url: str, colonia: Conn
) -> None:
    antes = _territorio_e_respostas(conn, db_url, login_url)
    alvo = conn.execute(
        "SELECT payload FROM core.event_log WHERE tipo = 'uc.poligono_adicionado'"
        " AND (payload ->> 'nivel')::int = 4 ORDER BY sequence_number LIMIT 1"
    ).fetchone()
    assert alvo is not None
    encolhido = alvo["payload"] | {"geometria": poligono(quadrado(0, 0, 0.001, 0.001))}
    forjados = [
        _forjar(colonia, "uc.poligono_atualizado", encolhido | {"motivo": "importacao"}),
        # The same UC under a new polygon id: another shape for the IBGE município.
        _forjar(
            colonia,
            "uc.poligono_adicionado",
            encolhido | {"uc_polygon_id": str(uuid.uuid4()), "fonte": "geo"},
        ),
    ]
    drenar(login_url)
    assert _estado(conn) == antes
    cartas = _cartas(conn, forjados)
    assert len(cartas) == 2 and all("importers" in c for c in cartas), cartas


def _municipios_por_eventos(conn: Conn, n: int) -> list[dict[str, Any]]:
    """n disjoint community municipalities (fonte 'comunitario': no proposal may touch an
    official polygon), published by D-2's importers; their payloads."""
    payloads = []
    for i in range(n):
        x = -60.0 + i
        payloads.append(
            {
                "unidade_civica_id": str(uuid.uuid4()),
                "uc_polygon_id": str(uuid.uuid4()),
                "nivel": 4,
                "nome": f"Município {i}",
                "parent_uc_id": None,
                "fonte": "comunitario",
                "geometria": poligono(quadrado(x, -10.0, x + 0.5, -9.5)),
            }
        )
        inserir_evento_importador(conn, payloads[-1], tipo="uc.poligono_adicionado")
    return payloads


def test_replica__mass_removals_stop_the_replica_until_an_operator_resumes(
    conn: Conn, db_url: str, login_url: str, colonia: Conn, capsys: pytest.CaptureFixture[str]
) -> None:
    _limites(conn, disjuntor_max=5)
    replica.definir_fonte(conn, config.load(), "eventos")
    municipios = _municipios_por_eventos(conn, 14)
    drenar(login_url)
    assert conn.execute("SELECT count(*) AS n FROM d2.mirror_uc").fetchone() == {"n": 14}

    def remover(payload: dict[str, Any]) -> uuid.UUID:
        campos = {k: payload[k] for k in ("unidade_civica_id", "uc_polygon_id", "nivel")}
        return _forjar(colonia, "uc.poligono_removido", campos | {"motivo": "importacao"})

    forjados = [remover(p) for p in municipios[:12]]
    drenar(login_url)
    # Five went; the sixth holds the cursor, and nothing after it is applied.
    assert conn.execute("SELECT count(*) AS n FROM d2.mirror_uc").fetchone() == {"n": 9}
    parada = status.status(conn)["replica"]["parada"]
    assert parada is not None and parada["event_id"] == forjados[5]
    assert "d2.replica_limites.disjuntor_max" in parada["motivo"]
    assert "d2 mirror resume" in status.formatar_status(status.status(conn))
    assert _cartas(conn, forjados) == []
    drenar(login_url)
    assert conn.execute("SELECT count(*) AS n FROM d2.mirror_uc").fetchone() == {"n": 9}

    # The operator drops the held removals: they end as 'descartado', the mirror keeps
    # its polygons, and the replica goes on with what comes next.
    capsys.readouterr()
    assert cli.main(["mirror", "resume", "--by", "ana", "--drop-removals", "--json"]) == 0
    feito = json.loads(capsys.readouterr().out)
    assert feito["descartados"] == 7 and feito["event_id"] == str(forjados[5])
    novo = _municipios_por_eventos(conn, 1)
    drenar(login_url)
    assert conn.execute("SELECT count(*) AS n FROM d2.mirror_uc").fetchone() == {"n": 10}
    outcomes = conn.execute(
        "SELECT desfecho, count(*) AS n FROM d2.replica_eventos"
        " WHERE event_id = ANY(%(ids)s) GROUP BY 1",
        {"ids": forjados},
    ).fetchall()
    assert {r["desfecho"]: r["n"] for r in outcomes} == {"removido": 5, "descartado": 7}
    assert status.status(conn)["replica"]["parada"] is None

    # Resumed without dropping, what it held is applied, and the count starts again.
    mais = [remover(p) for p in [*municipios[12:], novo[0]]] + [remover(municipios[0])]
    assert len(mais) == 4
    _limites(conn, disjuntor_max=2)
    drenar(login_url)
    assert status.status(conn)["replica"]["parada"]["event_id"] == mais[2]
    replica.retomar(conn, por="ana", descartar_remocoes=False)
    drenar(login_url)
    assert conn.execute("SELECT count(*) AS n FROM d2.mirror_uc").fetchone() == {"n": 7}
    with pytest.raises(errors.InvalidInput, match="not stopped"):
        replica.retomar(conn, por="ana", descartar_remocoes=False)
    paradas = conn.execute(
        "SELECT retomada_por, descartados FROM d2.replica_paradas ORDER BY id"
    ).fetchall()
    assert paradas == [
        {"retomada_por": "ana", "descartados": 7},
        {"retomada_por": "ana", "descartados": 0},
    ]


def test_replica__piecemeal_takings_stop_the_replica_too(
    conn: Conn, db_url: str, login_url: str, colonia: Conn
) -> None:
    """Each forged micro-area is within every bound (a small square under its bairro), but
    each takes a stored answer: they count toward the breaker as removals do."""
    _territorio_e_respostas(conn, db_url, login_url)
    _limites(conn, disjuntor_max=3)
    forjados = [
        _forjar(colonia, "uc.poligono_adicionado", m)
        for m in micro_areas(conn, 6, com_respostas=True)
    ]
    drenar(login_url)
    assert conn.execute("SELECT count(*) AS n FROM d2.replica_uc WHERE nivel = 1").fetchone() == {
        "n": 3
    }
    parada = status.status(conn)["replica"]["parada"]
    assert parada is not None and parada["event_id"] == forjados[3]
    tomadas = conn.execute(
        "SELECT tomadas FROM d2.replica_eventos WHERE disjuntor ORDER BY aplicado_em"
    ).fetchall()
    assert len(tomadas) == 3 and all(t["tomadas"] >= 1 for t in tomadas)


def test_replica__the_importers_own_removals_never_trip_the_breaker(
    conn: Conn, db_url: str
) -> None:
    _limites(conn, disjuntor_max=2)
    sample.load_sample(db_url)
    replica.definir_fonte(conn, config.load(), "eventos")
    # Every bairro and município of the sample goes: 13 removals, the breaker's bound is 2.
    conn.execute("DELETE FROM core.uc_polygons WHERE nivel <= 4")
    with conn.transaction():
        assert replica.publicar_estado(conn)["removidos"] == 13
    feito = replica.drenar(conn, config.load())
    assert feito.por_outcome["removido"] == 13 and feito.dead_letters == 0
    assert status.status(conn)["replica"]["parada"] is None


def test_replica__the_importers_record_cannot_be_written_by_a_colony_or_the_worker(
    conn: Conn, colonia: Conn, como_worker: Conn
) -> None:
    for sessao in (colonia, como_worker):
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            sessao.execute(
                "INSERT INTO d2.poligonos_eventos (event_id, uc_polygon_id, hash)"
                " VALUES (gen_random_uuid(), gen_random_uuid(), 'x')"
            )


@pytest.mark.shared_data
def test_replica__the_capture_bound_refuses_no_shared_data_polygon(brasil_conn: Conn) -> None:
    """Measured where it could hurt most: every polygon of ../shared/data checked as a
    new polygon of another producer against the whole territory already mirrored (the
    most UCs it could take the place of, its parent always there). None is refused; the
    municipalities and UFs that happen to cover their parent's interior point count as
    takings (40 of 5,893), which is what a producer republishing the whole territory
    would put toward the breaker."""
    conn = brasil_conn
    linhas = conn.execute(
        "SELECT u.nivel, count(*) AS n, count(c.recusa) AS recusados,"
        " count(*) FILTER (WHERE c.toma) AS tomam"
        " FROM core.uc_polygons u CROSS JOIN LATERAL d2.replica_captura(u.geometria,"
        " u.nivel, u.unidade_civica_id, gen_random_uuid(), u.parent_uc_id) c"
        " GROUP BY 1 ORDER BY 1"
    ).fetchall()
    assert sum(r["n"] for r in linhas) == 5893
    assert [r["recusados"] for r in linhas] == [0] * len(linhas)
    assert sum(r["tomam"] for r in linhas) == 40


def test_replica__switching_to_events_stops_when_the_catch_up_trips_the_breaker(
    conn: Conn, db_url: str, colonia: Conn
) -> None:
    """A log already holding a mass removal: `d2 mirror source eventos` says so and the
    mirror keeps reading core, rather than rebuilding from a replica that stopped."""
    _limites(conn, disjuntor_max=3)
    for m in _municipios_por_eventos(conn, 6):
        campos = {k: m[k] for k in ("unidade_civica_id", "uc_polygon_id", "nivel")}
        _forjar(colonia, "uc.poligono_removido", campos | {"motivo": "importacao"})
    with pytest.raises(errors.ConsumerPaused, match="still reads core"):
        replica.definir_fonte(conn, config.load(), "eventos")
    assert replica.fonte(conn) == "core"
    assert status.status(conn)["replica"]["parada"] is not None
