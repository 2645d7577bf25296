"""d2.eventlog.bus on a real database: publish, replay, NOTIFY, retry, dead letters, migration."""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row

from d2 import db, errors, migrations
from d2.eventlog import bus, dead_letters, wire
from d2.ops import dlq
from tests.support import Conn
from tests.support.events import payload_georreferenciada, payload_normalizada

GEO = "demanda.georreferenciada"
NORM = "demanda.normalizada"
EVENT_LOG_REV = "20261202130100_core_event_log"
ANTERIOR_REV = "20261202130000_d2_postgis_mirror"


# Events as an upstream producer writes them, of a type D-2 reads (the readers serve
# only those: d2.eventos_tipos_lidos).
TIPO_CRU = "demanda.normalizada"


def transacao(db_url: str) -> Conn:
    return psycopg.connect(db_url, row_factory=dict_row)


def inserir_cru(conn: Conn, tipo: str = TIPO_CRU, **colunas: Any) -> uuid.UUID:
    """What an upstream producer does: a plain INSERT (DESIGN "Event log")."""
    event_id = uuid.uuid4()
    valores = {"payload": "{}", **colunas}
    conn.execute(
        "INSERT INTO core.event_log (event_id, tipo, origem, payload)"
        " VALUES (%(event_id)s, %(tipo)s, 'teste', %(payload)s::jsonb)",
        {"event_id": event_id, "tipo": tipo, **valores},
    )
    return event_id


def test_bus__publish_then_replay_round_trip(db_url: str, conn: Conn) -> None:
    correlacao = uuid.uuid4()
    payloads = [payload_georreferenciada() for _ in range(3)]
    with transacao(db_url) as produtor:
        ids = bus.publicar(
            produtor, [bus.preparar(GEO, p, correlacao) for p in payloads], origem="D-2"
        )
        # Not committed yet: nobody sees the events.
        assert bus.ler_desde(conn, GEO, 0) == []
    eventos = bus.ler_desde(conn, GEO, 0)
    assert [e.event_id for e in eventos] == ids
    assert [e.payload for e in eventos] == payloads
    assert [e.sequence_number for e in eventos] == [1, 2, 3]
    assert {(e.tipo, e.versao_schema, e.origem, e.correlacao_id) for e in eventos} == {
        (GEO, "1.0.0", "D-2", correlacao)
    }
    assert [e.event_id for e in bus.ler_desde(conn, GEO, 1, limite=1)] == [ids[1]]
    assert bus.maior_sequencia(conn, GEO) == 3
    assert bus.maior_sequencia(conn) == 3
    assert bus.maior_sequencia(conn, NORM) == 0
    assert [e.event_id for e in bus.ler_eventos(conn, [ids[2], uuid.uuid4(), ids[0]])] == [
        ids[0],
        ids[2],
    ]


def test_bus__publish_joins_the_callers_transaction_and_rolls_back_with_it(
    db_url: str, conn: Conn
) -> None:
    with transacao(db_url) as produtor:
        bus.publicar(produtor, [bus.preparar(GEO, payload_georreferenciada())], origem="D-2")
        produtor.rollback()
    assert bus.ler_desde(conn, GEO, 0) == []
    assert bus.maior_sequencia(conn) == 0


def test_bus__default_versions_and_explicit_version(db_url: str, conn: Conn) -> None:
    normalizada = payload_normalizada(-27.0, -48.0)
    assert bus.preparar(NORM, normalizada, None).versao_schema == "1.2.0"
    assert bus.preparar(NORM, normalizada, None, versao_schema="1.0.0").versao_schema == "1.0.0"
    # D-2 publishes its outputs only: its inputs are other colonies' to publish
    # (d2.eventos_publicar, WITH CHECK OPTION), whatever the role.
    with transacao(db_url) as produtor:
        with pytest.raises(errors.D2Error, match="check option"):
            bus.publicar(produtor, [bus.preparar(NORM, normalizada)], origem="D-1b")
    assert bus.ler_desde(conn, NORM, 0) == []


