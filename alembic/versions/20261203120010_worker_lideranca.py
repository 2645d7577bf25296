"""Worker leadership that only workers can take.

The session advisory lock anyone could take (and so keep every D-2 worker in standby
while /healthz said 200) becomes an EXCLUSIVE lock on the empty table
d2.worker_lideranca, which needs UPDATE on it (granted to d2_worker only, sql/grants.sql),
taken by d2.lideranca_tentar() and held by a transaction the worker keeps open on a
connection of its own. A trigger on d2.consumer_offset fences a leader that lost that
connection (see sql/functions/consumer_offset_lideranca.sql).
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261203120010_worker_lideranca"
down_revision = "20261203120000_definer_search_path"
branch_labels = None
depends_on = None


def upgrade() -> None:
    migrations.execute_sql(
        op,
        """
        CREATE TABLE d2.worker_lideranca ();
        COMMENT ON TABLE d2.worker_lideranca IS
            'D-2: the active worker holds an EXCLUSIVE lock on this table (no rows)';
        """,
    )
    for name in (
        "functions/lideranca_tentar.sql",
        "functions/consumer_offset_lideranca.sql",
        "triggers/consumer_offset_lideranca.sql",
    ):
        migrations.apply_frozen(op, revision, name)


def downgrade() -> None:
    migrations.execute_sql(
        op,
        """
        DROP TRIGGER IF EXISTS consumer_offset_lideranca ON d2.consumer_offset;
        DROP FUNCTION IF EXISTS d2.consumer_offset_lideranca();
        DROP FUNCTION IF EXISTS d2.lideranca_tentar();
        DROP TABLE IF EXISTS d2.worker_lideranca;
        """,
    )
