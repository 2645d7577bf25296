"""Migrations: head → base → head, the spec's columns exactly, and a monolith's core kept."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.rows import dict_row

from d2 import migrations

# Spec §2: (table, column) -> (type, nullable, default contains)
SPEC_COLUMNS: dict[str, list[tuple[str, str, bool]]] = {
    "d2.resolucoes_geo": [
        ("id", "uuid", False),
        ("demanda_id", "uuid", False),
        ("unidade_civica_id", "uuid", False),
        ("nivel_minimo_resolvido", "integer", False),
        ("cadeia_ucs", "uuid[]", True),
        ("metodo_resolucao", "character varying(20)", False),
        ("confianca_geo", "character varying(10)", False),
        ("coordenadas_lat", "double precision", False),
        ("coordenadas_lng", "double precision", False),
        ("event_id", "uuid", False),
        ("correlacao_id", "uuid", False),
        ("criado_em", "timestamp(2) with time zone", False),
        # spec 2.2's Phase 2 columns: the address a resolution came from
        ("endereco_original", "text", True),
        ("endereco_geocodificado", "text", True),
    ],
    "d2.eventos_processados": [
        ("event_id", "uuid", False),
        ("demanda_id", "uuid", False),
        ("processado_em", "timestamp(2) with time zone", False),
    ],
    "d2.revisoes_geo_pendentes": [
        ("demanda_id", "uuid", False),
        ("event_id", "uuid", False),
        ("coordenadas_lat", "double precision", False),
        ("coordenadas_lng", "double precision", False),
        ("criado_em", "timestamp(2) with time zone", False),
    ],
    "d2.consumer_offset": [
        ("tipo_evento", "character varying(255)", False),
        ("last_sequence", "bigint", False),
        ("updated_at", "timestamp(2) with time zone", False),
    ],
    "core.uc_polygons": [
        ("id", "uuid", False),
        ("unidade_civica_id", "uuid", False),
        ("nivel", "integer", False),
        ("parent_uc_id", "uuid", True),
        ("nome", "character varying(255)", False),
        ("geometria", "jsonb", False),
        ("criado_em", "timestamp(2) with time zone", False),
        ("atualizado_em", "timestamp(2) with time zone", False),
        ("fonte", "character varying(50)", False),
        ("metadados", "jsonb", False),
        ("populacao_estimada", "integer", True),
        ("nome_busca", "character varying(255)", False),
    ],
}

SPEC_INDEXES = {
    "resolucoes_geo_pkey",
    "resolucoes_geo_demanda_id_key",
    "resolucoes_geo_unidade_civica_id_idx",
    "resolucoes_geo_event_id_idx",
    "resolucoes_geo_confianca_geo_idx",
    "eventos_processados_pkey",
    "eventos_processados_demanda_id_idx",
    "revisoes_geo_pendentes_pkey",
    "revisoes_geo_pendentes_event_id_key",
    "consumer_offset_pkey",
    "uc_polygons_pkey",
    "uc_polygons_unidade_civica_id_idx",
    "uc_polygons_nivel_idx",
}


def columns(conn: psycopg.Connection[dict[str, Any]], table: str) -> list[tuple[str, str, bool]]:
    rows = conn.execute(
        """
        SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
               NOT a.attnotnull AS nullable
        FROM pg_attribute a
        WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attnum
        """,
        [table],
    ).fetchall()
    return [(r["name"], r["type"], r["nullable"]) for r in rows]


def schema_snapshot(conn: psycopg.Connection[dict[str, Any]]) -> dict[str, Any]:
    tables = conn.execute(
        """
        SELECT n.nspname || '.' || c.relname AS name, c.relkind::text AS kind
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname IN ('d2', 'core') ORDER BY 1
        """
    ).fetchall()
    functions = conn.execute(
        """
        SELECT p.oid::regprocedure::text AS sig, md5(pg_get_functiondef(p.oid)) AS body
        FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname IN ('d2', 'core') ORDER BY 1
        """
    ).fetchall()
    triggers = conn.execute(
        """
        SELECT tgname::text AS name, tgrelid::regclass::text AS rel FROM pg_trigger
        WHERE NOT tgisinternal ORDER BY 1
        """
    ).fetchall()
    return {
        "tables": [(t["name"], t["kind"]) for t in tables],
        "columns": {t["name"]: columns(conn, t["name"]) for t in tables if t["kind"] in "rv"},
        "functions": [(f["sig"], f["body"]) for f in functions],
        "triggers": [(t["name"], t["rel"]) for t in triggers],
    }


def test_spec_tables_match_column_by_column(conn: psycopg.Connection[dict[str, Any]]) -> None:
    for table, expected in SPEC_COLUMNS.items():
        assert sorted(columns(conn, table)) == sorted(expected), table
    found = {
        r["indexname"]
        for r in conn.execute(
            "SELECT indexname FROM pg_indexes WHERE schemaname IN ('d2', 'core')"
        ).fetchall()
    }
    assert found >= SPEC_INDEXES


def test_nome_busca_is_lower_case_without_accents_or_punctuation(
    conn: psycopg.Connection[dict[str, Any]],
) -> None:
    conn.execute(
        """
        INSERT INTO core.uc_polygons (id, unidade_civica_id, nivel, nome, geometria, fonte)
        VALUES (gen_random_uuid(), gen_random_uuid(), 4, 'São João d''Aliança - GO',
                '{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}', 'teste')
        """
    )
    row = conn.execute("SELECT nome_busca FROM core.uc_polygons").fetchone()
    assert row == {"nome_busca": "sao joao dalianca go"}


def test_upgrade_downgrade_upgrade_round_trip(empty_db_url: str) -> None:
    migrations.upgrade(empty_db_url)
    with psycopg.connect(empty_db_url, row_factory=dict_row) as conn:
        first = schema_snapshot(conn)
    migrations.downgrade(empty_db_url, "base")
    with psycopg.connect(empty_db_url, row_factory=dict_row) as conn:
        left = conn.execute(
            "SELECT count(*) AS n FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname IN ('d2', 'core')"
        ).fetchone()
        assert left == {"n": 0}
    migrations.upgrade(empty_db_url)
    with psycopg.connect(empty_db_url, row_factory=dict_row) as conn:
        assert schema_snapshot(conn) == first
    assert migrations.current(empty_db_url) == migrations.head()


def test_existing_core_is_kept_on_upgrade_and_downgrade(empty_db_url: str) -> None:
    """The monolith's core already exists: migrate around it, never drop it."""
    with psycopg.connect(empty_db_url, autocommit=True) as conn:
        conn.execute(
            """
            CREATE SCHEMA core;
            CREATE TABLE core.outra (x int);
            INSERT INTO core.outra VALUES (1);
            CREATE TABLE core.uc_polygons (
                id UUID NOT NULL PRIMARY KEY, unidade_civica_id UUID NOT NULL,
                nivel INTEGER NOT NULL, parent_uc_id UUID, nome VARCHAR(255) NOT NULL,
                geometria JSONB NOT NULL,
                criado_em TIMESTAMPTZ(2) NOT NULL DEFAULT CURRENT_TIMESTAMP,
                atualizado_em TIMESTAMPTZ(2) NOT NULL DEFAULT CURRENT_TIMESTAMP);
            INSERT INTO core.uc_polygons (id, unidade_civica_id, nivel, nome, geometria)
            VALUES (gen_random_uuid(), gen_random_uuid(), 4, 'Já existia',
                    '{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}');
            """
        )
    migrations.upgrade(empty_db_url)
    with psycopg.connect(empty_db_url, row_factory=dict_row) as conn:
        row = conn.execute("SELECT fonte, nome_busca FROM core.uc_polygons").fetchone()
        assert row == {"fonte": "legado", "nome_busca": "ja existia"}
        hit = conn.execute("SELECT * FROM d2.resolver_territorio(0.2, 0.5)").fetchall()
        assert len(hit) == 1
    migrations.downgrade(empty_db_url, "base")
    with psycopg.connect(empty_db_url, row_factory=dict_row) as conn:
        assert conn.execute("SELECT count(*) AS n FROM core.uc_polygons").fetchone() == {"n": 1}
        assert conn.execute("SELECT x FROM core.outra").fetchone() == {"x": 1}


def test_database_migrated_by_prisma_is_stamped_and_continued(empty_db_url: str) -> None:
    # What the old implementation left: its tables up to migration 4, and Prisma's journal.
    migrations.upgrade(empty_db_url, "20260814202321_create_d2_revisoes_geo_pendentes")
    with psycopg.connect(empty_db_url, autocommit=True) as conn:
        conn.execute(f"DROP TABLE public.{migrations.VERSION_TABLE}")
        conn.execute(
            """
            CREATE TABLE public._prisma_migrations (
                id varchar(36) PRIMARY KEY, checksum varchar(64) NOT NULL,
                finished_at timestamptz, migration_name varchar(255) NOT NULL,
                logs text, rolled_back_at timestamptz,
                started_at timestamptz NOT NULL DEFAULT now(),
                applied_steps_count integer NOT NULL DEFAULT 0)
            """
        )
        for i, name in enumerate(migrations.PRISMA_MIGRATIONS[:4]):
            conn.execute(
                "INSERT INTO public._prisma_migrations (id, checksum, finished_at, migration_name)"
                " VALUES (%s, 'x', now(), %s)",
                [str(i), name],
            )
    migrations.upgrade(empty_db_url)
    assert migrations.current(empty_db_url) == migrations.head()
