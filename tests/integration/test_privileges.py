"""Least privilege (docs/reliability.md, section 1): the worker runs as a login that holds
only d2_worker.

It handles every outcome (resolution, discard, review, dead letter, republish) with those
grants and nothing more, and it cannot touch core.uc_polygons or write anywhere else.
Also: the DATABASE_URL password never reaches the logs, nor do GPS coordinates, not even
on the invalid-coordinates ERROR line (LGPD).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import LiteralString, cast

import psycopg
import pytest
from psycopg import sql
from psycopg.rows import dict_row

from d2 import config, migrations
from d2.worker import loop
from tests.conftest import Server
from tests.support import SENHA_WORKER as SENHA
from tests.support import Conn, invariants, semear_cursor
from tests.support.events import inserir_evento, payload_normalizada
from tests.support.territorio import Territorio, sincronizar_mirror


def _backlog_de_todos_os_outcomes(conn: Conn) -> dict[str, uuid.UUID]:
    repetida = uuid.uuid4()
    return {
        "georreferenciada": inserir_evento(conn, payload_normalizada(-27.0, -49.0)),
        "georreferenciada_duplicada_original": inserir_evento(
            conn, payload_normalizada(-26.0, -42.0, demanda_id=repetida)
        ),
        # The same demanda again: the same place is a retry (a dead letter), another
        # place a conflict for an operator.
        "dead_letter_duplicada": inserir_evento(
            conn, payload_normalizada(-26.0, -42.0, demanda_id=repetida)
        ),
        "conflito": inserir_evento(conn, payload_normalizada(-26.5, -43.0, demanda_id=repetida)),
        "revisao_pendente": inserir_evento(conn, payload_normalizada(10.0, 10.0)),
        "coordenadas_invalidas": inserir_evento(conn, payload_normalizada(123.0, 0.0)),
        "sem_coordenadas": inserir_evento(conn, payload_normalizada(coordenadas_validadas=None)),
        "dead_letter_nao_uuid": inserir_evento(conn, {"demanda_id": "não-é-uuid"}),
        "dead_letter_versao": inserir_evento(conn, payload_normalizada(), versao="9.0.0"),
    }


def _contagens(conn: Conn) -> dict[str, int]:
    row = conn.execute(
        """
        SELECT (SELECT count(*) FROM d2.resolucoes_geo) AS resolucoes,
               (SELECT count(*) FROM d2.revisoes_geo_pendentes) AS revisoes,
               (SELECT count(*) FROM core.dead_letter_queue) AS dead_letters,
               (SELECT count(*) FROM core.event_log
                WHERE tipo = 'demanda.georreferenciada') AS publicados
        """
    ).fetchone()
    assert row is not None
    return dict(row)


def test_worker_role__is_nologin_and_not_privileged(conn: Conn) -> None:
    row = conn.execute(
        "SELECT rolcanlogin, rolsuper, rolcreaterole, rolcreatedb, rolbypassrls "
        "FROM pg_roles WHERE rolname = 'd2_worker'"
    ).fetchone()
    assert row == {
        "rolcanlogin": False,
        "rolsuper": False,
        "rolcreaterole": False,
        "rolcreatedb": False,
        "rolbypassrls": False,
    }


def test_worker_role__drain_handles_every_outcome_including_dlq_and_review(
    conn: Conn, login_url: str, como_worker: Conn
) -> None:
    Territorio(conn)
    semear_cursor(conn)
    eventos = _backlog_de_todos_os_outcomes(conn)
    usuario = como_worker.execute("SELECT current_user AS u").fetchone()
    assert usuario is not None and usuario["u"].startswith("d2_app_")

    resultado = loop.Worker(config.load(), url=login_url, batch_size=3).executar(drain=True)

    assert resultado.contagem == {
        "georreferenciada": 2,
        "revisao_pendente": 1,
        "coordenadas_invalidas": 1,
        "sem_coordenadas": 1,
        "dead_letter": 3,
        "conflito": 1,
    }
    mortos = {r["event_id"] for r in conn.execute("SELECT event_id FROM core.dead_letter_queue")}
    assert mortos == {
        eventos["dead_letter_duplicada"],
        eventos["dead_letter_nao_uuid"],
        eventos["dead_letter_versao"],
    }
    invariants.verificar(conn)


def test_worker_role__replay_from_zero_republishes_without_new_rows(
    conn: Conn, login_url: str
) -> None:
    Territorio(conn)
    semear_cursor(conn)
    _backlog_de_todos_os_outcomes(conn)
    loop.Worker(config.load(), url=login_url).executar(drain=True)
    antes = _contagens(conn)
    conn.execute("UPDATE d2.consumer_offset SET last_sequence = 0")

    resultado = loop.Worker(config.load(), url=login_url).executar(drain=True)

    assert resultado.contagem["republicada"] == 2
    depois = _contagens(conn)
    # One of the two is held back: its demanda is in conflict.
    assert depois == antes | {"publicados": antes["publicados"] + 1}
    invariants.verificar(conn)


def test_worker_role__downgrade_revokes_here_and_keeps_the_role_other_databases_use(
    empty_db_url: str, template_db: str
) -> None:
    """template_db (migrated, so holding grants for d2_worker) is the other database."""

    def pode_ler_uc_polygons() -> bool:
        with psycopg.connect(empty_db_url, row_factory=dict_row) as c:
            row = c.execute(
                "SELECT has_table_privilege('d2_worker', 'core.uc_polygons', 'SELECT') AS ok"
            ).fetchone()
        return bool(row and row["ok"])

    migrations.upgrade(empty_db_url)
    assert pode_ler_uc_polygons()
    migrations.downgrade(empty_db_url, "20261202130500_d2_resolver_fast")
    assert not pode_ler_uc_polygons()
    with psycopg.connect(empty_db_url, row_factory=dict_row) as c:
        # The test template database (and its clones) still hold grants for the role.
        existe = c.execute("SELECT count(*) AS n FROM pg_roles WHERE rolname = 'd2_worker'")
        assert existe.fetchone() == {"n": 1}
    migrations.upgrade(empty_db_url)
    assert pode_ler_uc_polygons()


PROIBIDO_UC_POLYGONS = {
    "insert": "INSERT INTO core.uc_polygons (id, unidade_civica_id, nivel, nome, geometria, "
    "fonte) VALUES (gen_random_uuid(), gen_random_uuid(), 4, 'x', "
    """'{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}', 'x')""",
    "update": "UPDATE core.uc_polygons SET nome = 'invadido'",
    "delete": "DELETE FROM core.uc_polygons",
    "truncate": "TRUNCATE core.uc_polygons",
    "alter": "ALTER TABLE core.uc_polygons ADD COLUMN x int",
    "drop": "DROP TABLE core.uc_polygons",
}


@pytest.mark.parametrize("acao", sorted(PROIBIDO_UC_POLYGONS))
def test_worker_role__cannot_modify_uc_polygons(conn: Conn, como_worker: Conn, acao: str) -> None:
    Territorio(conn)
    antes = conn.execute("SELECT count(*) AS n, max(nome) AS m FROM core.uc_polygons").fetchone()
    comando = PROIBIDO_UC_POLYGONS[acao]
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        como_worker.execute(comando)
    depois = conn.execute("SELECT count(*) AS n, max(nome) AS m FROM core.uc_polygons").fetchone()
    assert depois == antes


PROIBIDO_FORA = {
    "create_in_public": "CREATE TABLE public.intrusa (x int)",
    "create_in_d2": "CREATE TABLE d2.intrusa (x int)",
    "create_in_core": "CREATE TABLE core.intrusa (x int)",
    "create_schema": "CREATE SCHEMA intrusa",
    "write_alembic_version": "DELETE FROM public.d2_alembic_version",
    "update_event_log": "UPDATE core.event_log SET origem = 'x'",
    "delete_event_log": "DELETE FROM core.event_log",
    "truncate_event_log": "TRUNCATE core.event_log",
    "delete_dead_letters": "DELETE FROM core.dead_letter_queue",
    "write_mirror": "DELETE FROM d2.mirror_pieces",
    "write_mirror_state": "UPDATE d2.mirror_state SET versao = versao + 1",
    "read_regeo_history": "SELECT * FROM d2.resolucoes_geo_historico",
    "truncate_resolucoes": "TRUNCATE d2.resolucoes_geo",
    "drop_resolucoes": "DROP TABLE d2.resolucoes_geo",
    "alter_consumer_offset": "ALTER TABLE d2.consumer_offset ADD COLUMN x int",
    "replace_resolver": "CREATE OR REPLACE FUNCTION d2.resolver_territorio("
    "lat double precision, lng double precision) RETURNS TABLE (unidade_civica_id uuid, "
    "nivel_minimo_resolvido int, cadeia_ucs uuid[]) LANGUAGE sql AS 'SELECT NULL::uuid, 1, "
    "NULL::uuid[]'",
    "set_sequence": "SELECT setval('core.event_log_numeracao_seq', 1)",
}


@pytest.mark.parametrize("acao", sorted(PROIBIDO_FORA))
def test_worker_role__cannot_create_or_write_outside_its_grants(
    como_worker: Conn, acao: str
) -> None:
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        como_worker.execute(PROIBIDO_FORA[acao])


def test_worker_role__cannot_choose_the_position_of_what_it_publishes(
    conn: Conn, como_worker: Conn
) -> None:
    """d2_worker publishes through d2.eventos_publicar with INSERT on the event's own
    columns only: sequence_number, transacao and publicado_em take the table's defaults,
    so it cannot place an event behind the other consumers' cursors."""
    inserir = (
        "INSERT INTO d2.eventos_publicar (event_id, tipo, versao_schema, origem, payload{})"
        " VALUES (%(id)s, 'demanda.georreferenciada', '1.0.0', 'D-2', '{{}}'{})"
    )
    for coluna, valor in (
        ("transacao", "'1'::xid8"),
        ("sequence_number", "-1"),
        ("publicado_em", "'2000-01-01'"),
    ):
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            como_worker.execute(
                cast(LiteralString, inserir.format(f", {coluna}", f", {valor}")),
                {"id": uuid.uuid4()},
            )
    proprio = uuid.uuid4()
    como_worker.execute(cast(LiteralString, inserir.format("", "")), {"id": proprio})
    row = conn.execute(
        "SELECT transacao IS NOT NULL AND transacao::text::bigint > 1 AS ok FROM core.event_log"
        " WHERE event_id = %(id)s",
        {"id": proprio},
    ).fetchone()
    assert row == {"ok": True}


