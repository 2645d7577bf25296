"""d2.consumer_offset: the replay cursor (spec §2.5)."""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20260813112406_add_consumer_offset_d1b_d2_d4"
down_revision = "20260811195030_add_fonte_metadados_populacao_uc_polygons"
branch_labels = None
depends_on = None


def upgrade() -> None:
    migrations.execute_sql(
        op,
        """
        CREATE TABLE d2.consumer_offset (
            tipo_evento    VARCHAR(255)   PRIMARY KEY,
            last_sequence  BIGINT         NOT NULL DEFAULT 0,
            updated_at     TIMESTAMPTZ(2) NOT NULL DEFAULT CURRENT_TIMESTAMP
        );
        """,
    )


def downgrade() -> None:
    migrations.execute_sql(op, "DROP TABLE d2.consumer_offset;")
