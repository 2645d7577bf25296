"""A point near a border answered from its band's row: for the gap after each clean
interval, d2.mirror_faixas lists the level <= 4 pieces whose bounding box meets the gap,
in the answer's order (corte, pedacos), and the resolver tests the point against them by
key instead of searching the GIST index of d2.mirror_pieces (~4 µs, ~60% of a
near-border point's server CPU). The probe every point already pays finds the list.
A point in no listed piece (the sea, a gap between municípios) still takes the GIST tiers.
The intervals of the polygons already mirrored are built again here.

The build (d2.mirror_faixas_construir) also got cheaper than before the lists: each
segment's coordinates computed once (an inlined CTE computed them again in every
expression), and a piece paired only with the intervals whose middle can lie in its box
(two binary searches in the band's sorted middles) instead of every interval of its band.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261207100100_d2_faixas_com_lacunas"
down_revision = "20261207100000_d2_faixas_em_corridas"
branch_labels = None
depends_on = None

_RECONSTRUIR = """
    INSERT INTO d2.mirror_faixas_pendentes (faixa)
    SELECT DISTINCT d2.faixas_tocadas(m.geom)
    FROM d2.mirror_uc m
    WHERE m.nivel <= 4
    ON CONFLICT DO NOTHING;
    SELECT d2.mirror_faixas_construir();
"""


def upgrade() -> None:
    migrations.execute_sql(
        op,
        """
        TRUNCATE d2.mirror_faixas;
        ALTER TABLE d2.mirror_faixas
            ADD COLUMN corte INTEGER[] NOT NULL,
            ADD COLUMN pedacos BIGINT[] NOT NULL,
            DROP CONSTRAINT mirror_faixas_check,
            ADD CONSTRAINT mirror_faixas_check CHECK (
                limites[1] = x_inicio
                AND cardinality(limites) = 2 * cardinality(unidades)
                AND cardinality(unidades) = cardinality(niveis)
                AND cardinality(corte) = cardinality(unidades) + 1
            ),
            SET (toast_tuple_target = 8160);
        ALTER TABLE d2.mirror_faixas
            ALTER COLUMN corte SET STORAGE PLAIN,
            ALTER COLUMN pedacos SET STORAGE EXTERNAL;
        """,
    )
    migrations.apply_frozen(op, revision, "functions/mirror_faixas_construir.sql")
    migrations.apply_frozen(op, revision, "functions/resolver_territorio.sql")
    migrations.execute_sql(op, _RECONSTRUIR)


def downgrade() -> None:
    migrations.execute_sql(
        op,
        """
        TRUNCATE d2.mirror_faixas;
        ALTER TABLE d2.mirror_faixas
            DROP CONSTRAINT mirror_faixas_check,
            DROP COLUMN corte,
            DROP COLUMN pedacos,
            ADD CONSTRAINT mirror_faixas_check CHECK (
                limites[1] = x_inicio
                AND cardinality(limites) = 2 * cardinality(unidades)
                AND cardinality(unidades) = cardinality(niveis)
            ),
            RESET (toast_tuple_target);
        """,
    )
    migrations.apply_frozen(op, down_revision, "functions/mirror_faixas_construir.sql")
    migrations.apply_frozen(op, down_revision, "functions/resolver_territorio.sql")
    migrations.execute_sql(op, _RECONSTRUIR)
