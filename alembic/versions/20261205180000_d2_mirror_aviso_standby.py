"""d2.mirror_aviso on a hot standby: the resolver's warning to a psql user, that changes
of core.uc_polygons wait for the mirror, sent them to `d2 mirror sync --wait`, which a
standby cannot run; there it now says the server is a read-only standby, and that the
worker on the primary applies the changes, which arrive by replication. Same answers.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261205180000_d2_mirror_aviso_standby"
down_revision = "20261205120000_d2_territorio_orcamento"
branch_labels = None
depends_on = None

# Where the previous text was frozen.
_ANTES = "20261204100000_d2_mirror_aviso"


def upgrade() -> None:
    migrations.apply_frozen(op, revision, "functions/mirror_aviso.sql")


def downgrade() -> None:
    migrations.apply_frozen(op, _ANTES, "functions/mirror_aviso.sql")