# --- secrets and personal data in the logs ----------------------------------------------


def _rodar_worker(url: str, log: Path, *args: str, timeout: float = 60) -> int | None:
    """The real `d2 worker`: stderr (the JSON logs) to log, stdout to log + '.out'."""
    env = os.environ | {"DATABASE_URL": url, "D2_POLL_INTERVAL": "0.2"}
    with open(log, "ab") as erros, open(log.with_suffix(".out"), "ab") as saida:
        proc = subprocess.Popen(
            [sys.executable, "-m", "d2.cli", "worker", *args],
            env=env,
            stdout=saida,
            stderr=erros,
        )
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            return None


def test_logs__database_password_never_appears(
    conn: Conn, login_url: str, tmp_path: Path, pg_server: Server
) -> None:
    Territorio(conn)
    semear_cursor(conn)
    _backlog_de_todos_os_outcomes(conn)
    log = tmp_path / "worker.log"
    assert _rodar_worker(login_url, log, "--drain", "--log-level", "DEBUG") == 0
    # Unreachable (wrong port) and wrong database: the worker retries / fails, and says so.
    inalcancavel = Server("ninguem", pg_server.host, 1, SENHA).url("nada")
    inexistente = Server("ninguem", pg_server.host, pg_server.port, SENHA).url("nada")
    _rodar_worker(inalcancavel, log, "--drain", "--log-level", "DEBUG", timeout=3)
    _rodar_worker(inexistente, log, "--drain", "--log-level", "DEBUG", timeout=3)
    texto = log.read_text(errors="replace") + log.with_suffix(".out").read_text(errors="replace")
    assert "Demanda georreferenciada" in texto and "connect" in texto
    assert SENHA not in texto


