"""d2.nome_busca gets a SQL-standard body and no SET clause: its names are bound when it
is created (no caller's search_path reaches them) and PostgreSQL inlines it where it is
called, instead of setting it up as a function call of its own in every statement
(~0.12 ms of a lone address's reading, d2.lugares_lidos, for its street's name). Same
results: every name of the territory and of d2.cep_localidades compared.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261207110000_d2_nome_busca_em_linha"
down_revision = "20261207100100_d2_faixas_com_lacunas"
branch_labels = None
depends_on = None


def upgrade() -> None:
    migrations.apply_frozen(op, revision, "functions/nome_busca.sql")


def downgrade() -> None:
    migrations.apply_frozen(op, "20261204140000_d2_ceps", "functions/nome_busca.sql")
