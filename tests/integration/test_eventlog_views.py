"""d2_worker sees only D-2's events and dead letters.

The worker's role holds nothing on core.event_log or core.dead_letter_queue: it reads
the log through the security-barrier view d2.eventos and the d2.eventos_* definer
functions (D-2's types only), publishes through d2.eventos_publicar (D-2's output types
only), and keeps its dead letters through d2.dead_letters (consumer 'D-2' or 'D-2/...').
Each test is an attack by a stolen worker login, and each fails against the grants of
the previous revision (SELECT, INSERT on the log; SELECT, INSERT, UPDATE on the dead
letters). The other colonies, who write the tables directly, see no change.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import psycopg
import pytest
from psycopg import sql

from d2.eventlog import bus, dead_letters
from tests.support import Conn
from tests.support.events import inserir_evento, payload_georreferenciada, payload_normalizada

SEGREDO = "cpf-123.456.789-00-de-outra-colonia"
OUTRO_TIPO = "pagamento.efetuado"


@pytest.fixture
def outro_dominio(conn: Conn) -> uuid.UUID:
    """An event of another colony, holding personal data, and one of D-2's beside it."""
    inserir_evento(conn, payload_normalizada(-27.0, -49.0))
    return inserir_evento(conn, {"cpf": SEGREDO}, tipo=OUTRO_TIPO, versao="1.0.0")


def _dead_letter_alheia(conn: Conn) -> uuid.UUID:
    event_id = uuid.uuid4()
    conn.execute(
        "INSERT INTO core.dead_letter_queue (consumidor, event_id, tipo, erro)"
        " VALUES ('D-4', %(id)s, %(tipo)s, %(erro)s)",
        {"id": event_id, "tipo": OUTRO_TIPO, "erro": SEGREDO},
    )
    return event_id


# --- reading the log --------------------------------------------------------------------


@pytest.mark.parametrize(
    "comando",
    [
        "SELECT payload FROM core.event_log",
        "COPY core.event_log TO STDOUT",
        "COPY (SELECT payload FROM core.event_log) TO STDOUT",
        "SELECT erro FROM core.dead_letter_queue",
        "COPY core.dead_letter_queue TO STDOUT",
    ],
)
def test_worker_role__reads_nothing_of_the_core_tables(
    como_worker: Conn, outro_dominio: uuid.UUID, comando: str
) -> None:
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        como_worker.execute(comando.encode())


def test_read_view__shows_d2_types_only(
    conn: Conn, como_worker: Conn, outro_dominio: uuid.UUID
) -> None:
    tipos = {r["tipo"] for r in como_worker.execute("SELECT tipo FROM d2.eventos")}
    assert tipos == {"demanda.normalizada"}
    assert (
        como_worker.execute(
            "SELECT * FROM d2.eventos WHERE event_id = %(id)s", {"id": outro_dominio}
        ).fetchall()
        == []
    )
    # The owner still sees the other colony's event: it is there, only hidden.
    assert conn.execute(
        "SELECT count(*) AS n FROM core.event_log WHERE event_id = %(id)s", {"id": outro_dominio}
    ).fetchone() == {"n": 1}


def test_read_view__a_leaky_function_sees_no_other_domain_payload(
    como_worker: Conn, outro_dominio: uuid.UUID
) -> None:
    """A function of the attacker's own (pg_temp: any role with TEMP may create one),
    cheap enough for the planner to run it first, that raises a NOTICE of every argument
    it sees. security_barrier runs the view's condition before it."""
    avisos: list[str] = []
    como_worker.add_notice_handler(lambda d: avisos.append(str(d.message_primary)))
    como_worker.execute(
        "CREATE FUNCTION pg_temp.vaza(t text) RETURNS boolean LANGUAGE plpgsql COST 0.0000001"
        " AS $$ BEGIN RAISE NOTICE 'vazou %', t; RETURN true; END $$"
    )
    como_worker.execute("SELECT count(*) FROM d2.eventos WHERE pg_temp.vaza(payload::text)")
    como_worker.execute("SELECT count(*) FROM d2.eventos WHERE pg_temp.vaza(tipo::text)")
    como_worker.execute("SELECT count(*) FROM d2.dead_letters WHERE pg_temp.vaza(erro)")
    assert avisos, "the leaky function ran on D-2's own rows"
    assert not [a for a in avisos if SEGREDO in a or OUTRO_TIPO in a]