def test_bus__invalid_payload_refused_with_the_field_named(db_url: str, conn: Conn) -> None:
    with transacao(db_url) as produtor:
        # The field and the rule, never the value (it may be personal data).
        with pytest.raises(errors.InvalidEvent, match=r"'demanda_id': is not a valid uuid") as e:
            bus.preparar(GEO, payload_georreferenciada(demanda_id="nao-e-uuid"))
        assert "nao-e-uuid" not in str(e.value)
        with pytest.raises(errors.InvalidEvent, match="nivel_minimo_resolvido"):
            bus.preparar(GEO, payload_georreferenciada(nivel_minimo_resolvido=8))
        with pytest.raises(errors.InvalidEvent, match="'cadeia_ucs'"):
            bus.preparar(GEO, payload_georreferenciada(cadeia_ucs=[]))
        with pytest.raises(errors.InvalidEvent, match="no schema registered"):
            bus.preparar("tipo.desconhecido", {})
        with pytest.raises(errors.InvalidEvent, match=r"version '9.9.9'.*1\.0\.0"):
            bus.preparar(GEO, payload_georreferenciada(), versao_schema="9.9.9")
        # Only what preparar made can be published: nothing reached the log.
        assert bus.publicar(produtor, [], origem="D-2") == []
    assert bus.maior_sequencia(conn) == 0


def test_bus__publicar_keeps_the_order_of_the_events_of_any_types(db_url: str, conn: Conn) -> None:
    correlacoes: list[uuid.UUID | None] = [uuid.uuid4(), None, uuid.uuid4(), None]
    eventos_antes = [
        bus.preparar(GEO, payload_georreferenciada(nivel_minimo_resolvido=i + 1), c)
        for i, c in enumerate(correlacoes)
    ]
    removido = bus.preparar(
        "uc.poligono_removido",
        {
            "unidade_civica_id": str(uuid.uuid4()),
            "uc_polygon_id": str(uuid.uuid4()),
            "nivel": 2,
            "motivo": "moderacao",
        },
        versao_schema=None,
    )
    with transacao(db_url) as produtor:
        bus.publicar(produtor, [bus.preparar(GEO, payload_georreferenciada())], origem="D-2")
        ids = bus.publicar(
            produtor, [*eventos_antes[:2], removido, *eventos_antes[2:]], origem="D-2"
        )
        assert bus.publicar(produtor, [], origem="D-2") == []
    eventos = bus.ler_desde(conn, [GEO, "uc.poligono_removido"], 1)
    assert [e.event_id for e in eventos] == ids
    assert [e.sequence_number for e in eventos] == [2, 3, 4, 5, 6]
    assert [e.tipo for e in eventos] == [GEO, GEO, "uc.poligono_removido", GEO, GEO]
    assert [e.correlacao_id for e in eventos] == [*correlacoes[:2], None, *correlacoes[2:]]
    assert [e.payload.get("nivel_minimo_resolvido") for e in eventos] == [1, 2, None, 3, 4]


def test_bus__producers_send_no_notification(db_url: str) -> None:
    """NOTIFY at commit takes a database-wide lock: no producer's transaction sends one,
    the D-2 worker's publications included (readers poll)."""
    with bus.Listener(db_url) as listener:
        with transacao(db_url) as produtor:
            inserir_cru(produtor)
            bus.publicar(
                produtor,
                [bus.preparar(GEO, payload_georreferenciada()) for _ in range(3)],
                origem="D-2",
            )
        assert listener.esperar(0.5) is False
        assert listener.recebidas == 0


def notificar(db_url: str, texto: str) -> None:
    with psycopg.connect(db_url, autocommit=True) as c:
        c.execute("SELECT pg_notify(%(canal)s, %(texto)s)", {"canal": bus.CANAL, "texto": texto})


def test_bus__listener_wakes_within_milliseconds(db_url: str) -> None:
    with bus.Listener(db_url) as listener:
        notificar(db_url, "1")
        inicio = time.monotonic()
        assert listener.esperar(5.0) is True
        assert time.monotonic() - inicio < 1.0