def test_logs__gps_coordinates_in_no_log_line_not_even_the_invalid_coordinates_error(
    conn: Conn, login_url: str, tmp_path: Path
) -> None:
    Territorio(conn)
    semear_cursor(conn)
    # Distinctive values, easy to find in any log line.
    valido = payload_normalizada(-27.123457, -48.765432)
    fora = payload_normalizada(12.345678, 23.456789)
    invalido = payload_normalizada(98.765432, -48.765432)
    for payload in (valido, fora, invalido):
        inserir_evento(conn, payload)
    log = tmp_path / "worker.log"
    assert _rodar_worker(login_url, log, "--drain", "--log-level", "DEBUG") == 0
    linhas = [json.loads(linha) for linha in log.read_text().splitlines() if linha.startswith("{")]
    assert len(linhas) > 3
    marcas = ("27.123457", "48.765432", "12.345678", "23.456789", "98.765432")
    com_coordenadas = [linha for linha in linhas if any(m in json.dumps(linha) for m in marcas)]
    assert com_coordenadas == []
    # The invalid pair's line is there, naming the field and the rule.
    assert any(
        linha["msg"] == "Coordenadas inválidas" and "lat must be between" in linha["motivo"]
        for linha in linhas
    )


@pytest.mark.parametrize(
    "url",
    [
        f"host=/nada port=1 user=u password:{SENHA} dbname=d",
        f"postgresql://u:{SENHA[:5]} {SENHA[5:]}@/d",
        f"postgresql://u:{SENHA}@/d?opcao_inexistente=1",
        f"postgresql://u:{SENHA}@/d?port=abc",
    ],
    ids=["keyword_typo", "space_in_password", "unknown_option", "bad_port"],
)
def test_logs__malformed_database_url_is_a_config_error_without_the_password(
    url: str, tmp_path: Path
) -> None:
    log = tmp_path / "worker.log"
    assert _rodar_worker(url, log, "--drain", timeout=20) == 2
    texto = log.read_text(errors="replace") + log.with_suffix(".out").read_text(errors="replace")
    assert "d2: error:" in texto
    assert SENHA not in texto and SENHA[5:] not in texto


