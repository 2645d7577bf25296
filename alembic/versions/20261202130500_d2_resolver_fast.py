"""The fast resolver: precomputed parent chains, a tiered set-based resolver, no JIT.

- d2.mirror_cadeias holds, per UC, the chain d2.cadeia_ucs gives (the recursive CTE stays
  the source of truth; statement triggers on core.uc_polygons keep the table fresh, and
  tests/integration/test_chain_precompute.py checks both agree on every UC).
- d2.resolver_territorios (the batch form, what the worker calls) becomes one join:
  unnest the points, LATERAL probes of three partial GIST indexes of d2.mirror_pieces
  (bairros, municípios, above) in level order, LIMIT 1, and the precomputed chain.
  Its body lives here (STYLE: a migration applies only frozen files); the frozen
  the version 1 frozen with 20261202130000 is what downgrade restores.
- d2.mirror_sync and d2.resolver_territorios run with jit off: their plans' estimates
  made PostgreSQL JIT-compile them on every call (35 ms of a 36 ms mirror_sync call).
- The vertex cap stays 64: `d2 bench pip` measured 16/32/64/128/256 on the shared data
  and on the same data densified to ~20 M vertices. 16 and 32 are 10-40 % slower on the
  generalized data (bigger index); 64 and 128 are within the noise of this shared
  machine (interleaved A/B at ~20 M vertices, points per server CPU-second: 64 →
  23.9 k / 22.1 k, 128 → 24.9 k / 20.6 k, random / near-border points). 64 keeps the
  per-piece test cheap as density rises, and it is the existing default: no rebuild.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261202130500_d2_resolver_fast"
down_revision = "20261202130300_d2_regeo_history"  # was 130200; rewired to keep one head
branch_labels = None
depends_on = None

# Vertex cap of the mirror's pieces, measured by `d2 bench pip` (see the docstring).
MAX_VERTICES = 64


def upgrade() -> None:
    migrations.execute_sql(
        op,
        """
        -- Per UC: the chain d2.cadeia_ucs gives, precomputed.
        CREATE TABLE d2.mirror_cadeias (
            unidade_civica_id UUID PRIMARY KEY,
            cadeia_ucs        UUID[] NOT NULL,
            ultimo_pai        UUID
        );
        CREATE INDEX mirror_cadeias_ultimo_pai_idx ON d2.mirror_cadeias (ultimo_pai);

        -- The resolver's three tiers (see its frozen text, sql/<revision>/functions).
        CREATE INDEX mirror_pieces_geom_sub_idx ON d2.mirror_pieces USING gist (geom)
            WHERE nivel <= 3;
        CREATE INDEX mirror_pieces_geom_mun_idx ON d2.mirror_pieces USING gist (geom)
            WHERE nivel = 4;
        CREATE INDEX mirror_pieces_geom_sup_idx ON d2.mirror_pieces USING gist (geom)
            WHERE nivel >= 5;

        -- Its estimate (1,000,000 rows from ST_Dump) made every call JIT-compile its
        -- INSERT: 35 ms of a 36 ms call. Off, an import of the shared data is ~20x faster.
        ALTER FUNCTION d2.mirror_sync(uuid) SET jit = off;
        """,
    )
    for name in (
        "functions/mirror_cadeias_atualizar.sql",
        "functions/mirror_cadeias_rebuild.sql",
    ):
        migrations.apply_frozen(op, revision, name)
    # Replaced by the change capture (20261203110000): frozen with this migration.
    for name in ("functions/uc_polygons_cadeias.sql", "triggers/uc_polygons_cadeias.sql"):
        migrations.apply_frozen(op, revision, name)
    # Version 2 of the batch resolver, frozen with this migration.
    migrations.apply_frozen(op, revision, "functions/resolver_territorios.sql")
    migrations.execute_sql(
        op,
        f"""
        SELECT d2.mirror_cadeias_rebuild();
        ALTER TABLE d2.mirror_state ALTER COLUMN max_vertices SET DEFAULT {MAX_VERTICES};
        UPDATE d2.mirror_state SET max_vertices = {MAX_VERTICES}
        WHERE max_vertices IS DISTINCT FROM {MAX_VERTICES};
        """,
    )


def downgrade() -> None:
    migrations.apply_frozen(
        op, "20261202130000_d2_postgis_mirror", "functions/resolver_territorios.sql"
    )
    migrations.execute_sql(
        op,
        """
        DROP TRIGGER IF EXISTS uc_polygons_cadeias_insert ON core.uc_polygons;
        DROP TRIGGER IF EXISTS uc_polygons_cadeias_update ON core.uc_polygons;
        DROP TRIGGER IF EXISTS uc_polygons_cadeias_delete ON core.uc_polygons;
        DROP TRIGGER IF EXISTS uc_polygons_cadeias_truncate ON core.uc_polygons;
        DROP FUNCTION IF EXISTS d2.uc_polygons_cadeias();
        DROP FUNCTION IF EXISTS d2.mirror_cadeias_rebuild();
        DROP FUNCTION IF EXISTS d2.mirror_cadeias_atualizar(uuid[]);
        DROP TABLE d2.mirror_cadeias;
        DROP INDEX IF EXISTS d2.mirror_pieces_geom_sub_idx;
        DROP INDEX IF EXISTS d2.mirror_pieces_geom_mun_idx;
        DROP INDEX IF EXISTS d2.mirror_pieces_geom_sup_idx;
        ALTER FUNCTION d2.mirror_sync(uuid) RESET jit;
        """,
    )
