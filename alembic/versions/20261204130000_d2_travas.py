"""Locks only D-2 may take (docs/reliability.md, section 6).

The mirror's appliers and the clean intervals' builder serialised on two session or
transaction advisory locks, whose keys were literals repeated in four SQL files and a
named query: any login could hold them, freezing the mirror (captured changes never
applied, `d2 mirror sync --wait` and the importers waiting forever) or the worker's
loop. Each becomes an EXCLUSIVE lock on an empty table of its own, defined once in
sql/tables: d2.mirror_aplicador (UPDATE granted to d2_worker, sql/grants.sql) and
d2.mirror_faixas_construtor (the owner's functions only). LOCK TABLE in that mode needs
UPDATE on the table; a login with no grants gets a permission error.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261204130000_d2_travas"
down_revision = "20261204120100_d2_demandas_conflito"
branch_labels = None
depends_on = None

_FUNCOES = (
    "functions/mirror_aplicar.sql",
    "functions/mirror_rebuild.sql",
    "functions/mirror_faixas_construir.sql",
    "functions/mirror_faixas_invalidar.sql",
)
# Where each function's previous text was frozen.
_ANTES = {
    "functions/mirror_aplicar.sql": "20261203161000_d2_replica",
    "functions/mirror_rebuild.sql": "20261203161000_d2_replica",
    "functions/mirror_faixas_construir.sql": "20261204110000_d2_territorio_seguro",
    "functions/mirror_faixas_invalidar.sql": "20261203120000_definer_search_path",
}


def upgrade() -> None:
    migrations.execute_sql(
        op,
        """
        CREATE TABLE d2.mirror_aplicador ();
        COMMENT ON TABLE d2.mirror_aplicador IS
            'D-2: the applier at work holds an EXCLUSIVE lock on this table (no rows)';
        CREATE TABLE d2.mirror_faixas_construtor ();
        COMMENT ON TABLE d2.mirror_faixas_construtor IS
            'D-2: the clean intervals'' builder holds an EXCLUSIVE lock on this table (no rows)';
        """,
    )
    for nome in _FUNCOES:
        migrations.apply_frozen(op, revision, nome)


def downgrade() -> None:
    for nome in _FUNCOES:
        migrations.apply_frozen(op, _ANTES[nome], nome)
    migrations.execute_sql(
        op,
        """
        DROP TABLE IF EXISTS d2.mirror_aplicador;
        DROP TABLE IF EXISTS d2.mirror_faixas_construtor;
        """,
    )
