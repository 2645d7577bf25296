"""d2.candidatos_territorio against the national territory, the same answers at a fraction
of the cost: each run of a text's words one probe of a btree index on
core.uc_polygons(nome_busca) (the planner, misled by generate_series's estimate, hashed
the whole table each call), the trigram index asked at the threshold the function keeps,
and a PL/pgSQL body whose plan the session keeps (planning it cost about as much as
running it).
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261205130100_d2_candidatos_por_indice"
down_revision = "20261205130000_d2_cep_nomes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Additive, like the trigram index beside it: core.uc_polygons is written by seeds only.
    migrations.execute_sql(
        op,
        "CREATE INDEX IF NOT EXISTS uc_polygons_nome_busca_idx ON core.uc_polygons (nome_busca);",
    )
    migrations.apply_frozen(op, revision, "functions/candidatos_territorio.sql")


def downgrade() -> None:
    migrations.apply_frozen(
        op, "20261204140200_d2_candidatos_rapido", "functions/candidatos_territorio.sql"
    )
    migrations.execute_sql(op, "DROP INDEX IF EXISTS core.uc_polygons_nome_busca_idx;")
