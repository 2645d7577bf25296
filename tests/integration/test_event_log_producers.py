"""core.event_log as the other colonies write it, and the move of today's installations.

The producers here are written as another colony would write them: a plain INSERT that
reads the number back (psycopg), and an ORM's insert with RETURNING (SQLAlchemy Core).
"""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any

import psycopg
import sqlalchemy as sa
from psycopg.rows import dict_row

from d2 import db, migrations
from d2.eventlog import bus
from d2.handler import handler
from d2.ops import status
from d2.worker import metrics
from tests.support import Conn, semear_cursor

# A colony producing what D-2 reads (the readers serve only those types).
TIPO = "demanda.normalizada"
# The revision this branch's migration starts from (today's installations).
ANTES = "20261203010000_event_log_numerar_na_insercao"


def test_producer__plain_insert_returning_sees_its_number_at_once(db_url: str) -> None:
    with psycopg.connect(db_url) as produtor:
        primeiro = produtor.execute(
            "INSERT INTO core.event_log (event_id, tipo, versao_schema, origem, correlacao_id,"
            " payload) VALUES (%s, %s, '1.0.0', 'N-1', NULL, '{}'::jsonb)"
            " RETURNING sequence_number",
            [uuid.uuid4(), TIPO],
        ).fetchone()
        segundo = produtor.execute(
            "INSERT INTO core.event_log (event_id, tipo, versao_schema, origem, correlacao_id,"
            " payload) VALUES (%s, %s, '1.0.0', 'N-1', NULL, '{}'::jsonb)"
            " RETURNING sequence_number",
            [uuid.uuid4(), TIPO],
        ).fetchone()
        # Before the commit, inside the producer's own transaction.
        assert primeiro is not None and isinstance(primeiro[0], int)
        assert segundo is not None and segundo[0] > primeiro[0]


def test_producer__sqlalchemy_insert_returning_sees_its_number_at_once(db_url: str) -> None:
    engine = sa.create_engine(migrations.sqlalchemy_url(db_url))
    tabela = sa.Table(
        "event_log",
        sa.MetaData(schema="core"),
        sa.Column("sequence_number", sa.BigInteger),
        sa.Column("event_id", sa.Uuid, primary_key=True),
        sa.Column("tipo", sa.String),
        sa.Column("versao_schema", sa.String),
        sa.Column("origem", sa.String),
        sa.Column("correlacao_id", sa.Uuid),
        sa.Column("payload", sa.JSON),
    )
    try:
        with engine.begin() as c:
            numero = c.execute(
                sa.insert(tabela)
                .values(
                    event_id=uuid.uuid4(),
                    tipo=TIPO,
                    versao_schema="1.0.0",
                    origem="N-2",
                    payload={"a": 1},
                )
                .returning(tabela.c.sequence_number)
            ).scalar_one()
            assert isinstance(numero, int) and numero > 0
    finally:
        engine.dispose()


def test_producer__commits_never_wait_for_each_other(db_url: str, conn: Conn) -> None:
    """One producer idles in an open transaction after inserting: another one inserts,
    commits and reads its number without waiting; readers get both, the older first."""
    with psycopg.connect(db_url) as ocioso, psycopg.connect(db_url) as outro:
        ocioso.execute("SET lock_timeout = '1s'")
        outro.execute("SET lock_timeout = '1s'")
        inserir = (
            "INSERT INTO core.event_log (event_id, tipo, origem, payload)"
            " VALUES (%s, %s, 'N-1', '{}') RETURNING event_id"
        )
        tardio = ocioso.execute(inserir, [uuid.uuid4(), TIPO]).fetchone()
        inicio = time.monotonic()
        cedo = outro.execute(inserir, [uuid.uuid4(), TIPO]).fetchone()
        outro.commit()
        assert time.monotonic() - inicio < 0.5
        assert bus.ler_desde(conn, TIPO, 0) == []
        ocioso.commit()
    assert tardio is not None and cedo is not None
    assert [e.event_id for e in bus.ler_desde(conn, TIPO, 0)] == [tardio[0], cedo[0]]


def _inserir(c: psycopg.Connection[Any], tipo: str = TIPO) -> uuid.UUID:
    event_id = uuid.uuid4()
    c.execute(
        "INSERT INTO core.event_log (event_id, tipo, origem, payload) VALUES (%s, %s, 'N-1', '{}')",
        [event_id, tipo],
    )
    return event_id


