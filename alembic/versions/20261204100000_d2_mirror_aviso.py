"""On-demand answers are current (docs/design.md, decision 10): while changes of core.uc_polygons
wait to be applied to the mirror, d2.resolver_territorio (and so d2.resolver_territorios,
which inlines it) raises one WARNING per statement naming how many wait and
`d2 mirror sync`, through d2.mirror_aviso() run as an InitPlan. Answers are unchanged.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261204100000_d2_mirror_aviso"
down_revision = "20261203162000_d2_resolver_um_ponto"
branch_labels = None
depends_on = None


def upgrade() -> None:
    migrations.apply_frozen(op, revision, "functions/mirror_aviso.sql")
    migrations.apply_frozen(op, revision, "functions/resolver_territorio.sql")


def downgrade() -> None:
    migrations.apply_frozen(
        op, "20261203162000_d2_resolver_um_ponto", "functions/resolver_territorio.sql"
    )
    op.execute("DROP FUNCTION d2.mirror_aviso()")
