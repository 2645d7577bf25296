"""d2.candidatos_territorio, the same answers at about a third of the cost (the
address ladder asks it for every round of the geocoding stage): chains from
d2.mirror_cadeias (d2.cadeia_ucs only for a UC not precomputed), and the trigram
similarity computed only for the segments with no exact hit.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261204140200_d2_candidatos_rapido"
down_revision = "20261204140100_d2_geocodificacoes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    migrations.apply_frozen(op, revision, "functions/candidatos_territorio.sql")


def downgrade() -> None:
    migrations.apply_frozen(
        op, "20261203130000_d2_geocodificacao", "functions/candidatos_territorio.sql"
    )
