"""fonte, metadados and populacao_estimada on core.uc_polygons (spec §2.6)."""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20260811195030_add_fonte_metadados_populacao_uc_polygons"
down_revision = "20260809112210_d2_uc_polygons_resolucoes_geo"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # fonte is NOT NULL without a default: rows that predate it are labelled 'legado'.
    migrations.execute_sql(
        op,
        """
        ALTER TABLE core.uc_polygons
            ADD COLUMN IF NOT EXISTS fonte VARCHAR(50) NOT NULL DEFAULT 'legado',
            ADD COLUMN IF NOT EXISTS metadados JSONB NOT NULL DEFAULT '{}',
            ADD COLUMN IF NOT EXISTS populacao_estimada INTEGER;
        ALTER TABLE core.uc_polygons ALTER COLUMN fonte DROP DEFAULT;
        """,
    )


def downgrade() -> None:
    migrations.execute_sql(
        op,
        """
        ALTER TABLE core.uc_polygons
            DROP COLUMN IF EXISTS populacao_estimada,
            DROP COLUMN IF EXISTS metadados,
            DROP COLUMN IF EXISTS fonte;
        """,
    )
