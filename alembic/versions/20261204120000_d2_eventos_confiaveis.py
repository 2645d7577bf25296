"""Forged uc.poligono_* events cannot rewrite the territory (docs/design.md, decision 11).

- d2.poligonos_eventos: the events D-2's importers published, with the md5 of their
  payload, written by d2.poligonos_publicar_estado in their transaction; the replica
  knows its importers' events by it, not by the origem a producer declares. Events in
  the log from before this revision are recorded from their origem 'D-2' (the only
  record there was).
- d2.replica_aplicar(event_id, origens, maximo, janela_s): reads the event itself;
  refuses an origem outside D2_REPLICA_ORIGENS, changes to UCs of fonte 'ibge'/'osm' by
  anyone but the importers, and polygons that would take other UCs' places
  (d2.replica_captura); counts removals and takings toward the breaker
  (d2.replica_eventos.disjuntor), whose stops d2.replica_parar records in
  d2.replica_paradas until `d2 mirror resume`.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261204120000_d2_eventos_confiaveis"
down_revision = "20261204110000_d2_territorio_seguro"
branch_labels = None
depends_on = None

_ANTERIOR = "20261203161000_d2_replica"


def upgrade() -> None:
    migrations.execute_sql(
        op,
        """
        CREATE TABLE d2.poligonos_eventos (
            event_id      UUID PRIMARY KEY,
            uc_polygon_id UUID NOT NULL,
            hash          TEXT NOT NULL,
            publicado_em  TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
        );
        INSERT INTO d2.poligonos_eventos (event_id, uc_polygon_id, hash)
        SELECT e.event_id, (e.payload ->> 'uc_polygon_id')::uuid, md5(e.payload::text)
        FROM core.event_log e
        WHERE e.tipo IN ('uc.poligono_adicionado', 'uc.poligono_atualizado',
                         'uc.poligono_removido')
          AND e.origem = 'D-2'
          AND jsonb_typeof(e.payload) = 'object'
          AND (e.payload ->> 'uc_polygon_id')
              ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
        CREATE TABLE d2.replica_paradas (
            id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            event_id      UUID NOT NULL,
            motivo        TEXT NOT NULL,
            parada_em     TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
            retomada_em   TIMESTAMPTZ,
            retomada_por  TEXT,
            descartados   INTEGER
        );
        CREATE UNIQUE INDEX replica_paradas_aberta_key ON d2.replica_paradas ((true))
            WHERE retomada_em IS NULL;
        ALTER TABLE d2.replica_eventos ADD COLUMN disjuntor BOOLEAN NOT NULL DEFAULT false;
        CREATE INDEX replica_eventos_disjuntor_idx ON d2.replica_eventos (aplicado_em)
            WHERE disjuntor;
        DROP FUNCTION d2.replica_aplicar(uuid, varchar, jsonb);
        """,
    )
    for name in (
        "functions/replica_captura.sql",
        "functions/replica_aplicar.sql",
        "functions/replica_parar.sql",
        "functions/poligonos_publicar_estado.sql",
    ):
        migrations.apply_frozen(op, revision, name)
    # Grants: sql/grants.sql, re-applied at head.


def downgrade() -> None:
    migrations.execute_sql(
        op,
        """
        DROP FUNCTION d2.replica_aplicar(uuid, varchar[], integer, integer);
        DROP FUNCTION d2.replica_parar(uuid, text);
        DROP FUNCTION d2.replica_captura(jsonb, integer, uuid, uuid, uuid);
        """,
    )
    migrations.apply_frozen(op, _ANTERIOR, "functions/replica_aplicar.sql")
    migrations.apply_frozen(op, _ANTERIOR, "functions/poligonos_publicar_estado.sql")
    migrations.execute_sql(
        op,
        """
        REVOKE EXECUTE ON FUNCTION d2.replica_aplicar(uuid, varchar, jsonb) FROM PUBLIC;
        GRANT EXECUTE ON FUNCTION d2.replica_aplicar(uuid, varchar, jsonb) TO d2_worker;
        DROP INDEX d2.replica_eventos_disjuntor_idx;
        ALTER TABLE d2.replica_eventos DROP COLUMN disjuntor;
        DROP TABLE d2.replica_paradas, d2.poligonos_eventos;
        """,
    )