def test_migration__moves_a_live_log_with_events_in_flight(empty_db_url: str) -> None:
    """Today's head, events committed on both sides of a consumer's cursor, two producer
    transactions still open and a reader connected: the migration waits for the open
    ones, then every event and the cursor are kept and the reader continues from it."""
    url = empty_db_url
    migrations.upgrade(url, ANTES)
    with psycopg.connect(url, autocommit=True, row_factory=dict_row) as c:
        lidos_antes = [_inserir(c) for _ in range(3)]
        depois_do_cursor = [_inserir(c) for _ in range(2)]
        cursor = c.execute(
            "SELECT sequence_number FROM core.event_log WHERE event_id = %s", [lidos_antes[-1]]
        ).fetchone()
        assert cursor is not None
        semear_cursor(c, TIPO, cursor["sequence_number"])
    leitor = psycopg.connect(url, autocommit=True, row_factory=dict_row)
    voando = [psycopg.connect(url) for _ in range(2)]
    em_voo = [_inserir(p) for p in voando]
    migrado = threading.Event()
    falha: list[BaseException] = []

    def migrar() -> None:
        try:
            migrations.upgrade(url, migrations.head())
        except BaseException as exc:  # reported by the assertion below
            falha.append(exc)
        migrado.set()

    t = threading.Thread(target=migrar)
    t.start()
    try:
        assert not migrado.wait(1.0), "the migration must wait for the open transactions"
        for p in voando:
            p.commit()  # numbered by the old machinery, at commit
        t.join(60)
        assert migrado.is_set() and not falha, falha
        novo = _inserir(leitor)
        ultimo = leitor.execute(
            "SELECT sequence_number FROM core.event_log WHERE event_id = %s", [novo]
        ).fetchone()
        assert ultimo is not None
        # A worker of the previous version, still running, moves the cursor by sequence
        # number alone: the position stays where the migration recorded it.
        leitor.execute(
            "UPDATE d2.consumer_offset SET last_sequence = %s WHERE tipo_evento = %s",
            [ultimo["sequence_number"], TIPO],
        )
        position = leitor.execute(db.q("cursor_get"), {"tipo": TIPO}).fetchone()
        assert position == {"last_sequence": cursor["sequence_number"], "last_transacao": 0}
        eventos = bus.ler_desde(
            leitor, TIPO, bus.Position(position["last_transacao"], position["last_sequence"])
        )
        assert [e.event_id for e in eventos] == [*depois_do_cursor, *em_voo, novo]
        sem = leitor.execute(
            "SELECT count(*) AS n FROM core.event_log WHERE sequence_number IS NULL"
        ).fetchone()
        assert sem == {"n": 0}
        assert migrations.current(url) == migrations.head()
    finally:
        for p in voando:
            p.close()
        leitor.close()


def test_fence__a_long_write_transaction_delays_delivery_and_says_so(
    db_url: str, conn: Conn
) -> None:
    """A write transaction elsewhere (not touching the log) holds delivery back while it
    runs: the metric and `d2 status` show how many events wait and for how long."""
    m = metrics.Metrics()
    with psycopg.connect(db_url) as longa:
        longa.execute("SELECT pg_current_xact_id()")  # a transaction id: it writes
        with psycopg.connect(db_url) as produtor:
            esperado = _inserir(produtor, handler.TIPO_ENTRADA)
        time.sleep(0.2)
        assert bus.ler_desde(conn, handler.TIPO_ENTRADA, 0) == []
        m.atualizar_gauges(conn)
        texto = m.texto().decode()
        assert "d2_event_log_cerca_retidos 1.0" in texto
        atraso = bus.fence(conn, handler.TIPO_ENTRADA).atraso_s
        assert atraso >= 0.2
        estado = status.status(conn)["cursor"]
        assert estado["retidos"] == 1 and estado["atraso_retidos_s"] >= 0.2
        longa.rollback()
    assert [e.event_id for e in bus.ler_desde(conn, handler.TIPO_ENTRADA, 0)] == [esperado]
    m.atualizar_gauges(conn)
    assert "d2_event_log_cerca_retidos 0.0" in m.texto().decode()
    assert bus.fence(conn, handler.TIPO_ENTRADA) == bus.Fence(0, 0.0)
