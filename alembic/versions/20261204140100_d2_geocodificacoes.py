"""What the address ladder understood and how it answered, and a cap on
how often one address is retried (so one address the geocoder keeps failing cannot cost
every round a timeout).

- d2.geocodificacoes: one row per address demand the geocoding stage concludes (event,
  precision, ladder step, the fields understood as jsonb, Nominatim searches it took,
  the reason of a discard), written in the transaction of its terminal state;
  d2.v_geocodificacoes joins it with d2.resolucoes_geo.
- d2.geocodificacoes_pendentes.falhas: tries the geocoder failed for that address while
  it was answering; past D2_GEOCODER_TRIES_MAX the event goes to the dead letters. Due
  rows are now taken by due time (the index on (proxima_tentativa, sequence_number)
  already serves that order).
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261204140100_d2_geocodificacoes"
down_revision = "20261204140000_d2_ceps"
branch_labels = None
depends_on = None


def upgrade() -> None:
    migrations.execute_sql(
        op,
        """
        CREATE TABLE d2.geocodificacoes (
            event_id           UUID           NOT NULL,
            demanda_id         UUID           NOT NULL,
            precisao           VARCHAR(12),
            passo              VARCHAR(20),
            endereco_entendido JSONB,
            consultas          INTEGER        NOT NULL DEFAULT 0,
            motivo             VARCHAR(20),
            criado_em          TIMESTAMPTZ(2) NOT NULL DEFAULT CURRENT_TIMESTAMP,
            CONSTRAINT geocodificacoes_pkey PRIMARY KEY (event_id)
        );
        ALTER TABLE d2.geocodificacoes_pendentes
            ADD COLUMN falhas INTEGER NOT NULL DEFAULT 0;
        """,
    )
    migrations.apply_frozen(op, revision, "views/v_geocodificacoes.sql")
    # Grants: sql/grants.sql, re-applied at head.


def downgrade() -> None:
    migrations.execute_sql(
        op,
        """
        DROP VIEW IF EXISTS d2.v_geocodificacoes;
        ALTER TABLE d2.geocodificacoes_pendentes DROP COLUMN IF EXISTS falhas;
        DROP TABLE IF EXISTS d2.geocodificacoes;
        """,
    )