def seguir_ate(
    db_url: str, listener: bus.Listener, tipo: str, esperados: set[uuid.UUID], poll_s: float
) -> tuple[list[uuid.UUID], list[bool]]:
    """A reader's loop as the worker runs it: read, then wait for a NOTIFY or poll_s."""
    lidos: list[uuid.UUID] = []
    acordou: list[bool] = []
    cursor = 0
    prazo = time.monotonic() + 10
    with psycopg.connect(db_url, autocommit=True, row_factory=dict_row) as leitor:
        while set(lidos) != esperados and time.monotonic() < prazo:
            for evento in bus.ler_desde(leitor, tipo, cursor):
                lidos.append(evento.event_id)
                cursor = evento.sequence_number
            if set(lidos) != esperados:
                acordou.append(listener.esperar(poll_s))
    return lidos, acordou


def test_bus__lost_notify_is_delivered_by_polling(db_url: str) -> None:
    """The reader listens on a channel nobody notifies: every NOTIFY is lost to it."""
    event_id = uuid.uuid4()

    def produzir() -> None:
        time.sleep(0.3)
        with transacao(db_url) as produtor:
            bus.publicar(
                produtor,
                [bus.preparar(GEO, payload_georreferenciada(), event_id=event_id)],
                origem="D-2",
            )

    with bus.Listener(db_url, canal="ninguem_notifica") as surdo:
        thread = threading.Thread(target=produzir)
        inicio = time.monotonic()
        thread.start()
        lidos, acordou = seguir_ate(db_url, surdo, GEO, {event_id}, 0.25)
        thread.join()
    assert lidos == [event_id]
    assert acordou and not any(acordou)  # never woken by a notification: found by polling
    assert time.monotonic() - inicio < 2.0


def test_bus__listener_reconnects_after_losing_its_connection(db_url: str, conn: Conn) -> None:
    with bus.Listener(db_url) as listener:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE application_name = 'd2-listener' AND datname = current_database()"
        )
        # The loss is reported as "poll now", and the new connection listens again.
        assert listener.esperar(2.0) is True
        notificar(db_url, "1")
        assert listener.esperar(5.0) is True
        assert listener.ultima == "1"


def test_bus__idle_open_transaction_does_not_block_other_producers(db_url: str, conn: Conn) -> None:
    with transacao(db_url) as ocioso:
        tardio = inserir_cru(ocioso)
        with transacao(db_url) as outro:
            outro.execute("SET lock_timeout = '2s'")
            antes = time.monotonic()
            cedo = inserir_cru(outro)
            outro.commit()
            assert time.monotonic() - antes < 1.0
        # Held, never lost: the open transaction is older than the committed one.
        assert bus.ler_desde(conn, TIPO_CRU, 0) == []
        assert bus.fence(conn, TIPO_CRU).retidos == 1
    eventos = bus.ler_desde(conn, TIPO_CRU, 0)
    assert [e.event_id for e in eventos] == [tardio, cedo]
    assert eventos[0].sequence_number < eventos[1].sequence_number
    assert bus.fence(conn, TIPO_CRU).retidos == 0


def test_bus__retry_gives_up_after_4_tries_and_says_so(
    db_url: str, conn: Conn, caplog: pytest.LogCaptureFixture
) -> None:
    conn.execute(
        """
        CREATE FUNCTION public.falhar() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'barramento indisponível' USING ERRCODE = 'serialization_failure';
        END $$;
        CREATE TRIGGER falhar BEFORE INSERT ON core.event_log
            FOR EACH ROW EXECUTE FUNCTION public.falhar();
        """
    )
    tentativas: list[int] = []

    def operacao() -> uuid.UUID:
        tentativas.append(1)
        with transacao(db_url) as produtor:
            [novo] = bus.publicar(
                produtor, [bus.preparar(GEO, payload_georreferenciada())], origem="D-2"
            )
            return novo

    inicio = time.monotonic()
    with pytest.raises(errors.PublishError, match=r"^publicar: gave up after 4 tries: .*indispon"):
        bus.com_retry(operacao, espera_s=0.05)
    assert len(tentativas) == 4
    assert 0.12 <= time.monotonic() - inicio < 2.0  # three waits of ~50 ms
    avisos = [r for r in caplog.records if r.name == "d2.eventlog.bus" and r.levelname == "WARNING"]
    assert [getattr(r, "tentativa", None) for r in avisos] == [1, 2, 3, 4]

    conn.execute("DROP TRIGGER falhar ON core.event_log")
    tentativas.clear()
    assert isinstance(bus.com_retry(operacao, espera_s=0.05), uuid.UUID)
    assert len(tentativas) == 1


