"""d2.candidatos_territorio finds names only as written: the trigram search of a segment
with no exact name was most of what reading one text cost against the national
territory, and its 0.6 similarity let short misspellings through unproposed ("duorados"
for "dourados"). Misspelt names are proposed in the process now (d2/geocoder/names.py:
rapidfuzz over the names it holds). Same signature; exato is always true, so a worker
still on the previous code reads only the names written exactly.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261206110000_d2_candidatos_so_exatos"
down_revision = "20261206100000_d2_resolver_indice_esparso"
branch_labels = None
depends_on = None

# Where the previous text was frozen.
_ANTERIOR = "20261205130100_d2_candidatos_por_indice"


def upgrade() -> None:
    migrations.apply_frozen(op, revision, "functions/candidatos_territorio.sql")


def downgrade() -> None:
    migrations.apply_frozen(op, _ANTERIOR, "functions/candidatos_territorio.sql")
