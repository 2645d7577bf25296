"""The replica's breaker counts what changes take, and holds proposals only:

- d2.replica_eventos.proprio: the importers' own events, recorded (existing rows filled
  from d2.poligonos_eventos); an index by polygon;
- d2.replica_aplicar: a removal gives back what the polygon's writing took (a removal of
  a polygon proposals wrote taking nothing counts for nothing); while the breaker holds,
  the importers' events still apply, the held event's stop recording how far they were
  read (d2.replica_paradas.vista_*); a proposal that a later event overwrote meanwhile
  ends as 'superado'.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261208120000_d2_disjuntor_devolve"
down_revision = "20261208110000_d2_indice_sem_espera"
branch_labels = None
depends_on = None


def upgrade() -> None:
    migrations.execute_sql(
        op,
        """
        ALTER TABLE d2.replica_eventos ADD COLUMN proprio BOOLEAN NOT NULL DEFAULT false;
        UPDATE d2.replica_eventos r SET proprio = true
        FROM d2.poligonos_eventos l
        JOIN core.event_log e ON e.event_id = l.event_id
        WHERE l.event_id = r.event_id AND l.hash = md5(e.payload::text);
        CREATE INDEX replica_eventos_uc_polygon_id_idx ON d2.replica_eventos (uc_polygon_id);
        ALTER TABLE d2.replica_paradas
            ADD COLUMN vista_transacao xid8,
            ADD COLUMN vista_sequencia BIGINT;
        """,
    )
    migrations.apply_frozen(op, revision, "functions/replica_aplicar.sql")


def downgrade() -> None:
    migrations.apply_frozen(
        op, "20261205110000_d2_replica_propostas", "functions/replica_aplicar.sql"
    )
    migrations.execute_sql(
        op,
        """
        ALTER TABLE d2.replica_paradas DROP COLUMN vista_sequencia, DROP COLUMN vista_transacao;
        DROP INDEX d2.replica_eventos_uc_polygon_id_idx;
        ALTER TABLE d2.replica_eventos DROP COLUMN proprio;
        """,
    )
