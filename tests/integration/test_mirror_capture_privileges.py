"""Abuse of the change capture and the applier by ordinary roles.

An attacker with an ordinary role: a colony that may write core.uc_polygons (and holds
nothing in d2), or the worker's login (d2_worker). The capture trigger runs as D-2's
owner (SECURITY DEFINER): it must let the writer record exactly its own changes and
nothing else; the applier must be callable by the worker only, and do only its job.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.rows import dict_row

from d2.territorio import mirror
from tests.conftest import Server
from tests.support import Conn
from tests.support.territorio import poligono, quadrado

SENHA = "outra-colonia-123"


@pytest.fixture
def papel(conn: Conn, pg_server: Server) -> Iterator[Any]:
    """Makes LOGIN roles for the test (given extra grants); drops them afterwards."""
    criados: list[str] = []
    banco = conn.execute("SELECT current_database() AS d").fetchone()
    assert banco is not None

    def criar(*grants: str) -> Conn:
        nome = f"d2_abuso_{uuid.uuid4().hex[:8]}"
        conn.execute(
            sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(
                sql.Identifier(nome), sql.Literal(SENHA)
            )
        )
        criados.append(nome)
        for grant in grants:
            conn.execute(sql.SQL(grant).format(sql.Identifier(nome)))  # type: ignore[arg-type]
        url = Server(nome, pg_server.host, pg_server.port, SENHA).url(banco["d"])
        return psycopg.connect(url, autocommit=True, row_factory=dict_row)

    yield criar
    for nome in criados:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %(n)s",
            {"n": nome},
        )
        conn.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(nome)))
        conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(nome)))


_ESCRITOR = (
    "GRANT USAGE ON SCHEMA core TO {}",
    "GRANT SELECT, INSERT, UPDATE, DELETE ON core.uc_polygons TO {}",
)


def _inserir(c: Conn, x: float) -> uuid.UUID:
    uc = uuid.uuid4()
    c.execute(
        "INSERT INTO core.uc_polygons (id, unidade_civica_id, nivel, nome, geometria, fonte) "
        "VALUES (gen_random_uuid(), %s, 4, 'M', %s::jsonb, 'outra')",
        [uc, json.dumps(poligono(quadrado(x, 0, x + 1, 1)))],
    )
    return uc


def test_another_colony_writes_without_any_right_in_d2(conn: Conn, papel: Any) -> None:
    with papel(*_ESCRITOR) as colonia:
        uc = _inserir(colonia, 0)
        colonia.execute("UPDATE core.uc_polygons SET nome = 'N'")
        colonia.execute("DELETE FROM core.uc_polygons")
    rows = conn.execute("SELECT unidade_civica_id FROM d2.mirror_mudancas").fetchall()
    assert [r["unidade_civica_id"] for r in rows] == [uc] * 4  # insert, update old+new, delete


ABUSOS_DA_COLONIA = {
    "read_changes": "SELECT * FROM d2.mirror_mudancas",
    "forge_change": "INSERT INTO d2.mirror_mudancas (uc_polygon_id) VALUES (NULL)",
    "erase_changes": "DELETE FROM d2.mirror_mudancas",
    "call_capture": "SELECT d2.uc_polygons_capturar()",
    "apply": "SELECT * FROM d2.mirror_aplicar()",
    "rebuild": "SELECT * FROM d2.mirror_rebuild()",
    "write_mirror": "DELETE FROM d2.mirror_uc",
}


@pytest.mark.parametrize("acao", sorted(ABUSOS_DA_COLONIA))
def test_another_colony_cannot_reach_the_capture_or_the_mirror(
    conn: Conn, papel: Any, acao: str
) -> None:
    with papel(*_ESCRITOR, "GRANT USAGE ON SCHEMA d2 TO {}") as colonia:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            colonia.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
            try:
                colonia.execute(ABUSOS_DA_COLONIA[acao])
            finally:
                colonia.execute("ROLLBACK")


def test_a_colony_cannot_redirect_the_definer_trigger_by_search_path(
    conn: Conn, papel: Any
) -> None:
    """A writer that owns a schema puts a look-alike mirror_mudancas first in its
    search_path: the trigger (search_path pinned, names qualified) still writes D-2's."""
    with papel(*_ESCRITOR) as colonia:
        conn.execute(
            sql.SQL("CREATE SCHEMA armadilha AUTHORIZATION {}").format(
                sql.Identifier(colonia.info.user)
            )
        )
        colonia.execute("CREATE TABLE armadilha.mirror_mudancas (uc_polygon_id uuid, x int)")
        colonia.execute("SET search_path = armadilha, pg_catalog, public")
        uc = _inserir(colonia, 0)
        falsas = colonia.execute("SELECT count(*) AS n FROM armadilha.mirror_mudancas")
        assert falsas.fetchone() == {"n": 0}
    row = conn.execute("SELECT unidade_civica_id FROM d2.mirror_mudancas").fetchone()
    assert row == {"unidade_civica_id": uc}


def test_the_worker_applies_but_cannot_write_the_mirror_or_forge_changes(
    conn: Conn, papel: Any
) -> None:
    _inserir(conn, 0)
    with papel("GRANT d2_worker TO {}") as trabalhador:
        assert mirror.pendentes(trabalhador) == 1
        feito = mirror.aplicar(trabalhador)
        assert feito is not None and feito.changes == 1
        for abuso in (
            "INSERT INTO d2.mirror_mudancas (uc_polygon_id) VALUES (NULL)",
            "DELETE FROM d2.mirror_mudancas",
            "DELETE FROM d2.mirror_uc",
            "UPDATE d2.mirror_state SET versao = 0",
            "SELECT * FROM d2.mirror_rebuild()",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                trabalhador.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
                try:
                    trabalhador.execute(abuso)
                finally:
                    trabalhador.execute("ROLLBACK")
    assert conn.execute("SELECT count(*) AS n FROM d2.mirror_uc").fetchone() == {"n": 1}