# --- definer functions: pinned search_path, no EXECUTE for PUBLIC ------------------------

# Definer functions d2_worker calls: each validates what it writes or reads (tests of
# its own).
_DO_WORKER = frozenset(
    {
        # Citizen drawings, given an event's id only.
        "d2.territorio_tentar(uuid)",
        "d2.territorio_avaliar(uuid)",
        "d2.territorio_submeter(uuid,integer)",
        "d2.mirror_aplicar()",
        "d2.mirror_faixas_construir()",
        # The resolver's WARNING while changes wait: reads only how many change rows exist.
        "d2.mirror_aviso()",
        # Reads of the log, D-2's types only (tests/integration/test_eventlog_views.py).
        "d2.eventos_ler(character varying[],xid8,bigint,integer,bigint,bigint)",
        "d2.replica_aplicar(uuid)",
        # Records the breaker's stop: nothing else.
        "d2.replica_parar(uuid)",
        "d2.eventos_cerca(character varying)",
        "d2.eventos_apos(character varying,xid8,bigint)",
        "d2.eventos_ultimo_visivel(character varying)",
    }
)

_DEFINIDAS = """
SELECT p.oid::regprocedure::text AS funcao,
       p.prorettype = 'trigger'::regtype AS gatilho,
       (SELECT c.valor FROM unnest(p.proconfig) x (c)
        CROSS JOIN LATERAL (SELECT substr(x.c, 13) AS valor) c
        WHERE x.c LIKE 'search_path=%%') AS search_path,
       p.proacl IS NULL OR EXISTS (
           SELECT 1 FROM aclexplode(p.proacl) a
           WHERE a.grantee = 0 AND a.privilege_type = 'EXECUTE'
       ) AS execute_public
FROM pg_proc p
JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname IN ('d2', 'core')
  AND p.prosecdef
  AND p.proowner = (SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user)
ORDER BY 1
"""


def test_definer_functions__search_path_pinned_with_pg_temp_last_and_no_public_execute(
    conn: Conn,
) -> None:
    """Catalog-driven: covers definer functions added by any later migration too."""
    funcoes = conn.execute(_DEFINIDAS).fetchall()
    nomes = {f["funcao"].split("(")[0] for f in funcoes}
    # At least these, whatever migrations add: the mirror's applier, the change capture,
    # the drawings' entry into core.uc_polygons.
    assert {"d2.mirror_aplicar", "d2.uc_polygons_capturar", "d2.territorio_submeter"} <= nomes
    extensoes = {
        r["nspname"]
        for r in conn.execute(
            "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n "
            "ON n.oid = e.extnamespace WHERE e.extname IN ('postgis', 'unaccent')"
        )
    }
    assert migrations.writable_schemas(conn) == []
    for f in funcoes:
        assert f["search_path"] is not None, f
        caminho = [s.strip().strip('"') for s in f["search_path"].split(",")]
        assert caminho[0] == "pg_catalog" and caminho[-1] == "pg_temp", f
        assert set(caminho[1:-1]) <= extensoes, f
        assert not f["execute_public"], f


