"""d2.territorio_versoes: the versions of a community UC that make its consensus, defined
once. The scores added as a drawing arrives (territorio_avaliar), their full recount
(territorio_pontuar) and the choice of the canonical shape (territorio_canonizar) each
wrote the same 50-version query; they must count the very same set, so now they read it
from one function. Same answers.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261204150000_d2_territorio_versoes"
down_revision = "20261204140200_d2_candidatos_rapido"
branch_labels = None
depends_on = None

_LEITORES = (
    "functions/territorio_avaliar.sql",
    "functions/territorio_pontuar.sql",
    "functions/territorio_canonizar.sql",
)
# Where the readers' previous texts were frozen.
_ANTES = "20261204110000_d2_territorio_seguro"


def upgrade() -> None:
    migrations.apply_frozen(op, revision, "functions/territorio_versoes.sql")
    for nome in _LEITORES:
        migrations.apply_frozen(op, revision, nome)


def downgrade() -> None:
    for nome in _LEITORES:
        migrations.apply_frozen(op, _ANTES, nome)
    migrations.execute_sql(op, "DROP FUNCTION IF EXISTS d2.territorio_versoes(uuid);")
