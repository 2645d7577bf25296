"""The handler of spec 3.3 against the real database: T1-T14 and the bad-input classes."""

from __future__ import annotations

import json
import uuid
from typing import Any

import psycopg
import pytest

from d2 import config, errors
from d2.eventlog import bus, registry
from d2.handler.handler import Handler
from d2.worker import loop
from tests.support import Conn, drenar, semear_cursor
from tests.support.events import JsonBruto, inserir_evento, payload_normalizada, saidas
from tests.support.territorio import Territorio


def cursor(conn: Conn) -> int:
    row = conn.execute(
        "SELECT last_sequence FROM d2.consumer_offset WHERE tipo_evento = 'demanda.normalizada'"
    ).fetchone()
    assert row is not None
    return int(row["last_sequence"])


def maior_entrada(conn: Conn) -> int:
    row = conn.execute(
        "SELECT max(sequence_number) AS m FROM core.event_log WHERE tipo = 'demanda.normalizada'"
    ).fetchone()
    return int(row["m"]) if row and row["m"] is not None else 0


def contar(conn: Conn, tabela: str) -> int:
    allowed = {
        "d2.resolucoes_geo",
        "d2.eventos_processados",
        "d2.revisoes_geo_pendentes",
        "core.dead_letter_queue",
    }
    assert tabela in allowed
    row = conn.execute(f"SELECT count(*) AS n FROM {tabela}").fetchone()  # fixed allow-list
    assert row is not None
    return int(row["n"])


