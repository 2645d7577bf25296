"""A duplicate demanda_id with different content goes to an operator, never first-wins:
d2.conflitos_demanda holds the events of such demands (their terminal
state) and the operator's decision (`d2 conflicts list|aceitar`). The handler's check of
the origem (D2_DEMANDA_ORIGENS) needs no schema.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261204120100_d2_demandas_conflito"
down_revision = "20261204120000_d2_eventos_confiaveis"
branch_labels = None
depends_on = None


def upgrade() -> None:
    migrations.execute_sql(
        op,
        """
        CREATE TABLE d2.conflitos_demanda (
            event_id           UUID           NOT NULL,
            demanda_id         UUID           NOT NULL,
            sequence_number    BIGINT,
            criado_em          TIMESTAMPTZ(2) NOT NULL DEFAULT CURRENT_TIMESTAMP,
            resolucao_anterior JSONB,
            decidido_em        TIMESTAMPTZ,
            decidido_por       TEXT,
            decisao            TEXT,
            CONSTRAINT conflitos_demanda_pkey PRIMARY KEY (event_id),
            CONSTRAINT conflitos_demanda_decisao_check
                CHECK (decisao IN ('aceito', 'recusado'))
        );
        CREATE INDEX conflitos_demanda_demanda_id_idx ON d2.conflitos_demanda (demanda_id);
        CREATE INDEX conflitos_demanda_abertos_idx ON d2.conflitos_demanda (demanda_id)
            WHERE decidido_em IS NULL;
        """,
    )
    # Grants: sql/grants.sql, re-applied at head.


def downgrade() -> None:
    migrations.execute_sql(op, "DROP TABLE d2.conflitos_demanda;")
