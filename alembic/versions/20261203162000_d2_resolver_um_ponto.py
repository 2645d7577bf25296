"""One definition of the answer: d2.resolver_territorio (one point, the fixed interface)
takes the clean intervals and the GIST tiers the batch path had, as an inlinable SQL
function, and d2.resolver_territorios (the batch the worker calls) becomes a LATERAL
over it: one definition of the answer. Before, the one-point form probed one GIST index over every
level and recomputed the chain: 13,200 points/s through LATERAL against 69,300 for the
batch form on the same points.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261203162000_d2_resolver_um_ponto"
down_revision = "20261203161000_d2_replica"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # The one-point form first: the batch form's body inlines it.
    migrations.apply_frozen(op, revision, "functions/resolver_territorio.sql")
    migrations.apply_frozen(op, revision, "functions/resolver_territorios.sql")


def downgrade() -> None:
    migrations.apply_frozen(
        op, "20261202140000_d2_mirror_faixas", "functions/resolver_territorios.sql"
    )
    migrations.apply_frozen(
        op, "20261202130000_d2_postgis_mirror", "functions/resolver_territorio.sql"
    )
