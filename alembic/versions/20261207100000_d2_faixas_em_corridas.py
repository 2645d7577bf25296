"""Clean intervals stored as runs: one row of d2.mirror_faixas holds up to 64 consecutive
intervals of its band as arrays (limites, unidades, niveis), and the resolver finds the
point's interval in the row with width_bucket.

One row an interval made the table and its index ~35 MB for the shared data; the probe
every point pays walked them through pages the CPU's caches no longer held, ~4.5 µs of a
random point's ~6.5. As runs: ~8,000 rows, ~14 MB, an index that stays in cache; the
same answers (tests/integration/test_mirror_intervals.py compares them with the plain
predicate). The intervals of the polygons already mirrored are built again here.

d2.arredondar_coordenada, the rounding every point pays first, computes in floating point
wherever that provably gives the numeric path's result, and takes the numeric path only
within 1e-6 of a half (its text says why that is exact); no longer STRICT, so it is inlined.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261207100000_d2_faixas_em_corridas"
down_revision = "20261206130000_d2_sem_trigramas_em_core"
branch_labels = None
depends_on = None

# Where the previous texts were frozen.
_RESOLVER = "20261206100000_d2_resolver_indice_esparso"
_CONSTRUIR = "20261204130000_d2_travas"
_ARREDONDAR = "20261202130000_d2_postgis_mirror"

_PENDENTES_E_CONSTRUIR = """
    INSERT INTO d2.mirror_faixas_pendentes (faixa)
    SELECT DISTINCT d2.faixas_tocadas(m.geom)
    FROM d2.mirror_uc m
    WHERE m.nivel <= 4
    ON CONFLICT DO NOTHING;
    SELECT d2.mirror_faixas_construir();
    GRANT SELECT ON d2.mirror_faixas TO d2_worker;
"""


def upgrade() -> None:
    migrations.execute_sql(
        op,
        """
        DROP TABLE d2.mirror_faixas;
        CREATE TABLE d2.mirror_faixas (
            faixa             INTEGER NOT NULL,
            x_inicio          DOUBLE PRECISION NOT NULL,
            limites           DOUBLE PRECISION[] NOT NULL,
            unidades          UUID[] NOT NULL,
            niveis            INTEGER[] NOT NULL,
            CONSTRAINT mirror_faixas_pkey PRIMARY KEY (faixa, x_inicio),
            CONSTRAINT mirror_faixas_check CHECK (
                limites[1] = x_inicio
                AND cardinality(limites) = 2 * cardinality(unidades)
                AND cardinality(unidades) = cardinality(niveis)
            )
        );
        ALTER TABLE d2.mirror_faixas
            ALTER COLUMN limites SET STORAGE PLAIN,
            ALTER COLUMN unidades SET STORAGE PLAIN,
            ALTER COLUMN niveis SET STORAGE PLAIN;
        """,
    )
    migrations.apply_frozen(op, revision, "functions/mirror_faixas_construir.sql")
    migrations.apply_frozen(op, revision, "functions/arredondar_coordenada.sql")
    migrations.apply_frozen(op, revision, "functions/resolver_territorio.sql")
    migrations.execute_sql(op, _PENDENTES_E_CONSTRUIR)


def downgrade() -> None:
    migrations.execute_sql(
        op,
        """
        DROP TABLE d2.mirror_faixas;
        CREATE TABLE d2.mirror_faixas (
            faixa             INTEGER NOT NULL,
            x_inicio          DOUBLE PRECISION NOT NULL,
            x_fim             DOUBLE PRECISION NOT NULL,
            unidade_civica_id UUID NOT NULL,
            nivel             INTEGER NOT NULL,
            CONSTRAINT mirror_faixas_pkey PRIMARY KEY (faixa, x_inicio),
            CONSTRAINT mirror_faixas_check CHECK (x_inicio < x_fim)
        );
        """,
    )
    migrations.apply_frozen(op, _CONSTRUIR, "functions/mirror_faixas_construir.sql")
    migrations.apply_frozen(op, _ARREDONDAR, "functions/arredondar_coordenada.sql")
    migrations.apply_frozen(op, _RESOLVER, "functions/resolver_territorio.sql")
    migrations.execute_sql(op, _PENDENTES_E_CONSTRUIR)
