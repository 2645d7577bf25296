"""nome_busca on core.uc_polygons, kept by a trigger (spec §2.6).

The function body stays here, frozen with the migration: a later change to the
normalisation gets a new migration.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20260913120000_uc_polygons_nome_busca"
down_revision = "20260814202321_create_d2_revisoes_geo_pendentes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    migrations.execute_sql(
        op,
        r"""
        CREATE EXTENSION IF NOT EXISTS unaccent;

        ALTER TABLE core.uc_polygons
            ADD COLUMN IF NOT EXISTS nome_busca VARCHAR(255) NOT NULL DEFAULT '';

        -- Lower case, no accents, no punctuation: "São João d'Aliança" -> "sao joao daliança"
        -- minus the cedilla. Apostrophes vanish (d'Aliança -> daliança), other punctuation
        -- becomes a space, runs of spaces collapse.
        CREATE OR REPLACE FUNCTION core.uc_polygons_nome_busca()
        RETURNS trigger
        LANGUAGE plpgsql
        SET search_path = pg_catalog, public
        AS $$
        BEGIN
            NEW.nome_busca := left(btrim(regexp_replace(
                regexp_replace(
                    regexp_replace(lower(unaccent(NEW.nome)), '[''`´’]', '', 'g'),
                    '[^a-z0-9]+', ' ', 'g'),
                '\s+', ' ', 'g')), 255);
            RETURN NEW;
        END
        $$;

        DROP TRIGGER IF EXISTS uc_polygons_nome_busca ON core.uc_polygons;
        CREATE TRIGGER uc_polygons_nome_busca
            BEFORE INSERT OR UPDATE OF nome ON core.uc_polygons
            FOR EACH ROW EXECUTE FUNCTION core.uc_polygons_nome_busca();

        UPDATE core.uc_polygons SET nome = nome WHERE nome_busca = '';
        """,
    )


def downgrade() -> None:
    migrations.execute_sql(
        op,
        """
        DROP TRIGGER IF EXISTS uc_polygons_nome_busca ON core.uc_polygons;
        DROP FUNCTION IF EXISTS core.uc_polygons_nome_busca();
        ALTER TABLE core.uc_polygons DROP COLUMN IF EXISTS nome_busca;
        """,
    )
