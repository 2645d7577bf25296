"""${message}

Revision ID: ${up_revision}
Revises: ${down_revision | comma,n}
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = ${repr(up_revision)}
down_revision = ${repr(down_revision)}
branch_labels = None
depends_on = None


def upgrade() -> None:
    migrations.execute_sql(op, """
    """)


def downgrade() -> None:
    migrations.execute_sql(op, """
    """)
