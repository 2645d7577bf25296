"""The schema at head is committed (tests/migrations/esquema_head.txt) and a migrated
database must match it line for line; every revision goes up, down and up again (the
stairway); every live function in sql/functions is, at head, exactly what the database
runs (issue 18 item 1).

After a deliberate change to the schema: `D2_ESQUEMA_ATUALIZAR=1 scripts/test.sh
tests/migrations/test_esquema.py` rewrites the snapshot; review its diff like code."""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path
from typing import Any

import psycopg
from psycopg.rows import dict_row

from d2 import db, migrations

SNAPSHOT = Path(__file__).with_name("esquema_head.txt")

_CONSULTAS = {
    "relation": """
        SELECT n.nspname || '.' || c.relname || ' ' || c.relkind::text AS linha
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname IN ('d2', 'core') AND c.relkind IN ('r', 'v', 'm', 'S', 'p')
    """,
    "column": """
        SELECT table_schema || '.' || table_name || '.' || column_name || ' ' || data_type
               || CASE WHEN is_nullable = 'NO' THEN ' not null' ELSE '' END
               || coalesce(' default ' || column_default, '') AS linha
        FROM information_schema.columns WHERE table_schema IN ('d2', 'core')
    """,
    "index": """
        SELECT schemaname || ' ' || indexdef AS linha
        FROM pg_indexes WHERE schemaname IN ('d2', 'core')
    """,
    "constraint": """
        SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
               AS linha
        FROM pg_constraint
        WHERE connamespace IN (SELECT oid FROM pg_namespace WHERE nspname IN ('d2', 'core'))
    """,
    "function": """
        SELECT p.oid::regprocedure::text || ' ' || md5(pg_get_functiondef(p.oid)) AS linha
        FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname IN ('d2', 'core')
    """,
    "view": """
        SELECT schemaname || '.' || viewname || ' ' || md5(definition) AS linha
        FROM pg_views WHERE schemaname IN ('d2', 'core')
    """,
    "trigger": """
        SELECT pg_get_triggerdef(t.oid) AS linha
        FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE NOT t.tgisinternal AND n.nspname IN ('d2', 'core')
    """,
    "grant": """
        SELECT table_schema || '.' || table_name || ' ' || privilege_type || ' to ' || grantee
               AS linha
        FROM information_schema.role_table_grants
        WHERE grantee = 'd2_worker' AND table_schema IN ('d2', 'core')
    """,
    "execute": """
        SELECT p.oid::regprocedure::text || ' executable by d2_worker' AS linha
        FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname IN ('d2', 'core') AND has_function_privilege('d2_worker', p.oid, 'EXECUTE')
    """,
}


def esquema(conn: psycopg.Connection[Any]) -> list[str]:
    linhas = []
    for tipo, consulta in _CONSULTAS.items():
        linhas += sorted(f"{tipo} {r['linha']}" for r in conn.execute(consulta.encode()))
    return linhas


def test_schema_at_head_is_the_committed_snapshot(empty_db_url: str) -> None:
    migrations.upgrade(empty_db_url)
    with psycopg.connect(empty_db_url, row_factory=dict_row) as conn:
        atual = esquema(conn)
    if os.environ.get("D2_ESQUEMA_ATUALIZAR"):
        SNAPSHOT.write_text("\n".join(atual) + "\n", encoding="utf-8")
    esperado = SNAPSHOT.read_text(encoding="utf-8").splitlines()
    diferenca = list(difflib.unified_diff(esperado, atual, "committed", "migrated", lineterm=""))
    assert diferenca == [], "\n".join(diferenca[:80])


def test_stairway_every_revision_up_down_up(empty_db_url: str) -> None:
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(migrations._config(""))
    revisoes = [r.revision for r in reversed(list(script.walk_revisions()))]
    assert len(revisoes) == len(list((migrations.script_location() / "versions").glob("*.py")))
    anterior = "base"
    for revisao in revisoes:
        migrations.upgrade(empty_db_url, revisao)
        migrations.downgrade(empty_db_url, anterior)
        assert migrations.current(empty_db_url) == (None if anterior == "base" else anterior)
        migrations.upgrade(empty_db_url, revisao)
        anterior = revisao
    assert anterior == migrations.head()


_FUNCAO = re.compile(r"CREATE OR REPLACE FUNCTION\s+(\w+)\.(\w+)\s*\(", re.I)


def _corpo(texto: str) -> str:
    inicio = texto.index("$$") + 2
    return texto[inicio : texto.index("$$", inicio)]


def test_every_live_function_file_is_what_the_database_runs(conn: Any) -> None:
    divergentes, sem_arquivo = [], []
    arquivos: set[tuple[str, str]] = set()
    for arquivo in sorted((db.sql_dir() / "functions").glob("*.sql")):
        texto = arquivo.read_text(encoding="utf-8")
        achado = _FUNCAO.search(texto)
        assert achado is not None, arquivo.name
        esquema_, nome = achado.group(1), achado.group(2)
        arquivos.add((esquema_, nome))
        rows = conn.execute(
            "SELECT p.prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
            " WHERE n.nspname = %s AND p.proname = %s",
            [esquema_, nome],
        ).fetchall()
        if [r["prosrc"] for r in rows] != [_corpo(texto)]:
            divergentes.append(arquivo.name)
    for r in conn.execute(
        "SELECT n.nspname, p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
        " WHERE n.nspname = 'd2'"
        " AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')"
    ):
        if (r["nspname"], r["proname"]) not in arquivos:
            sem_arquivo.append(r["proname"])
    assert divergentes == []
    assert sorted(sem_arquivo) == []
