"""The resolver near borders: one GIST tier for bairros and municípios, its index built
with pages a tenth full.

A point outside every clean interval spent most of its time in the GIST search: each
visited page tests every entry against the point (~190 entries a page), twice (the
bairro tier, then the município tier). One partial index over levels <= 4, built with
fillfactor 10 (buffering on: the sorted build ignores the fillfactor), tests ~17 entries
a page, once; the point carries its bounding box into that search (postgis_addbbox), so
PostGIS does not compute it again at every entry. Inserts fill the index's pages, so
d2.mirror_aplicar builds it again once the polygons synced since its last build pass a
tenth of the mirror (d2.mirror_state.sincronizados_desde_indice), and d2.mirror_rebuild
at its end.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261206100000_d2_resolver_indice_esparso"
down_revision = "20261205100000_d2_resolver_sem_memoize"
branch_labels = None
depends_on = None

# Where the previous texts were frozen.
_RESOLVER = "20261204110000_d2_territorio_seguro"
_MIRROR = "20261204130000_d2_travas"


def upgrade() -> None:
    op.execute(
        """
        ALTER TABLE d2.mirror_state
            ADD COLUMN sincronizados_desde_indice BIGINT NOT NULL DEFAULT 0;
        CREATE INDEX mirror_pieces_geom_mun_sub_idx ON d2.mirror_pieces USING gist (geom)
            WITH (fillfactor = 10, buffering = on)
            WHERE nivel <= 4;
        """
    )
    migrations.apply_frozen(op, revision, "functions/resolver_territorio.sql")
    migrations.apply_frozen(op, revision, "functions/mirror_aplicar.sql")
    migrations.apply_frozen(op, revision, "functions/mirror_rebuild.sql")
    op.execute(
        """
        DROP INDEX d2.mirror_pieces_geom_sub_idx;
        DROP INDEX d2.mirror_pieces_geom_mun_idx;
        """
    )


def downgrade() -> None:
    op.execute(
        """
        CREATE INDEX mirror_pieces_geom_sub_idx ON d2.mirror_pieces USING gist (geom)
            WHERE nivel <= 3;
        CREATE INDEX mirror_pieces_geom_mun_idx ON d2.mirror_pieces USING gist (geom)
            WHERE nivel = 4;
        """
    )
    migrations.apply_frozen(op, _RESOLVER, "functions/resolver_territorio.sql")
    migrations.apply_frozen(op, _MIRROR, "functions/mirror_aplicar.sql")
    migrations.apply_frozen(op, _MIRROR, "functions/mirror_rebuild.sql")
    op.execute(
        """
        DROP INDEX d2.mirror_pieces_geom_mun_sub_idx;
        ALTER TABLE d2.mirror_state DROP COLUMN sincronizados_desde_indice;
        """
    )
