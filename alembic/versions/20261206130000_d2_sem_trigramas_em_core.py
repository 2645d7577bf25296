"""core.uc_polygons loses D-2's trigram index: misspelt place names are proposed in the
worker's process now (d2/geocoder/names.py), d2.candidatos_territorio finds names only as
written (the B-tree index on nome_busca), and nothing of D-2 asks the GIN index any more.
It cost every writer of core.uc_polygons a GIN entry per name; the extension pg_trgm
stays (the misspelt street's correction over d2.ceps uses it).
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261206130000_d2_sem_trigramas_em_core"
down_revision = "20261206110100_d2_lugares_lidos"
branch_labels = None
depends_on = None


def upgrade() -> None:
    migrations.execute_sql(op, "DROP INDEX IF EXISTS core.uc_polygons_nome_busca_trgm_idx;")


def downgrade() -> None:
    migrations.execute_sql(
        op,
        "CREATE INDEX IF NOT EXISTS uc_polygons_nome_busca_trgm_idx ON core.uc_polygons "
        "USING gin (nome_busca gin_trgm_ops);",
    )