def test_dlq__record_count_list_and_mark(db_url: str, conn: Conn) -> None:
    event_id = uuid.uuid4()
    outro = uuid.uuid4()
    dead_letters.registrar(
        conn, consumer="D-2", event_id=event_id, tipo=NORM, sequence_number=7, erro="primeiro"
    )
    dead_letters.registrar(
        conn, consumer="D-2", event_id=event_id, tipo=NORM, sequence_number=None, erro="segundo"
    )
    # Another colony's dead letter, written by that colony: D-2 neither lists nor marks it
    # (d2.dead_letters; its attacks in test_eventlog_views.py).
    conn.execute(
        "INSERT INTO core.dead_letter_queue (consumidor, event_id, tipo, sequence_number, erro)"
        " VALUES ('D-4', %(id)s, %(tipo)s, 8, 'outro')",
        {"id": outro, "tipo": NORM},
    )
    [carta] = dlq.listar(conn, consumer="D-2")
    assert (carta["event_id"], carta["tentativas"], carta["erro"], carta["status"]) == (
        event_id,
        2,
        "segundo",
        "pendente",
    )
    assert carta["sequence_number"] == 7
    assert carta["ultimo_erro_em"] > carta["primeiro_erro_em"]
    assert {c["event_id"] for c in dlq.listar(conn)} == {event_id}
    assert dlq.listar(conn, consumer="D-4") == []

    assert dead_letters.marcar(conn, event_id, "reprocessado") == 1
    assert dead_letters.marcar(conn, uuid.uuid4(), "descartado") == 0
    assert dlq.listar(conn, consumer="D-2") == []
    [feita] = dlq.listar(conn, consumer="D-2", status="reprocessado")
    assert feita["reprocessado_em"] is not None
    assert len(dlq.listar(conn, status=None)) == 1
    with pytest.raises(errors.InvalidInput, match="invalid dead-letter status"):
        dead_letters.marcar(conn, event_id, "apagado")

    # Failing again reopens it.
    dead_letters.registrar(
        conn, consumer="D-2", event_id=event_id, tipo=NORM, sequence_number=7, erro="terceiro"
    )
    [reaberta] = dlq.listar(conn, consumer="D-2")
    assert reaberta["tentativas"] == 3


def _tem(url: str, objeto: str) -> bool:
    with psycopg.connect(url) as c:
        row = c.execute("SELECT to_regclass(%(o)s) IS NOT NULL", {"o": objeto}).fetchone()
        return bool(row and row[0])


def test_migration__upgrade_downgrade_upgrade(empty_db_url: str) -> None:
    migrations.upgrade(empty_db_url, EVENT_LOG_REV)
    assert _tem(empty_db_url, "core.event_log") and _tem(empty_db_url, "core.dead_letter_queue")
    migrations.downgrade(empty_db_url, ANTERIOR_REV)
    assert not _tem(empty_db_url, "core.event_log")
    assert not _tem(empty_db_url, "core.dead_letter_queue")
    assert not _tem(empty_db_url, "core.event_log_numeracao_seq")
    migrations.upgrade(empty_db_url, EVENT_LOG_REV)
    with psycopg.connect(empty_db_url, row_factory=dict_row) as c:
        c.execute(  # a producer of that revision: the code of today needs head
            "INSERT INTO core.event_log (event_id, tipo, origem, payload)"
            " VALUES (gen_random_uuid(), %(t)s, 'D-2', '{}')",
            {"t": GEO},
        )
        c.commit()
        row = c.execute("SELECT max(sequence_number) AS maior FROM core.event_log").fetchone()
        assert row == {"maior": 1}