@pytest.mark.parametrize(
    "chamada",
    [
        "SELECT * FROM d2.eventos_ler(ARRAY[%(t)s], NULL, 0, 500, 262144, 16777216)",
        "SELECT * FROM d2.eventos_cerca(%(t)s)",
        "SELECT d2.eventos_apos(%(t)s, '0'::xid8, 0)",
        "SELECT * FROM d2.eventos_ultimo_visivel(%(t)s)",
    ],
)
def test_definer_reads__refuse_another_type(
    como_worker: Conn, outro_dominio: uuid.UUID, chamada: str
) -> None:
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="does not read"):
        como_worker.execute(chamada.encode(), {"t": OUTRO_TIPO})


def test_definer_reads__serve_d2_types_as_the_worker(
    como_worker: Conn, outro_dominio: uuid.UUID
) -> None:
    eventos = bus.ler_desde(como_worker, "demanda.normalizada", 0)
    assert [e.tipo for e in eventos] == ["demanda.normalizada"]
    assert bus.fence(como_worker, "demanda.normalizada").retidos == 0


# --- publishing -------------------------------------------------------------------------


def test_publish_view__refuses_another_colonys_type(conn: Conn, como_worker: Conn) -> None:
    with pytest.raises(psycopg.errors.WithCheckOptionViolation):
        como_worker.execute(
            "INSERT INTO d2.eventos_publicar (event_id, tipo, versao_schema, origem, payload)"
            " VALUES (gen_random_uuid(), %(t)s, '1.0.0', 'D-2', '{}')",
            {"t": OUTRO_TIPO},
        )
    assert conn.execute(
        "SELECT count(*) AS n FROM core.event_log WHERE tipo = %(t)s", {"t": OUTRO_TIPO}
    ).fetchone() == {"n": 0}


@pytest.mark.parametrize(
    "comando",
    [
        "UPDATE d2.eventos_publicar SET payload = '{}'",
        "DELETE FROM d2.eventos_publicar",
        "SELECT payload FROM d2.eventos_publicar",
        "INSERT INTO d2.eventos (event_id, tipo, versao_schema, origem, payload)"
        " VALUES (gen_random_uuid(), 'demanda.normalizada', '1.0.0', 'x', '{}')",
        "UPDATE d2.eventos SET origem = 'x'",
        "DELETE FROM d2.eventos",
    ],
)
def test_publish_view__no_rewrite_of_published_events(
    como_worker: Conn, outro_dominio: uuid.UUID, comando: str
) -> None:
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        como_worker.execute(comando.encode())


def test_publish_view__d2_publishes_through_it(conn: Conn, como_worker: Conn) -> None:
    event_id = uuid.uuid4()
    with como_worker.transaction():
        evento = bus.preparar(
            "demanda.georreferenciada", payload_georreferenciada(), uuid.uuid4(), event_id=event_id
        )
        bus.publicar(como_worker, [evento], origem="D-2")
    row = conn.execute(
        "SELECT tipo, sequence_number > 0 AS numerado FROM core.event_log WHERE event_id = %(id)s",
        {"id": event_id},
    ).fetchone()
    assert row == {"tipo": "demanda.georreferenciada", "numerado": True}


# --- dead letters -----------------------------------------------------------------------


def test_dead_letters__another_consumers_are_invisible_and_untouchable(
    conn: Conn, como_worker: Conn
) -> None:
    alheia = _dead_letter_alheia(conn)
    assert como_worker.execute("SELECT * FROM d2.dead_letters").fetchall() == []
    atualizadas = como_worker.execute(
        "UPDATE d2.dead_letters SET status = 'descartado' WHERE event_id = %(id)s",
        {"id": alheia},
    )
    assert atualizadas.rowcount == 0
    for comando in (
        "INSERT INTO d2.dead_letters (consumidor, event_id, tipo, erro)"
        " VALUES ('D-4', gen_random_uuid(), 'x', 'forjada')",
        "INSERT INTO d2.dead_letters (consumidor, event_id, tipo, erro)"
        " VALUES ('D-2x', gen_random_uuid(), 'x', 'forjada')",
    ):
        with pytest.raises(psycopg.errors.WithCheckOptionViolation):
            como_worker.execute(comando.encode())
    dead_letters.registrar(
        como_worker,
        consumer="D-2",
        event_id=uuid.uuid4(),
        tipo="demanda.normalizada",
        sequence_number=None,
        erro="ruim",
    )
    with pytest.raises(psycopg.errors.WithCheckOptionViolation):
        como_worker.execute("UPDATE d2.dead_letters SET consumidor = 'D-4'")
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        como_worker.execute("DELETE FROM d2.dead_letters")
    row = conn.execute(
        "SELECT status, erro FROM core.dead_letter_queue WHERE event_id = %(id)s",
        {"id": alheia},
    ).fetchone()
    assert row == {"status": "pendente", "erro": SEGREDO}


