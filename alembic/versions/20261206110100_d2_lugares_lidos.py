"""The address ladder's two statements of a round, the names of its places
(d2.lugares_lidos) and its CEPs (d2.ceps_lidos), become PL/pgSQL functions with one
generic plan kept for the session: planned as custom plans (the arrays' sizes known),
they cost more to plan than to run, about 2 ms of a lone text's 2.7 ms against the
national territory. The queries geocoder_places and cep_lookup call them; same answers.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261206110100_d2_lugares_lidos"
down_revision = "20261206110000_d2_candidatos_so_exatos"
branch_labels = None
depends_on = None


def upgrade() -> None:
    migrations.apply_frozen(op, revision, "functions/lugares_lidos.sql")
    migrations.apply_frozen(op, revision, "functions/ceps_lidos.sql")


def downgrade() -> None:
    op.execute("DROP FUNCTION d2.ceps_lidos(bpchar[])")
    op.execute(
        "DROP FUNCTION d2.lugares_lidos(integer[], text[], integer[], integer[], integer[], "
        "integer[], bpchar[], integer[], text[], integer[], uuid[], text[])"
    )
