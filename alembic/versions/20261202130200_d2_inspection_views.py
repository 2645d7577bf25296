"""Views for analysts in psql: resolutions with names, the review queue, the lag."""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261202130200_d2_inspection_views"
down_revision = "20261202130100_core_event_log"
branch_labels = None
depends_on = None


def upgrade() -> None:
    for name in ("v_resolucoes", "v_revisoes_pendentes", "v_consumer_lag"):
        migrations.apply_frozen(op, revision, f"views/{name}.sql")


def downgrade() -> None:
    migrations.execute_sql(
        op,
        """
        DROP VIEW IF EXISTS d2.v_consumer_lag;
        DROP VIEW IF EXISTS d2.v_revisoes_pendentes;
        DROP VIEW IF EXISTS d2.v_resolucoes;
        """,
    )
