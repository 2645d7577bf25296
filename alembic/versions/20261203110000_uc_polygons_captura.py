"""Writers of core.uc_polygons pay only a change capture; D-2 applies the changes itself.

- d2.mirror_mudancas: the ids of the rows each statement on core.uc_polygons inserted,
  updated or deleted (a TRUNCATE: one row without id), written by four statement-level
  triggers with transition tables (d2.uc_polygons_capturar). Nothing else runs in the
  writer's transaction: no repair, subdivision, chains or intervals, no NOTIFY, no lock
  a writer could wait on.
- d2.mirror_aplicar(): under REPEATABLE READ, consumes every change its snapshot sees and
  brings the mirror, the chains and the clean intervals to that snapshot's polygons, then
  moves the mirror version, in one transaction; the clean intervals of the bands it
  touched are built after its commit (they only make the resolver faster). d2/territorio/mirror.py
  calls both: the worker at each poll, `d2 mirror sync [--wait]`, the importers after
  their commit.
- d2.mirror_rebuild() (same signature) also rebuilds the chains, consumes the changes
  and asks for REPEATABLE READ.
- Replaces the row and statement triggers that kept the mirror in the writer's
  transaction (uc_polygons_mirror_row, uc_polygons_mirror_statement,
  uc_polygons_cadeias_*); downgrade puts them back and applies what was pending.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261203110000_uc_polygons_captura"
down_revision = "20261203100000_event_log_transacao"
branch_labels = None
depends_on = None

# The worker applies the changes through d2.mirror_aplicar (SECURITY DEFINER) and writes
# nothing of the mirror itself; it reads how many wait.
GRANTS = """
GRANT SELECT ON d2.mirror_mudancas TO d2_worker;
GRANT EXECUTE ON FUNCTION d2.mirror_aplicar(), d2.mirror_faixas_construir() TO d2_worker;
"""


def upgrade() -> None:
    migrations.execute_sql(
        op,
        """
        -- No key and no index: a writer's insert here is one heap tuple per row.
        CREATE TABLE d2.mirror_mudancas (
            uc_polygon_id     UUID,
            unidade_civica_id UUID,
            registrado_em     TIMESTAMPTZ NOT NULL DEFAULT now()
        );

        DROP TRIGGER IF EXISTS uc_polygons_mirror_row ON core.uc_polygons;
        DROP TRIGGER IF EXISTS uc_polygons_mirror_statement ON core.uc_polygons;
        DROP TRIGGER IF EXISTS uc_polygons_cadeias_insert ON core.uc_polygons;
        DROP TRIGGER IF EXISTS uc_polygons_cadeias_update ON core.uc_polygons;
        DROP TRIGGER IF EXISTS uc_polygons_cadeias_delete ON core.uc_polygons;
        DROP TRIGGER IF EXISTS uc_polygons_cadeias_truncate ON core.uc_polygons;
        DROP FUNCTION IF EXISTS d2.uc_polygons_mirror_row();
        DROP FUNCTION IF EXISTS d2.uc_polygons_mirror_statement();
        DROP FUNCTION IF EXISTS d2.uc_polygons_cadeias();
        """,
    )
    for name in ("functions/uc_polygons_capturar.sql", "triggers/uc_polygons_capturar.sql"):
        migrations.apply_frozen(op, revision, name)
    for name in ("functions/mirror_aplicar.sql", "functions/mirror_rebuild.sql"):
        migrations.apply_frozen(op, revision, name)
    migrations.execute_sql(
        op,
        """
        REVOKE EXECUTE ON FUNCTION d2.mirror_aplicar(), d2.mirror_rebuild() FROM PUBLIC;
        """
        + GRANTS,
    )


def downgrade() -> None:
    migrations.execute_sql(
        op,
        GRANTS.replace("GRANT", "REVOKE").replace(" TO d2_worker", " FROM d2_worker")
        + """
        DROP TRIGGER IF EXISTS uc_polygons_capturar_insert ON core.uc_polygons;
        DROP TRIGGER IF EXISTS uc_polygons_capturar_update ON core.uc_polygons;
        DROP TRIGGER IF EXISTS uc_polygons_capturar_delete ON core.uc_polygons;
        DROP TRIGGER IF EXISTS uc_polygons_capturar_truncate ON core.uc_polygons;
        DROP FUNCTION IF EXISTS d2.uc_polygons_capturar();
        DROP FUNCTION IF EXISTS d2.mirror_aplicar();
        """,
    )
    for revisao, name in (
        ("20261202130000_d2_postgis_mirror", "triggers/uc_polygons_mirror.sql"),
        ("20261202130500_d2_resolver_fast", "functions/uc_polygons_cadeias.sql"),
        ("20261202130500_d2_resolver_fast", "triggers/uc_polygons_cadeias.sql"),
        ("20261202140000_d2_mirror_faixas", "functions/uc_polygons_mirror_statement_v2.sql"),
        ("20261202140000_d2_mirror_faixas", "functions/mirror_rebuild_v2.sql"),
    ):
        migrations.apply_frozen(op, revisao, name)
    migrations.execute_sql(
        op,
        """
        -- Changes not applied yet would be lost with their table: rebuild from core.
        DO $$
        BEGIN
            IF EXISTS (SELECT 1 FROM d2.mirror_mudancas) THEN
                PERFORM d2.mirror_rebuild();
                PERFORM d2.mirror_cadeias_rebuild();
            END IF;
        END
        $$;
        DROP TABLE d2.mirror_mudancas;
        GRANT EXECUTE ON FUNCTION d2.mirror_rebuild() TO PUBLIC;
        """,
    )
