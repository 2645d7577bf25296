"""The schema at head is committed (tests/migrations/schema_head.txt) and a migrated
database must match it line for line; every revision goes up, down and up again (the
stairway); every live function in sql/functions is, at head, exactly what the database
runs; and sql/tables builds exactly the tables the migrations build.

After a deliberate change to the schema: `D2_SCHEMA_UPDATE=1 scripts/test.sh
tests/migrations/test_schema.py` rewrites the snapshot; review its diff like code.

sql/tables is the readable, live definition of every table at head, one file per table
with its columns, constraints, indexes, owned sequences and comments: `<table>.sql` for
schema d2, `core.<table>.sql` for the core tables D-2 creates where the monolith has
none. No migration reads it. To change a table, edit its file AND write the migration
that makes the change (ALTER TABLE ..., CREATE INDEX ...), then refresh the snapshot.
test_sql_tables_build_what_the_migrations_build applies those files alone to an empty
database and diffs the catalogue of every table (columns in order, types with their
modifiers, defaults, NOT NULL, identity, constraints, indexes, sequences, comments)
against a migrated one: "-" lines are what the migrations build, "+" lines what the
files build. Files are applied in the order their REFERENCES need."""

from __future__ import annotations

import difflib
import graphlib
import os
import re
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql
from psycopg.rows import dict_row

from d2 import db, migrations

SNAPSHOT = Path(__file__).with_name("schema_head.txt")

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
    if os.environ.get("D2_SCHEMA_UPDATE"):
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


class _Desfazer(Exception):
    pass


def _corpo_padrao(conn: Any, texto: str, esquema_: str, nome: str) -> bool:
    """Whether a function with a SQL-standard body (RETURN, BEGIN ATOMIC: PostgreSQL keeps
    it parsed, not as text) is what the file creates: the file's function created under
    another name, in a transaction undone, and both bodies as PostgreSQL prints them."""
    copia = f"{nome}__arquivo"
    corpos = []
    try:
        with conn.transaction():
            conn.execute(_FUNCAO.sub(f"CREATE OR REPLACE FUNCTION {esquema_}.{copia}(", texto, 1))
            for n in (nome, copia):
                linha = conn.execute(
                    "SELECT pg_get_function_sqlbody(p.oid) AS corpo FROM pg_proc p"
                    " JOIN pg_namespace s ON s.oid = p.pronamespace"
                    " WHERE s.nspname = %s AND p.proname = %s",
                    [esquema_, n],
                ).fetchone()
                corpos.append(linha["corpo"] if linha else None)
            raise _Desfazer
    except _Desfazer:
        pass
    return corpos[0] is not None and corpos[0] == corpos[1]


def test_every_live_function_file_is_what_the_database_runs(conn: Any) -> None:
    divergentes, sem_arquivo = [], []
    arquivos: set[tuple[str, str]] = set()
    for arquivo in sorted((db.sql_dir() / "functions").glob("*.sql")):
        texto = arquivo.read_text(encoding="utf-8")
        achado = _FUNCAO.search(texto)
        assert achado is not None, arquivo.name
        esquema_, nome = achado.group(1), achado.group(2)
        arquivos.add((esquema_, nome))
        if "$$" not in texto:
            if _corpo_padrao(conn, texto, esquema_, nome) is False:
                divergentes.append(arquivo.name)
            continue
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


TABELAS = db.sql_dir() / "tables"

_CREATE_TABLE = re.compile(r"^CREATE TABLE (\w+)\.(\w+)\b", re.M | re.I)
_REFERENCIA = re.compile(r"\bREFERENCES\s+(\w+\.\w+)", re.I)

# The tables of d2 and core: what sql/tables must describe, one file each.
_TABELAS_DO_CATALOGO = """
    SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname IN ('d2', 'core') AND c.relkind IN ('r', 'p')
"""