def test_dead_letters__d2_and_its_stages_record_count_and_mark_theirs(
    conn: Conn, como_worker: Conn
) -> None:
    event_id = uuid.uuid4()
    for consumer in ("D-2", "D-2/territorio"):
        for _ in range(2):  # the second time counts one more try (ON CONFLICT through the view)
            dead_letters.registrar(
                como_worker,
                consumer=consumer,
                event_id=event_id,
                tipo="demanda.normalizada",
                sequence_number=None,
                erro="ruim",
            )
    dead_letters.marcar(como_worker, event_id, "descartado", consumer="D-2/territorio")
    rows = conn.execute(
        "SELECT consumidor, tentativas, status FROM core.dead_letter_queue"
        " WHERE event_id = %(id)s ORDER BY consumidor",
        {"id": event_id},
    ).fetchall()
    assert rows == [
        {"consumidor": "D-2", "tentativas": 2, "status": "pendente"},
        {"consumidor": "D-2/territorio", "tentativas": 2, "status": "descartado"},
    ]


# --- the other colonies see no change ---------------------------------------------------


def test_other_colonies__still_write_the_log_directly(conn: Conn) -> None:
    """A colony's role with what the monolith gives it on the log: INSERT ... RETURNING
    sequence_number and COPY FROM work as without D-2 (no row security, no trigger)."""
    papel = f"colonia_{uuid.uuid4().hex[:8]}"
    conn.execute(sql.SQL("CREATE ROLE {}").format(sql.Identifier(papel)))
    serial = conn.execute(
        "SELECT pg_get_serial_sequence('core.event_log', 'sequence_number') AS s"
    ).fetchone()
    assert serial is not None and serial["s"]
    conn.execute(sql.SQL("GRANT USAGE ON SCHEMA core TO {}").format(sql.Identifier(papel)))
    conn.execute(
        sql.SQL("GRANT SELECT, INSERT ON core.event_log TO {}").format(sql.Identifier(papel))
    )
    conn.execute(
        sql.SQL("GRANT USAGE ON SEQUENCE {} TO {}").format(
            sql.SQL(serial["s"]), sql.Identifier(papel)
        )
    )
    try:
        with conn.transaction():
            conn.execute(sql.SQL("SET LOCAL ROLE {}").format(sql.Identifier(papel)))
            row = conn.execute(
                "INSERT INTO core.event_log (event_id, tipo, origem, payload)"
                " VALUES (gen_random_uuid(), %(t)s, 'D-4', '{}') RETURNING sequence_number",
                {"t": OUTRO_TIPO},
            ).fetchone()
            assert row is not None and row["sequence_number"] > 0
            with conn.cursor().copy(
                "COPY core.event_log (event_id, tipo, origem, payload) FROM STDIN"
            ) as copia:
                copia.write_row((uuid.uuid4(), OUTRO_TIPO, "D-4", "{}"))
        n = conn.execute(
            "SELECT count(*) AS n FROM core.event_log WHERE tipo = %(t)s", {"t": OUTRO_TIPO}
        ).fetchone()
        assert n == {"n": 2}
    finally:
        conn.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(papel)))
        conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(papel)))


# --- d2 db verify -----------------------------------------------------------------------


def test_verify__as_the_worker_role_says_so_in_one_line(login_url: str) -> None:
    feito = subprocess.run(
        [sys.executable, "-m", "d2.cli", "db", "verify"],
        env=os.environ | {"DATABASE_URL": login_url},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert feito.returncode == 1
    assert "Traceback" not in feito.stderr
    linhas = feito.stderr.strip().splitlines()
    assert len(linhas) == 1 and "needs the role that runs the migrations" in linhas[0]
