"""d2.mirror_aplicar never waits for the resolver's index behind a reader: the index is
built again only when no other session holds it (any SELECT of d2.mirror_pieces in a
transaction left open holds it), and at most a few milliseconds should one arrive
meanwhile; otherwise the rebuild stays due and the changes are applied all the same.
Before, the REINDEX queued behind such a reader and every resolver query behind the
REINDEX, until the apply's lock bound rolled everything back, again at every poll.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261208110000_d2_indice_sem_espera"
down_revision = "20261208100000_d2_versoes_julgadas"
branch_labels = None
depends_on = None


def upgrade() -> None:
    migrations.apply_frozen(op, revision, "functions/mirror_aplicar.sql")


def downgrade() -> None:
    migrations.apply_frozen(
        op, "20261206100000_d2_resolver_indice_esparso", "functions/mirror_aplicar.sql"
    )
