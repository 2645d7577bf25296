"""Textual addresses: the geocoding queue, the address columns, the inference.

- d2.resolucoes_geo gains endereco_original and endereco_geocodificado (nullable): the
  text a resolution by 'endereco' or 'inferencia' came from, and what Nominatim made of
  it. demanda.georreferenciada does not change (schema 1.0.0).
- d2.geocodificacoes_pendentes: address demands waiting for the geocoder (one row per
  event; the text stays in core.event_log, not copied here). The worker's geocoding stage
  takes the due rows, and a row leaves the table in the same transaction that gives its
  event a terminal state; while the geocoder is down, a row waits with backoff.
- d2.nominatim_importacoes: each `d2 nominatim import`, so `d2 nominatim status` can say
  what is loaded and the worker's address cache knows to empty itself.
- pg_trgm (created only where missing, and then dropped by the downgrade) and a trigram
  GIN index on core.uc_polygons.nome_busca, which d2.candidatos_territorio searches.
  Additive, as docs/design.md ("What D-2 may do to core") allows: an index on a table
  the monolith writes rarely (seeds).
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261203130000_d2_geocodificacao"
down_revision = "20261203120010_worker_lideranca"
branch_labels = None
depends_on = None

CRIADA_PELA_D2 = "criada pela migration d2 20261203130000"


def upgrade() -> None:
    migrations.execute_sql(
        op,
        f"""
        DO $$
        BEGIN
            IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
                CREATE EXTENSION pg_trgm;
                COMMENT ON EXTENSION pg_trgm IS '{CRIADA_PELA_D2}';
            END IF;
        END
        $$;
        CREATE INDEX IF NOT EXISTS uc_polygons_nome_busca_trgm_idx
            ON core.uc_polygons USING gin (nome_busca gin_trgm_ops);

        ALTER TABLE d2.resolucoes_geo
            ADD COLUMN endereco_original TEXT,
            ADD COLUMN endereco_geocodificado TEXT;

        CREATE TABLE d2.geocodificacoes_pendentes (
            event_id          UUID           NOT NULL,
            demanda_id        UUID           NOT NULL,
            sequence_number   BIGINT         NOT NULL,
            tentativas        INTEGER        NOT NULL DEFAULT 0,
            proxima_tentativa TIMESTAMPTZ    NOT NULL DEFAULT clock_timestamp(),
            ultimo_erro       VARCHAR(200),
            criado_em         TIMESTAMPTZ(2) NOT NULL DEFAULT CURRENT_TIMESTAMP,
            CONSTRAINT geocodificacoes_pendentes_pkey PRIMARY KEY (event_id)
        );
        CREATE INDEX geocodificacoes_pendentes_proxima_idx
            ON d2.geocodificacoes_pendentes (proxima_tentativa, sequence_number);

        CREATE TABLE d2.nominatim_importacoes (
            id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            arquivo      VARCHAR(255)     NOT NULL,
            bytes        BIGINT           NOT NULL,
            duracao_s    DOUBLE PRECISION NOT NULL,
            concluida_em TIMESTAMPTZ(2)   NOT NULL DEFAULT CURRENT_TIMESTAMP
        );
        """,
    )
    migrations.apply_frozen(op, revision, "functions/candidatos_territorio.sql")
    migrations.execute_sql(
        op,
        """
        GRANT SELECT, INSERT, UPDATE, DELETE ON d2.geocodificacoes_pendentes TO d2_worker;
        GRANT SELECT ON d2.nominatim_importacoes TO d2_worker;
        GRANT EXECUTE ON FUNCTION d2.candidatos_territorio(integer[], integer[], text[])
            TO d2_worker;
        """,
    )


def downgrade() -> None:
    migrations.execute_sql(
        op,
        f"""
        DROP FUNCTION IF EXISTS d2.candidatos_territorio(integer[], integer[], text[]);
        DROP TABLE IF EXISTS d2.nominatim_importacoes;
        DROP TABLE IF EXISTS d2.geocodificacoes_pendentes;
        ALTER TABLE d2.resolucoes_geo
            DROP COLUMN IF EXISTS endereco_geocodificado,
            DROP COLUMN IF EXISTS endereco_original;
        DROP INDEX IF EXISTS core.uc_polygons_nome_busca_trgm_idx;
        DO $$
        BEGIN
            IF obj_description(
                (SELECT oid FROM pg_extension WHERE extname = 'pg_trgm'), 'pg_extension'
            ) = '{CRIADA_PELA_D2}' THEN
                DROP EXTENSION pg_trgm;
            END IF;
        END
        $$;
        """,
    )
