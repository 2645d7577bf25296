"""Re-georeferencing follows the mirror by itself (spec 8.3).

- d2.regeo_areas: the old and new geometry of every change of d2.mirror_uc, written by
  statement triggers in the transaction that changes the mirror (a TRUNCATE: one row
  with no geometry, everything). d2/ops/regeo.py turns them into
- d2.regeo_fila / d2.regeo_fila_revisoes: the stored resolutions and pending reviews
  whose point lies in a changed area, worked in chunks (resumable).
- GIST indexes on the points of d2.resolucoes_geo and d2.revisoes_geo_pendentes (the
  same expression the queries use), so only the points inside a changed area are read.
- d2.regeo_comparar: today's answer for many stored resolutions in one batch resolver
  call; the full pass uses it too.
d2_worker runs the follow-up: it gets what the follow-up writes (the queues, the
history) in sql/grants.sql.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261203150010_d2_regeo_acompanhamento"
down_revision = "20261203150000_d2_territorio_comunitario"
branch_labels = None
depends_on = None


def upgrade() -> None:
    migrations.execute_sql(
        op,
        """
        CREATE TABLE d2.regeo_areas (
            id                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            geom              geometry(MultiPolygon, 4326),
            unidade_civica_id UUID,
            criado_em         TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
        );
        CREATE TABLE d2.regeo_fila (resolucao_id UUID PRIMARY KEY);
        CREATE TABLE d2.regeo_fila_revisoes (demanda_id UUID PRIMARY KEY);
        CREATE INDEX resolucoes_geo_ponto_idx ON d2.resolucoes_geo
            USING gist (ST_SetSRID(ST_MakePoint(coordenadas_lng, coordenadas_lat), 4326));
        CREATE INDEX revisoes_geo_pendentes_ponto_idx ON d2.revisoes_geo_pendentes
            USING gist (ST_SetSRID(ST_MakePoint(coordenadas_lng, coordenadas_lat), 4326));
        """,
    )
    for name in (
        "functions/mirror_uc_regeo_areas.sql",
        "triggers/mirror_uc_regeo_areas.sql",
        "functions/regeo_comparar.sql",
    ):
        migrations.apply_frozen(op, revision, name)
    # Grants: sql/grants.sql, re-applied at head.


def downgrade() -> None:
    migrations.execute_sql(
        op,
        """
        DROP TRIGGER IF EXISTS mirror_uc_regeo_insert ON d2.mirror_uc;
        DROP TRIGGER IF EXISTS mirror_uc_regeo_update ON d2.mirror_uc;
        DROP TRIGGER IF EXISTS mirror_uc_regeo_delete ON d2.mirror_uc;
        DROP TRIGGER IF EXISTS mirror_uc_regeo_truncate ON d2.mirror_uc;
        DROP FUNCTION IF EXISTS d2.mirror_uc_regeo_areas();
        DROP FUNCTION IF EXISTS d2.regeo_comparar(uuid[]);
        DROP INDEX IF EXISTS d2.resolucoes_geo_ponto_idx, d2.revisoes_geo_pendentes_ponto_idx;
        DROP TABLE d2.regeo_fila_revisoes, d2.regeo_fila, d2.regeo_areas;
        REVOKE INSERT ON d2.resolucoes_geo_historico FROM d2_worker;
        """,
    )
