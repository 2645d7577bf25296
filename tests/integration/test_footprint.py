"""What D-2 puts outside schema d2: a migrated database holds nothing more than
d2/footprint.py's list, and `d2 db verify` names anything more (the list against
docs/monolith.md's table: tests/unit/test_footprint.py)."""

from __future__ import annotations

import psycopg
import pytest
from psycopg.rows import dict_row

from d2 import migrations, verify
from tests.support import Conn


def test_migrated_database_holds_nothing_more(conn: Conn) -> None:
    assert verify.fora_do_d2(conn) == []


INTRUSOS = {
    ("function", "core.intrusa()"): "CREATE FUNCTION core.intrusa() RETURNS trigger "
    "LANGUAGE plpgsql AS 'BEGIN RETURN NULL; END'",
    ("column", "core.uc_polygons.intrusa"): "ALTER TABLE core.uc_polygons ADD COLUMN intrusa int",
    ("column", "core.event_log.intrusa"): "ALTER TABLE core.event_log ADD COLUMN intrusa int",
    ("index", "core.event_log.intrusa_idx"): "CREATE INDEX intrusa_idx ON core.event_log (origem)",
    ("sequence", "core.intrusa_seq"): "CREATE SEQUENCE core.intrusa_seq",
    ("table", "public.d2_intrusa"): "CREATE TABLE public.d2_intrusa (x int)",
}


@pytest.mark.parametrize("chave", sorted(INTRUSOS), ids=lambda c: c[1])
def test_verify_names_what_is_not_listed(conn: Conn, db_url: str, chave: tuple[str, str]) -> None:
    conn.execute(INTRUSOS[chave])
    assert verify.fora_do_d2(conn) == [chave]
    relatorio = verify.verify(db_url)
    assert not relatorio["ok"]
    assert relatorio["checks"][-1]["extras"] == [chave]


def test_verify_names_a_trigger_on_a_core_table_or_calling_d2(conn: Conn) -> None:
    conn.execute(
        "CREATE TRIGGER intruso AFTER UPDATE ON core.uc_polygons "
        "FOR EACH STATEMENT EXECUTE FUNCTION d2.uc_polygons_capturar()"
    )
    conn.execute("CREATE TABLE public.outra (x int)")
    conn.execute(
        "CREATE TRIGGER intruso2 AFTER TRUNCATE ON public.outra "
        "FOR EACH STATEMENT EXECUTE FUNCTION d2.uc_polygons_capturar()"
    )
    assert verify.fora_do_d2(conn) == [
        ("trigger", "core.uc_polygons.intruso"),
        ("trigger", "public.outra.intruso2"),
    ]


def test_monolith_database_holds_nothing_more(empty_db_url: str) -> None:
    """Where the monolith created core first (with its own columns in the spec's shape)."""
    with psycopg.connect(empty_db_url, autocommit=True, row_factory=dict_row) as c:
        c.execute(
            """
            CREATE SCHEMA core;
            CREATE TABLE core.uc_polygons (
                id UUID PRIMARY KEY, unidade_civica_id UUID NOT NULL, nivel INTEGER NOT NULL,
                parent_uc_id UUID, nome VARCHAR(255) NOT NULL, geometria JSONB NOT NULL,
                fonte VARCHAR(50) NOT NULL, metadados JSONB NOT NULL DEFAULT '{}',
                criado_em TIMESTAMPTZ(2) NOT NULL DEFAULT CURRENT_TIMESTAMP,
                atualizado_em TIMESTAMPTZ(2) NOT NULL DEFAULT CURRENT_TIMESTAMP);
            CREATE TABLE core.event_log (
                sequence_number BIGSERIAL UNIQUE, event_id UUID PRIMARY KEY,
                tipo VARCHAR(255) NOT NULL, versao_schema VARCHAR(32) NOT NULL DEFAULT '1.0.0',
                origem VARCHAR(100) NOT NULL, correlacao_id UUID, payload JSONB NOT NULL,
                publicado_em TIMESTAMPTZ NOT NULL DEFAULT now());
            """
        )
        migrations.upgrade(empty_db_url)
        extras = verify.fora_do_d2(c)
    # The monolith's own serial (sequence_number's) is its, not D-2's.
    assert extras == []