def test_t1__valid_event_is_resolved_stored_published_and_cursor_moves(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    semear_cursor(conn, mover=True)
    correlacao = uuid.uuid4()
    payload = payload_normalizada(-27.0, -49.0)
    event_id = inserir_evento(conn, payload, correlacao_id=correlacao)
    drenar(db_url, settings)
    [res] = conn.execute("SELECT * FROM d2.resolucoes_geo").fetchall()
    assert res["confianca_geo"] == "alta" and res["metodo_resolucao"] == "gps"
    assert res["event_id"] == event_id and res["correlacao_id"] == correlacao
    assert res["unidade_civica_id"] == territorio.bairro_a1
    assert res["coordenadas_lat"] == -27.0 and res["coordenadas_lng"] == -49.0
    [out] = saidas(conn)
    assert out["correlacao_id"] == correlacao and out["versao_schema"] == "1.0.0"
    assert out["origem"] == "D-2"
    assert out["payload"] == {
        "demanda_id": payload["demanda_id"],
        "unidade_civica_id": str(territorio.bairro_a1),
        "nivel_minimo_resolvido": 2,
        "cadeia_ucs": [
            str(u)
            for u in (
                territorio.bairro_a1,
                territorio.mun_a,
                territorio.uf,
                territorio.regiao,
                territorio.brasil,
            )
        ],
        "metodo_resolucao": "gps",
        "confianca_geo": "alta",
        "coordenadas_lat": -27.0,
        "coordenadas_lng": -49.0,
    }
    assert registry.registry().erros("demanda.georreferenciada", out["payload"], "1.0.0") == []
    assert cursor(conn) == maior_entrada(conn)
    assert contar(conn, "d2.eventos_processados") == 1


def test_t2__boot_without_lost_events_seeds_cursor_at_highest_sequence(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    inserir_evento(conn, payload_normalizada())
    inserir_evento(conn, payload_normalizada())
    result = drenar(db_url, settings)
    # No cursor existed: the boot seeds it at the highest sequence; old events are history.
    assert cursor(conn) == maior_entrada(conn)
    assert sum(result.contagem.values()) == 0
    assert contar(conn, "d2.resolucoes_geo") == 0


def test_t2__seed_never_overwrites_an_existing_cursor(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    semear_cursor(conn, apos=0, mover=True)
    inserir_evento(conn, payload_normalizada())
    handler = Handler(settings)
    with psycopg.connect(db_url, autocommit=True, row_factory=psycopg.rows.dict_row) as c:
        assert handler.iniciar(c) == bus.Position(0, 0)


def test_t3__boot_with_lost_events_replays_them(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    semear_cursor(conn, mover=True)
    for _ in range(3):
        inserir_evento(conn, payload_normalizada())
    result = drenar(db_url, settings)
    assert result.contagem["georreferenciada"] == 3
    assert contar(conn, "d2.resolucoes_geo") == 3


def test_t4_t13__same_coordinate_twice_uses_the_cache(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    semear_cursor(conn, mover=True)
    inserir_evento(conn, payload_normalizada(-26.5, -48.5))
    inserir_evento(conn, payload_normalizada(-26.5, -48.5))
    result = drenar(db_url, settings, batch_size=1)
    assert result.resolvidos_sql == 1 and result.cache_hits == 1
    ucs = {r["unidade_civica_id"] for r in conn.execute("SELECT * FROM d2.resolucoes_geo")}
    assert ucs == {territorio.bairro_a1}


def test_t5_t12__replay_republishes_processed_and_handles_new(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    semear_cursor(conn, mover=True)
    inserir_evento(conn, payload_normalizada())
    drenar(db_url, settings)
    inserir_evento(conn, payload_normalizada())
    inserir_evento(conn, payload_normalizada())
    semear_cursor(conn, apos=0, mover=True)  # a restart that lost the cursor: replay all three
    result = drenar(db_url, settings)
    assert result.contagem["republicada"] == 1 and result.contagem["georreferenciada"] == 2
    assert contar(conn, "d2.resolucoes_geo") == 3
    outs = saidas(conn)
    assert len(outs) == 4  # 1 original + 1 republished + 2 new
    assert len({o["payload"]["demanda_id"] for o in outs}) == 3


def test_t6__missing_coordinates_are_discarded_with_a_processed_mark(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    semear_cursor(conn, mover=True)
    payload = payload_normalizada()
    payload["coordenadas_validadas"] = None
    inserir_evento(conn, payload)
    del payload["coordenadas_validadas"]
    payload["demanda_id"] = str(uuid.uuid4())
    inserir_evento(conn, payload)
    result = drenar(db_url, settings)
    assert result.contagem["sem_coordenadas"] == 2
    assert contar(conn, "d2.eventos_processados") == 2
    assert contar(conn, "d2.resolucoes_geo") == 0 and saidas(conn) == []
    assert cursor(conn) == maior_entrada(conn)


@pytest.mark.parametrize(
    "coordenadas",
    [
        {"lat": 200, "lng": -49},
        {"lat": -27, "lng": 181},
        {"lat": "NaN", "lng": -49},
        {"lat": "-27.0", "lng": "-49.0"},
        {"lat": True, "lng": -49},
        {"lat": None, "lng": -49},
        "1e400",
        {"lat": 10**400, "lng": -49},
        {"lng": -49},
        [-27, -49],
        "-27,-49",
    ],
)
def test_t7__invalid_coordinates_are_discarded(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio, coordenadas: Any
) -> None:
    semear_cursor(conn, mover=True)
    payload: Any = payload_normalizada()
    if coordenadas == "1e400":  # a huge number only raw JSON can carry
        payload = JsonBruto(
            json.dumps(payload)
            .replace('"lat": -27.0', '"lat": 1e400')
            .replace('"lat": -27', '"lat": 1e400')
        )
        assert "1e400" in payload
    else:
        payload["coordenadas_validadas"] = coordenadas
    inserir_evento(conn, payload)
    result = drenar(db_url, settings)
    assert result.contagem["coordenadas_invalidas"] == 1
    assert contar(conn, "d2.eventos_processados") == 1
    assert contar(conn, "d2.resolucoes_geo") == 0 and saidas(conn) == []
    assert cursor(conn) == maior_entrada(conn)


def test_t8__point_outside_every_polygon_goes_to_review(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    semear_cursor(conn, mover=True)
    payload = payload_normalizada(10.0, 10.0)
    event_id = inserir_evento(conn, payload)
    result = drenar(db_url, settings)
    assert result.contagem["revisao_pendente"] == 1
    [row] = conn.execute("SELECT * FROM d2.revisoes_geo_pendentes").fetchall()
    assert row["event_id"] == event_id and str(row["demanda_id"]) == payload["demanda_id"]
    assert contar(conn, "d2.eventos_processados") == 1
    assert saidas(conn) == [] and contar(conn, "d2.resolucoes_geo") == 0
    assert cursor(conn) == maior_entrada(conn)


def test_t9__publish_failure_keeps_resolution_and_holds_cursor(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    semear_cursor(conn, mover=True)
    conn.execute(
        """
        CREATE FUNCTION public.falhar() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'barramento fora do ar' USING ERRCODE = '08006'; END $$;
        CREATE TRIGGER falhar BEFORE INSERT ON core.event_log FOR EACH ROW
        WHEN (NEW.tipo = 'demanda.georreferenciada') EXECUTE FUNCTION public.falhar();
        """
    )
    inserir_evento(conn, payload_normalizada())
    handler = Handler(settings)
    with psycopg.connect(db_url, autocommit=True, row_factory=psycopg.rows.dict_row) as c:
        handler.iniciar(c)
        eventos = bus.ler_desde(c, "demanda.normalizada", 0, 10)
        with pytest.raises(Exception) as caught:
            loop.processar(handler, c, eventos)
        assert "gave up after 4 tries" in str(caught.value)
        # A second pass fails again: the same incident, the same record, one more try.
        with pytest.raises(errors.PublishError):
            loop.processar(handler, c, bus.ler_desde(c, "demanda.normalizada", 0, 10))
    assert contar(conn, "d2.resolucoes_geo") == 1
    assert cursor(conn) == 0 and contar(conn, "d2.eventos_processados") == 0
    cartas = conn.execute(
        "SELECT event_id, status, tentativas, erro FROM core.dead_letter_queue"
    ).fetchall()
    assert [(r["event_id"], r["status"], r["tentativas"]) for r in cartas] == [
        (eventos[0].event_id, "pendente", 2)
    ]
    assert cartas[0]["erro"].startswith("publish failed: ") and "4 tries" in cartas[0]["erro"]
    conn.execute("DROP TRIGGER falhar ON core.event_log")
    # A new worker (after a restart) republishes from the held cursor and resolves it.
    result = drenar(db_url, settings)
    assert result.contagem["republicada"] == 1
    assert len(saidas(conn)) == 1 and cursor(conn) == maior_entrada(conn)
    carta = conn.execute("SELECT status, reprocessado_em FROM core.dead_letter_queue").fetchone()
    assert carta is not None and carta["status"] == "reprocessado"
    assert carta["reprocessado_em"] is not None


def test_t10__restart_starts_with_an_empty_cache(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    semear_cursor(conn, mover=True)
    inserir_evento(conn, payload_normalizada(-26.0, -48.0))
    first = drenar(db_url, settings)
    inserir_evento(conn, payload_normalizada(-26.0, -48.0))
    second = drenar(db_url, settings)  # a new worker: new, empty cache
    assert first.resolvidos_sql == 1 and second.resolvidos_sql == 1 and second.cache_hits == 0


def test_t11__full_cycle_propagates_correlacao_id_or_uses_demanda_id(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    semear_cursor(conn, mover=True)
    payload = payload_normalizada()
    inserir_evento(conn, payload, correlacao_id=None)
    drenar(db_url, settings)
    [out] = saidas(conn)
    assert str(out["correlacao_id"]) == payload["demanda_id"]
    [res] = conn.execute("SELECT correlacao_id FROM d2.resolucoes_geo").fetchall()
    assert str(res["correlacao_id"]) == payload["demanda_id"]


def test_t14__municipality_without_bairros_resolves_at_level_4(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    semear_cursor(conn, mover=True)
    inserir_evento(conn, payload_normalizada(-27.0, -42.0))
    drenar(db_url, settings)
    [res] = conn.execute("SELECT * FROM d2.resolucoes_geo").fetchall()
    assert res["nivel_minimo_resolvido"] == 4
    assert res["cadeia_ucs"][0] == territorio.mun_b


@pytest.mark.parametrize(
    ("payload", "motivo"),
    [
        ([1, 2, 3], "not a JSON object"),
        ("texto", "not a JSON object"),
        ({"coordenadas_validadas": {"lat": -27, "lng": -49}}, "demanda_id missing"),
        (payload_normalizada(demanda_id="123"), "not a UUID"),
        (payload_normalizada() | {"demanda_id": 42}, "not a UUID"),
        (payload_normalizada() | {"lixo": "x" * 300_000}, "exceeds"),
        (payload_normalizada() | {"n": json.loads("[" * 100 + "]" * 100)}, "nested deeper"),
    ],
)
def test_bad_event__goes_to_dead_letters_and_cursor_moves_on(
    conn: Conn,
    db_url: str,
    settings: config.Settings,
    territorio: Territorio,
    payload: Any,
    motivo: str,
) -> None:
    semear_cursor(conn, mover=True)
    event_id = inserir_evento(conn, payload)
    result = drenar(db_url, settings)
    assert result.contagem["dead_letter"] == 1
    [dead] = conn.execute("SELECT * FROM core.dead_letter_queue").fetchall()
    assert dead["event_id"] == event_id and motivo in dead["erro"]
    assert contar(conn, "d2.eventos_processados") == 0
    assert cursor(conn) == maior_entrada(conn)


def test_bad_event__unknown_major_schema_version_is_dead_lettered(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    semear_cursor(conn, mover=True)
    inserir_evento(conn, payload_normalizada(), versao="2.0.0")
    result = drenar(db_url, settings)
    assert result.contagem["dead_letter"] == 1


def test_bad_event__same_demanda_under_another_event_is_dead_lettered(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    semear_cursor(conn, mover=True)
    payload = payload_normalizada()
    inserir_evento(conn, payload)
    drenar(db_url, settings)
    second = inserir_evento(conn, payload)
    # And within one batch, too.
    twin = payload_normalizada(-27.0, -42.0)
    inserir_evento(conn, twin)
    third = inserir_evento(conn, twin)
    result = drenar(db_url, settings)
    assert result.contagem["dead_letter"] == 2 and result.contagem["georreferenciada"] == 1
    dead = {r["event_id"] for r in conn.execute("SELECT event_id FROM core.dead_letter_queue")}
    assert dead == {second, third}
    assert contar(conn, "d2.resolucoes_geo") == 2
    assert cursor(conn) == maior_entrada(conn)


def test_batch__a_bad_event_does_not_stop_the_good_ones(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    semear_cursor(conn, mover=True)
    good = [inserir_evento(conn, payload_normalizada(-27.0 + i / 100, -49.0)) for i in range(5)]
    inserir_evento(conn, {"demanda_id": "nope"})
    inserir_evento(conn, payload_normalizada(10.0, 10.0))
    good += [inserir_evento(conn, payload_normalizada(-27.0, -42.0 + i / 100)) for i in range(5)]
    result = drenar(db_url, settings, batch_size=100)
    assert result.contagem["georreferenciada"] == 10
    assert result.contagem["dead_letter"] == 1 and result.contagem["revisao_pendente"] == 1
    stored = {r["event_id"] for r in conn.execute("SELECT event_id FROM d2.resolucoes_geo")}
    assert stored == set(good)


def test_batch_and_single_paths_agree(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    """The same events through batch size 1 and batch size 100 end the same way."""
    import random

    rng = random.Random(7)
    payloads = []
    for _ in range(60):
        roll = rng.random()
        if roll < 0.1:
            payloads.append({"demanda_id": "x"})
        elif roll < 0.2:
            payloads.append(payload_normalizada(95, 0))
        else:
            payloads.append(payload_normalizada(rng.uniform(-32, -8), rng.uniform(-52, -28)))
    outcomes = []
    for size in (1, 100):
        conn.execute(
            "TRUNCATE d2.resolucoes_geo, d2.eventos_processados, d2.revisoes_geo_pendentes, "
            "core.dead_letter_queue, core.event_log"
        )
        semear_cursor(conn, mover=True)
        ids = [inserir_evento(conn, p) for p in payloads]
        result = drenar(db_url, settings, batch_size=size)
        ucs = {
            r["event_id"]: r["unidade_civica_id"]
            for r in conn.execute("SELECT event_id, unidade_civica_id FROM d2.resolucoes_geo")
        }
        outcomes.append((dict(result.contagem), [ucs.get(i) for i in ids]))
    assert outcomes[0] == outcomes[1]


def test_read_ahead__a_batch_its_thread_cannot_prepare_is_isolated_by_the_writer(
    conn: Conn,
    db_url: str,
    settings: config.Settings,
    territorio: Territorio,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The worker reads batch N+1 ahead while it writes batch N. When preparing a batch
    fails in the read-ahead thread (here: one output the Registry refuses), the writer
    prepares that batch itself, isolates the poison event into the dead letters, and the
    read-ahead goes on after it; outputs keep the order of the inputs."""
    semear_cursor(conn, mover=True)
    payloads = [payload_normalizada(-27.0 + i / 100, -49.0) for i in range(14)]
    veneno = payloads[9]["demanda_id"]
    ids = [inserir_evento(conn, p) for p in payloads]
    original = bus.preparar
    chamadas: list[str] = []

    def preparar(tipo: str, payload: dict[str, Any], *args: Any, **kw: Any) -> bus.Prepared:
        chamadas.append(payload["demanda_id"])
        if payload["demanda_id"] == veneno:
            raise errors.InvalidEvent("invalid demanda.georreferenciada: planted")
        return original(tipo, payload, *args, **kw)

    monkeypatch.setattr(bus, "preparar", preparar)
    result = drenar(db_url, settings, batch_size=4)
    assert result.contagem == {"georreferenciada": 13, "dead_letter": 1}
    assert chamadas.count(veneno) == 3  # read-ahead, the writer's batch, the isolation
    dlq = conn.execute("SELECT event_id, erro FROM core.dead_letter_queue").fetchall()
    assert [r["event_id"] for r in dlq] == [ids[9]] and "planted" in dlq[0]["erro"]
    publicadas = [s["payload"]["demanda_id"] for s in saidas(conn)]
    assert publicadas == [p["demanda_id"] for p in payloads if p["demanda_id"] != veneno]
    assert cursor(conn) == maior_entrada(conn)
