"""The event-synced replica (spec Phase 2).

- d2.mirror_state.fonte: where the mirror reads its polygons, 'core' (the MVP's
  core.uc_polygons, the default) or 'eventos' (the replica); `d2 mirror fonte` switches.
- d2.replica_uc: the polygons as uc.poligono_* events describe them, written only by
  d2.replica_aplicar (d2/territorio/replica.py consumes the events with a cursor of its own);
  d2.replica_eventos: each event's terminal state (idempotency by event_id).
- d2.uc_fonte: the view every mirror function now reads instead of core.uc_polygons
  (d2.mirror_sync, d2.mirror_aplicar, d2.mirror_rebuild, the chains, d2.cadeia_ucs), so
  both sources share one apply path.
- d2.poligonos_publicados + d2.poligonos_publicar_estado(): the producers' side, what
  core.uc_polygons holds published as events (the importers, `d2 mirror
  publicar-estado`), once per row version.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261203161000_d2_replica"
down_revision = "20261203160000_d2_eventos_vistas"
branch_labels = None
depends_on = None

_FUNCOES = (
    "functions/cadeia_ucs.sql",
    "functions/mirror_sync.sql",
    "functions/mirror_cadeias_atualizar.sql",
    "functions/mirror_cadeias_rebuild.sql",
    "functions/mirror_aplicar.sql",
    "functions/mirror_rebuild.sql",
)


def upgrade() -> None:
    migrations.execute_sql(
        op,
        """
        ALTER TABLE d2.mirror_state
            ADD COLUMN fonte varchar(10) NOT NULL DEFAULT 'core'
            CHECK (fonte IN ('core', 'eventos'));
        CREATE TABLE d2.replica_uc (
            id                UUID PRIMARY KEY,
            unidade_civica_id UUID NOT NULL,
            nivel             INTEGER NOT NULL,
            nome              VARCHAR(255),
            geometria         JSONB NOT NULL,
            parent_uc_id      UUID,
            fonte             VARCHAR(50),
            event_id          UUID NOT NULL,
            atualizado_em     TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
        );
        CREATE INDEX replica_uc_unidade_civica_id_idx ON d2.replica_uc (unidade_civica_id);
        CREATE TABLE d2.replica_eventos (
            event_id      UUID PRIMARY KEY,
            tipo          VARCHAR(255) NOT NULL,
            uc_polygon_id UUID,
            desfecho      TEXT,
            aplicado_em   TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
        );
        CREATE TABLE d2.poligonos_publicados (
            uc_polygon_id     UUID PRIMARY KEY,
            unidade_civica_id UUID NOT NULL,
            nivel             INTEGER NOT NULL,
            hash              TEXT NOT NULL
        );
        """,
    )
    migrations.apply_frozen(op, revision, "functions/mirror_fonte.sql")
    migrations.apply_frozen(op, revision, "views/uc_fonte.sql")
    for name in _FUNCOES:
        migrations.apply_frozen(op, revision, name)
    migrations.apply_frozen(op, revision, "functions/replica_aplicar.sql")
    migrations.apply_frozen(op, revision, "functions/poligonos_publicar_estado.sql")
    # Grants: sql/grants.sql, re-applied at head.


def downgrade() -> None:
    for revisao, name in (
        ("20261203120000_definer_search_path", "functions/cadeia_ucs.sql"),
        ("20261202130000_d2_postgis_mirror", "functions/mirror_sync.sql"),
        ("20261203120000_definer_search_path", "functions/mirror_cadeias_atualizar.sql"),
        ("20261202130500_d2_resolver_fast", "functions/mirror_cadeias_rebuild.sql"),
        ("20261203110000_uc_polygons_captura", "functions/mirror_aplicar.sql"),
        ("20261203110000_uc_polygons_captura", "functions/mirror_rebuild.sql"),
    ):
        migrations.apply_frozen(op, revisao, name)
    migrations.execute_sql(
        op,
        """
        DROP FUNCTION IF EXISTS d2.poligonos_publicar_estado(varchar);
        DROP FUNCTION IF EXISTS d2.replica_aplicar(uuid, varchar, jsonb);
        DROP VIEW IF EXISTS d2.uc_fonte;
        DROP FUNCTION IF EXISTS d2.mirror_fonte();
        DROP TABLE IF EXISTS d2.poligonos_publicados, d2.replica_eventos, d2.replica_uc;
        ALTER TABLE d2.mirror_state DROP COLUMN fonte;
        """,
    )
