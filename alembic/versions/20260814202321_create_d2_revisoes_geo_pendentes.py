"""d2.revisoes_geo_pendentes: points outside every polygon (spec §2.4)."""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20260814202321_create_d2_revisoes_geo_pendentes"
down_revision = "20260813112406_add_consumer_offset_d1b_d2_d4"
branch_labels = None
depends_on = None


def upgrade() -> None:
    migrations.execute_sql(
        op,
        """
        CREATE TABLE d2.revisoes_geo_pendentes (
            demanda_id      UUID             NOT NULL,
            event_id        UUID             NOT NULL,
            coordenadas_lat DOUBLE PRECISION NOT NULL,
            coordenadas_lng DOUBLE PRECISION NOT NULL,
            criado_em       TIMESTAMPTZ(2)   NOT NULL DEFAULT CURRENT_TIMESTAMP,
            CONSTRAINT revisoes_geo_pendentes_pkey PRIMARY KEY (demanda_id)
        );
        CREATE UNIQUE INDEX revisoes_geo_pendentes_event_id_key
            ON d2.revisoes_geo_pendentes (event_id);
        """,
    )


def downgrade() -> None:
    migrations.execute_sql(op, "DROP TABLE d2.revisoes_geo_pendentes;")
