"""Clean intervals per latitude band: most points resolve with one B-tree probe.

- d2.mirror_faixas: for each band of 1/128 degree of latitude (d2.faixas_por_grau), the
  open x-intervals no boundary of a level <= 4 polygon crosses, with their answer (see
  sql/functions/mirror_faixas_construir.sql for why that answer is exact).
- d2.mirror_faixas_pendentes: bands whose intervals are missing. A row trigger on
  d2.mirror_uc marks the bands a level <= 4 change touches (and deletes their
  intervals); the statement trigger of core.uc_polygons builds them before it bumps the
  mirror version, so the intervals always describe the committed polygons.
- d2.resolver_territorios version 3: the interval first, the GIST tiers of version 2
  (now with ST_Covers) for the rest. tests/integration/test_mirror_intervals.py checks it
  against d2.resolver_territorio.
- d2.mirror_rebuild version 2 also builds the bands.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261202140000_d2_mirror_faixas"
down_revision = "20261202130600_event_log_numerar_v2"
branch_labels = None
depends_on = None


def upgrade() -> None:
    migrations.execute_sql(
        op,
        """
        CREATE TABLE d2.mirror_faixas (
            faixa             INTEGER NOT NULL,
            x_inicio          DOUBLE PRECISION NOT NULL,
            x_fim             DOUBLE PRECISION NOT NULL,
            unidade_civica_id UUID NOT NULL,
            nivel             INTEGER NOT NULL,
            PRIMARY KEY (faixa, x_inicio),
            CHECK (x_inicio < x_fim)
        );
        CREATE TABLE d2.mirror_faixas_pendentes (
            faixa INTEGER PRIMARY KEY
        );
        """,
    )
    for name in (
        "functions/faixas_por_grau.sql",
        "functions/faixas_tocadas.sql",
        "functions/mirror_faixas_invalidar.sql",
        "functions/mirror_faixas_construir.sql",
        "triggers/mirror_uc_faixas.sql",
    ):
        migrations.apply_frozen(op, revision, name)
    migrations.apply_frozen(op, revision, "functions/resolver_territorios.sql")
    # Replaced by the change capture (20261203110000): frozen with this migration.
    for name in (
        "functions/uc_polygons_mirror_statement_v2.sql",
        "functions/mirror_rebuild_v2.sql",
    ):
        migrations.apply_frozen(op, revision, name)
    migrations.execute_sql(
        op,
        """
        -- The polygons already mirrored: every band they touch is pending, then built.
        INSERT INTO d2.mirror_faixas_pendentes (faixa)
        SELECT DISTINCT d2.faixas_tocadas(m.geom)
        FROM d2.mirror_uc m
        WHERE m.nivel <= 4;
        SELECT d2.mirror_faixas_construir();

        GRANT SELECT ON d2.mirror_faixas TO d2_worker;
        GRANT EXECUTE ON FUNCTION d2.faixas_por_grau() TO d2_worker;
        """,
    )


def downgrade() -> None:
    # Version 2 of the resolver, frozen with the migration that introduced it.
    migrations.apply_frozen(
        op, "20261202130500_d2_resolver_fast", "functions/resolver_territorios.sql"
    )
    for name in ("functions/mirror_rebuild.sql", "triggers/uc_polygons_mirror.sql"):
        migrations.apply_frozen(op, "20261202130000_d2_postgis_mirror", name)
    migrations.execute_sql(
        op,
        """
        DROP TRIGGER IF EXISTS mirror_uc_faixas ON d2.mirror_uc;
        DROP TRIGGER IF EXISTS mirror_uc_faixas_truncate ON d2.mirror_uc;
        DROP FUNCTION IF EXISTS d2.mirror_faixas_construir();
        DROP FUNCTION IF EXISTS d2.mirror_faixas_invalidar();
        DROP FUNCTION IF EXISTS d2.faixas_tocadas(geometry);
        DROP FUNCTION IF EXISTS d2.faixas_por_grau();
        DROP TABLE IF EXISTS d2.mirror_faixas, d2.mirror_faixas_pendentes;
        """,
    )