# One line per fact of a table that a file of sql/tables states, by name (never by oid).
_DESCRICAO = {
    "table": f"""
        SELECT c.oid::regclass::text || ' kind ' || c.relkind::text
               || ' persistence ' || c.relpersistence::text
               || ' replica identity ' || c.relreplident::text
               || CASE WHEN c.relrowsecurity THEN ' row security' ELSE '' END
               || coalesce(' with ' || array_to_string(c.reloptions, ', '), '') AS linha
        FROM pg_class c WHERE c.oid IN ({_TABELAS_DO_CATALOGO})
    """,
    "column": f"""
        SELECT a.attrelid::regclass::text || ' '
               || lpad((row_number() OVER (PARTITION BY a.attrelid ORDER BY a.attnum))::text,
                       2, '0')
               || ' ' || quote_ident(a.attname) || ' ' || format_type(a.atttypid, a.atttypmod)
               || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
               || CASE a.attidentity WHEN 'a' THEN ' generated always as identity'
                                     WHEN 'd' THEN ' generated by default as identity'
                                     ELSE '' END
               || CASE WHEN a.attgenerated = 's'
                       THEN ' generated always as (' || pg_get_expr(d.adbin, d.adrelid)
                            || ') stored'
                       ELSE coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '') END
               || CASE WHEN a.attcollation <> t.typcollation
                       THEN ' collate ' || a.attcollation::regcollation::text ELSE '' END
               || CASE WHEN a.attstorage <> t.typstorage
                       THEN ' storage ' || a.attstorage::text ELSE '' END
               || CASE WHEN a.attstattarget >= 0
                       THEN ' statistics ' || a.attstattarget ELSE '' END AS linha
        FROM pg_attribute a
        JOIN pg_type t ON t.oid = a.atttypid
        LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE a.attrelid IN ({_TABELAS_DO_CATALOGO}) AND a.attnum > 0 AND NOT a.attisdropped
    """,
    "constraint": f"""
        SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
               AS linha
        FROM pg_constraint WHERE conrelid IN ({_TABELAS_DO_CATALOGO})
    """,
    "index": f"""
        SELECT pg_get_indexdef(i.indexrelid)
               || CASE WHEN i.indisclustered THEN ' (clustered)' ELSE '' END AS linha
        FROM pg_index i WHERE i.indrelid IN ({_TABELAS_DO_CATALOGO})
    """,
    "sequence": """
        SELECT s.seqrelid::regclass::text || ' ' || format_type(s.seqtypid, NULL)
               || ' start ' || s.seqstart || ' increment ' || s.seqincrement
               || ' min ' || s.seqmin || ' max ' || s.seqmax || ' cache ' || s.seqcache
               || CASE WHEN s.seqcycle THEN ' cycle' ELSE '' END
               || coalesce(' owned by ' || d.refobjid::regclass::text || '.' || a.attname
                           || CASE WHEN d.deptype = 'i' THEN ' (identity)' ELSE '' END, '')
               AS linha
        FROM pg_sequence s
        JOIN pg_class c ON c.oid = s.seqrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        LEFT JOIN pg_depend d
          ON d.classid = 'pg_class'::regclass AND d.objid = s.seqrelid
         AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')
        LEFT JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
        WHERE n.nspname IN ('d2', 'core')
    """,
    "comment": f"""
        SELECT d.objoid::regclass::text || coalesce('.' || a.attname, '') || ' '
               || d.description AS linha
        FROM pg_description d
        JOIN pg_class c ON c.oid = d.objoid
        LEFT JOIN pg_attribute a
          ON a.attrelid = d.objoid AND a.attnum = d.objsubid AND d.objsubid > 0
        WHERE d.classoid = 'pg_class'::regclass
          AND (c.oid IN ({_TABELAS_DO_CATALOGO})
               OR c.relkind IN ('i', 'S')
                  AND c.relnamespace IN (SELECT oid FROM pg_namespace
                                         WHERE nspname IN ('d2', 'core')))
        UNION ALL
        SELECT k.conrelid::regclass::text || ' ' || k.conname || ' ' || d.description
        FROM pg_description d JOIN pg_constraint k ON k.oid = d.objoid
        WHERE d.classoid = 'pg_constraint'::regclass
          AND k.conrelid IN ({_TABELAS_DO_CATALOGO})
    """,
}


# What a file of sql/tables must not create: functions, views and triggers have their own
# folders (the internal triggers of a foreign key are the constraint's).
_NAO_TABELAS = """
    SELECT c.oid::regclass::text AS nome FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname IN ('d2', 'core') AND c.relkind NOT IN ('r', 'p', 'i', 'S')
    UNION ALL
    SELECT p.oid::regprocedure::text FROM pg_proc p
    JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname IN ('d2', 'core')
    UNION ALL
    SELECT t.tgname || ' on ' || t.tgrelid::regclass::text FROM pg_trigger t
    WHERE NOT t.tgisinternal
"""


