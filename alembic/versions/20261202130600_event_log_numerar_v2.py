"""Numbering at commit, linear in the batch: 500 published events commit in ~12 ms
instead of ~160 ms (the first version probed a partial index full of its own dead
entries once per row, and re-ran its window subquery per row)."""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261202130600_event_log_numerar_v2"
down_revision = "20261202130400_d2_worker_role"
branch_labels = None
depends_on = None


def upgrade() -> None:
    migrations.apply_frozen(
        op, "20261202130600_event_log_numerar_v2/functions/event_log_numerar_v2.sql"
    )


def downgrade() -> None:
    migrations.apply_frozen(op, "20261202130100_core_event_log/functions/event_log_numerar.sql")
