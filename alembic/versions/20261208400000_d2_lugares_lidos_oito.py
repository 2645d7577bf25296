"""d2.lugares_lidos probes d2.cep_nomes for at most 8 of the municípios an address names
exactly (those named last): a hostile text of dozens of town names cost ~16 ms of SQL, the
probes growing with the names named times the runs of words. The same answers for every
address that names 8 or fewer. d2.mirror_aplicar again, its text unchanged but for a
comment naming the module that builds the bands where it now lives.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261208400000_d2_lugares_lidos_oito"
down_revision = "20261208200000_d2_revisoes_tratadas"
branch_labels = None
depends_on = None


def upgrade() -> None:
    migrations.apply_frozen(op, revision, "functions/lugares_lidos.sql")
    migrations.apply_frozen(op, revision, "functions/mirror_aplicar.sql")


def downgrade() -> None:
    migrations.apply_frozen(op, "20261206110100_d2_lugares_lidos", "functions/lugares_lidos.sql")
    migrations.apply_frozen(
        op, "20261208110000_d2_indice_sem_espera", "functions/mirror_aplicar.sql"
    )
