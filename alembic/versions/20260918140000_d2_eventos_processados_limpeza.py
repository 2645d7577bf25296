"""Drop the redundant criado_em of d2.eventos_processados (spec §2.7, item 6)."""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20260918140000_d2_eventos_processados_limpeza"
down_revision = "20260913120000_uc_polygons_nome_busca"
branch_labels = None
depends_on = None


def upgrade() -> None:
    migrations.execute_sql(op, "ALTER TABLE d2.eventos_processados DROP COLUMN criado_em;")


def downgrade() -> None:
    migrations.execute_sql(
        op,
        """
        ALTER TABLE d2.eventos_processados
            ADD COLUMN criado_em TIMESTAMPTZ(2) NOT NULL DEFAULT CURRENT_TIMESTAMP;
        """,
    )