def test_migration__keeps_a_core_event_log_it_did_not_create(empty_db_url: str) -> None:
    """The monolith may already have core.event_log (with a serial sequence_number)."""
    migrations.upgrade(empty_db_url, ANTERIOR_REV)
    with psycopg.connect(empty_db_url, row_factory=dict_row) as c:
        c.execute(db.q("bench_monolith_event_log"))  # the table as the monolith creates it
        c.execute(
            "INSERT INTO core.event_log (event_id, tipo, origem, payload) "
            "SELECT gen_random_uuid(), 'antigo', 'N-0a', '{}' FROM generate_series(1, 3)"
        )
        c.commit()
    migrations.upgrade(empty_db_url, migrations.head())
    with psycopg.connect(empty_db_url, row_factory=dict_row) as c:
        [novo] = bus.publicar(c, [bus.preparar(GEO, payload_georreferenciada())], origem="D-2")
        c.commit()
        assert [e.event_id for e in bus.ler_desde(c, GEO, 3)] == [novo]
        assert bus.maior_sequencia(c) == 4
        # The monolith's own default is back, and NOT NULL.
        row = c.execute(
            "SELECT is_nullable, column_default FROM information_schema.columns"
            " WHERE table_schema = 'core' AND table_name = 'event_log'"
            " AND column_name = 'sequence_number'"
        ).fetchone()
        assert row == {
            "is_nullable": "NO",
            "column_default": "nextval('core.event_log_sequence_number_seq'::regclass)",
        }
    migrations.downgrade(empty_db_url, ANTERIOR_REV)
    assert _tem(empty_db_url, "core.event_log")
    assert not _tem(empty_db_url, "d2.event_log_original")
    with psycopg.connect(empty_db_url, row_factory=dict_row) as c:
        colunas = c.execute(
            "SELECT column_name, is_nullable, column_default IS NOT NULL AS tem_default"
            " FROM information_schema.columns"
            " WHERE table_schema = 'core' AND table_name = 'event_log'"
            " AND column_name IN ('ordem_insercao', 'sequence_number')"
        ).fetchall()
        assert colunas == [
            {"column_name": "sequence_number", "is_nullable": "NO", "tem_default": True}
        ]
        # The monolith's serial continues after the numbers D-2 gave.
        c.execute(
            "INSERT INTO core.event_log (event_id, tipo, origem, payload)"
            " VALUES (gen_random_uuid(), 'antigo', 'N-0a', '{}')"
        )
        numeros = c.execute("SELECT sequence_number AS n FROM core.event_log ORDER BY 1").fetchall()
        assert [r["n"] for r in numeros] == [1, 2, 3, 4, 5]
    migrations.upgrade(empty_db_url, migrations.head())
    with psycopg.connect(empty_db_url, row_factory=dict_row) as c:
        bus.publicar(c, [bus.preparar(GEO, payload_georreferenciada())], origem="D-2")
        c.commit()
        assert bus.maior_sequencia(c) == 6


def test_bus__undecodable_payload_does_not_block_the_others(db_url: str, conn: Conn) -> None:
    """Valid jsonb nested deeper than Python's parser allows: a poison pill if unhandled."""
    fundo = "[" * 5000 + "]" * 5000
    with transacao(db_url) as produtor:
        antes = inserir_cru(produtor, payload='{"a": 1}')
        veneno = inserir_cru(produtor, payload=fundo)
        depois = inserir_cru(produtor, payload="[1, 2]")
    eventos = bus.ler_desde(conn, TIPO_CRU, 0)
    assert [e.event_id for e in eventos] == [antes, veneno, depois]
    assert eventos[0].payload == {"a": 1}
    assert eventos[1].payload == wire.UnreadablePayload("JSON nested too deep to decode")
    assert eventos[2].payload == [1, 2]
    assert isinstance(bus.ler_eventos(conn, [veneno])[0].payload, wire.UnreadablePayload)


@pytest.mark.parametrize("isolamento", ["REPEATABLE READ", "SERIALIZABLE"])
def test_bus__reading_order_at_every_isolation_level(
    db_url: str, conn: Conn, isolamento: str
) -> None:
    """Readers follow (transacao, sequence_number) whatever the producers' isolation."""
    with transacao(db_url) as antigo:
        antigo.execute(
            "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ"
            if isolamento == "REPEATABLE READ"
            else "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE"
        )
        tardio = inserir_cru(antigo)  # snapshot taken here
        with transacao(db_url) as outro:
            cedo = inserir_cru(outro)
    eventos = bus.ler_desde(conn, TIPO_CRU, 0)
    assert [(e.event_id, e.sequence_number) for e in eventos] == [(tardio, 1), (cedo, 2)]