def _chamada(conn: Conn, assinatura: str) -> sql.Composed:
    """SELECT f(NULL::t1, NULL::t2, ...) for a regprocedure text, types from the catalog."""
    row = conn.execute(
        "SELECT n.nspname, p.proname, "
        "array(SELECT format_type(t, NULL) FROM unnest(p.proargtypes) t) AS tipos "
        "FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
        "WHERE p.oid = %(f)s::regprocedure",
        {"f": assinatura},
    ).fetchone()
    assert row is not None
    # Type names come from the catalog of the test's own database.
    argumentos = sql.SQL(", ").join(
        sql.SQL("NULL::{}").format(sql.SQL(cast(LiteralString, t))) for t in row["tipos"]
    )
    return sql.SQL("SELECT {}.{}({})").format(
        sql.Identifier(row["nspname"]), sql.Identifier(row["proname"]), argumentos
    )


def test_definer_functions__neither_d2_worker_nor_an_ordinary_role_may_call_any(
    conn: Conn, como_worker: Conn, db_url: str, pg_server: Server
) -> None:
    """d2_worker (which has USAGE on d2) used to be able to truncate and rebuild the
    mirror in a loop; every definer function is now refused to it, but the ones it is
    meant to call (_DO_WORKER), and every one to a role with nothing."""
    Territorio(conn)
    comum = f"comum_{uuid.uuid4().hex[:10]}"
    conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD 'x'").format(sql.Identifier(comum)))
    try:
        url_comum = Server(comum, pg_server.host, pg_server.port, "x").url(conn.info.dbname)
        funcoes = conn.execute(_DEFINIDAS).fetchall()
        with psycopg.connect(url_comum, autocommit=True) as como_comum:
            for f in funcoes:
                do_worker = f["funcao"] in _DO_WORKER
                for papel in ("d2_worker", comum):
                    pode = conn.execute(
                        "SELECT has_function_privilege(%(p)s, %(f)s, 'EXECUTE') AS ok",
                        {"p": papel, "f": f["funcao"]},
                    ).fetchone()
                    assert pode == {"ok": do_worker and papel == "d2_worker"}, (papel, f["funcao"])
                if f["gatilho"]:
                    continue  # cannot be called directly at all
                chamada = _chamada(conn, f["funcao"])
                for sessao in (como_comum,) if do_worker else (como_worker, como_comum):
                    with pytest.raises(psycopg.errors.InsufficientPrivilege):
                        sessao.execute(chamada)
    finally:
        conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(comum)))
    mirror = conn.execute("SELECT count(*) AS n FROM d2.mirror_uc").fetchone()
    assert mirror is not None and mirror["n"] > 0


def test_definer_functions__writers_of_uc_polygons_need_no_execute_grant(
    conn: Conn, db_url: str, pg_server: Server
) -> None:
    """EXECUTE on a trigger function is checked when the trigger is created, not when it
    fires: a writer with only INSERT/UPDATE/DELETE on core.uc_polygons has its changes
    recorded by the (definer) capture triggers, and D-2 brings the mirror up to date."""
    escritor = f"escritor_{uuid.uuid4().hex[:10]}"
    conn.execute(
        sql.SQL(
            "CREATE ROLE {} LOGIN PASSWORD 'x'; GRANT USAGE ON SCHEMA core TO {}; "
            "GRANT SELECT, INSERT, UPDATE, DELETE ON core.uc_polygons TO {}"
        ).format(sql.Identifier(escritor), sql.Identifier(escritor), sql.Identifier(escritor))
    )
    try:
        url = Server(escritor, pg_server.host, pg_server.port, "x").url(conn.info.dbname)
        with psycopg.connect(url, autocommit=True, row_factory=dict_row) as como_escritor:
            with como_escritor.transaction():  # the writer cannot apply the mirror: D-2 does
                Territorio(como_escritor)
            como_escritor.execute("UPDATE core.uc_polygons SET nome = nome || ' 2'")
        sincronizar_mirror(conn)
        row = conn.execute(
            "SELECT (SELECT count(*) FROM core.uc_polygons) AS fonte, "
            "(SELECT count(*) FROM d2.mirror_uc) + (SELECT count(*) FROM d2.mirror_rejected) "
            "AS espelho, (SELECT count(*) FROM d2.mirror_cadeias) AS cadeias"
        ).fetchone()
        assert row is not None and row["fonte"] > 0
        assert row["espelho"] == row["fonte"] and row["cadeias"] > 0
    finally:
        conn.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(escritor)))
        conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(escritor)))
