"""PostGIS mirror of core.uc_polygons and the resolver (docs/design.md, decisions 1-4)."""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261202130000_d2_postgis_mirror"
down_revision = "20260918140000_d2_eventos_processados_limpeza"
branch_labels = None
depends_on = None


def upgrade() -> None:
    migrations.execute_sql(
        op,
        """
        CREATE EXTENSION IF NOT EXISTS postgis;

        -- One row per core.uc_polygons row: the repaired MultiPolygon.
        CREATE TABLE d2.mirror_uc (
            uc_polygon_id     UUID PRIMARY KEY,
            unidade_civica_id UUID NOT NULL,
            nivel             INTEGER NOT NULL,
            geom              geometry(MultiPolygon, 4326) NOT NULL,
            reparada          BOOLEAN NOT NULL DEFAULT false,
            n_vertices        INTEGER NOT NULL,
            sincronizado_em   TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
        );
        CREATE INDEX mirror_uc_geom_idx ON d2.mirror_uc USING gist (geom);
        CREATE INDEX mirror_uc_unidade_civica_id_idx ON d2.mirror_uc (unidade_civica_id);

        -- The same geometry cut into small pieces: what the resolver searches.
        CREATE TABLE d2.mirror_pieces (
            id                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            uc_polygon_id     UUID NOT NULL,
            unidade_civica_id UUID NOT NULL,
            nivel             INTEGER NOT NULL,
            geom              geometry(Polygon, 4326) NOT NULL
        );
        CREATE INDEX mirror_pieces_geom_idx ON d2.mirror_pieces USING gist (geom);
        CREATE INDEX mirror_pieces_uc_polygon_id_idx ON d2.mirror_pieces (uc_polygon_id);

        -- Rows of core.uc_polygons left out of the mirror, and why.
        CREATE TABLE d2.mirror_rejected (
            uc_polygon_id     UUID PRIMARY KEY,
            unidade_civica_id UUID,
            nivel             INTEGER,
            nome              TEXT,
            motivo            TEXT NOT NULL,
            rejeitado_em      TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
        );

        -- Version bumped on every change of core.uc_polygons: the worker's cache key epoch.
        CREATE TABLE d2.mirror_state (
            id            BOOLEAN PRIMARY KEY DEFAULT true CHECK (id),
            versao        BIGINT NOT NULL DEFAULT 0,
            max_vertices  INTEGER NOT NULL DEFAULT 64 CHECK (max_vertices >= 5),
            alterado_em   TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
        );
        INSERT INTO d2.mirror_state DEFAULT VALUES;
        """,
    )
    migrations.apply_frozen(op, revision, "functions/arredondar_coordenada.sql")
    for name in ("functions/cadeia_ucs.sql", "functions/mirror_sync.sql"):
        migrations.apply_frozen(op, revision, name)
    # Versions later migrations replaced, frozen with this one.
    for name in ("functions/mirror_rebuild.sql", "triggers/uc_polygons_mirror.sql"):
        migrations.apply_frozen(op, revision, name)
    for name in ("functions/resolver_territorio.sql", "functions/resolver_territorios.sql"):
        migrations.apply_frozen(op, revision, name)
    migrations.execute_sql(op, "SELECT * FROM d2.mirror_rebuild();")


def downgrade() -> None:
    migrations.execute_sql(
        op,
        """
        DROP TRIGGER IF EXISTS uc_polygons_mirror_statement ON core.uc_polygons;
        DROP TRIGGER IF EXISTS uc_polygons_mirror_row ON core.uc_polygons;
        DROP FUNCTION IF EXISTS d2.resolver_territorios(double precision[], double precision[]);
        DROP FUNCTION IF EXISTS d2.resolver_territorio(double precision, double precision);
        DROP FUNCTION IF EXISTS d2.uc_polygons_mirror_statement();
        DROP FUNCTION IF EXISTS d2.uc_polygons_mirror_row();
        DROP FUNCTION IF EXISTS d2.mirror_rebuild();
        DROP FUNCTION IF EXISTS d2.mirror_sync(uuid);
        DROP FUNCTION IF EXISTS d2.cadeia_ucs(uuid);
        DROP FUNCTION IF EXISTS d2.arredondar_coordenada(double precision);
        DROP TABLE d2.mirror_state, d2.mirror_rejected, d2.mirror_pieces, d2.mirror_uc;
        """,
    )