def _descricao(conn: psycopg.Connection[Any]) -> list[str]:
    linhas = []
    for tipo, consulta in _DESCRICAO.items():
        linhas += sorted(f"{tipo} {r['linha']}" for r in conn.execute(consulta.encode()))
    return linhas


def _arquivos_de_tabelas() -> dict[str, Path]:
    """'schema.table' -> its file in sql/tables: one CREATE TABLE per file, named after
    the table (schema d2 unqualified, like sql/functions; core.<table> for core)."""
    arquivos, errados = {}, []
    for arquivo in sorted(TABELAS.glob("*.sql")):
        achados = _CREATE_TABLE.findall(arquivo.read_text(encoding="utf-8"))
        if len(achados) != 1:
            errados.append(f"{arquivo.name}: {len(achados)} CREATE TABLE")
            continue
        esquema_, nome = achados[0]
        if arquivo.stem != (nome if esquema_ == "d2" else f"{esquema_}.{nome}"):
            errados.append(f"{arquivo.name}: creates {esquema_}.{nome}")
        arquivos[f"{esquema_}.{nome}"] = arquivo
    assert errados == []
    return arquivos


def _em_ordem(arquivos: dict[str, Path]) -> list[Path]:
    """The files, each after the tables its foreign keys reference."""
    ordem: graphlib.TopologicalSorter[str] = graphlib.TopologicalSorter()
    for tabela in sorted(arquivos):
        texto = arquivos[tabela].read_text(encoding="utf-8")
        ordem.add(tabela, *sorted(set(_REFERENCIA.findall(texto)) & set(arquivos) - {tabela}))
    return [arquivos[tabela] for tabela in ordem.static_order()]


def test_sql_tables_build_what_the_migrations_build(conn: Any, empty_db_url: str) -> None:
    arquivos = _arquivos_de_tabelas()
    migradas = {
        r["nome"]
        for r in conn.execute(
            "SELECT c.oid::regclass::text AS nome FROM pg_class c"
            f" WHERE c.oid IN ({_TABELAS_DO_CATALOGO})".encode()
        )
    }
    fora = {
        "in sql/tables, not built by the migrations": sorted(set(arquivos) - migradas),
        "built by the migrations, not in sql/tables": sorted(migradas - set(arquivos)),
    }
    assert {quais: tabelas for quais, tabelas in fora.items() if tabelas} == {}
    esperado = _descricao(conn)
    extensoes = conn.execute(
        "SELECT e.extname, n.nspname FROM pg_extension e"
        " JOIN pg_namespace n ON n.oid = e.extnamespace"
        " WHERE e.extname <> 'plpgsql' ORDER BY e.oid"
    ).fetchall()
    with psycopg.connect(empty_db_url, row_factory=dict_row) as novo:
        novo.execute("CREATE SCHEMA d2; CREATE SCHEMA core")
        for e in extensoes:  # where the migrations put them: types print the same
            novo.execute(
                sql.SQL("CREATE EXTENSION IF NOT EXISTS {} WITH SCHEMA {}").format(
                    sql.Identifier(e["extname"]), sql.Identifier(e["nspname"])
                )
            )
        for arquivo in _em_ordem(arquivos):
            try:
                novo.execute(arquivo.read_text(encoding="utf-8").encode())
            except psycopg.Error as erro:
                raise AssertionError(f"sql/tables/{arquivo.name}: {erro}") from erro
        construido = _descricao(novo)
        outros = novo.execute(_NAO_TABELAS.encode()).fetchall()
    assert [r["nome"] for r in outros] == [], "sql/tables holds tables only"
    diferenca = list(
        difflib.unified_diff(esperado, construido, "migrations", "sql/tables", lineterm="")
    )
    assert diferenca == [], "\n".join(diferenca[:80])


def test_sql_tables_and_the_snapshot_name_the_same_tables() -> None:
    no_snapshot = {
        partes[1]
        for partes in (linha.split() for linha in SNAPSHOT.read_text(encoding="utf-8").splitlines())
        if len(partes) == 3 and partes[0] == "relation" and partes[2] in ("r", "p")
    }
    arquivos = set(_arquivos_de_tabelas())
    fora = {
        "in sql/tables, not in schema_head.txt": sorted(arquivos - no_snapshot),
        "in schema_head.txt, not in sql/tables": sorted(no_snapshot - arquivos),
    }
    assert {quais: tabelas for quais, tabelas in fora.items() if tabelas} == {}
