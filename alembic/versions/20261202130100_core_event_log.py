"""core.event_log (gap-safe, commit-ordered numbering) and core.dead_letter_queue.

Both tables belong to the monolith's core when D-2 runs inside it: each is created only
where it is missing (standalone installs, tests) and marked with a table COMMENT so that
downgrade drops only what this migration created. On a core.event_log that already
exists, the migration adds what the numbering needs (ordem_insercao, a nullable
sequence_number, the indexes, the triggers) and records in d2.event_log_original what it
changed, so that downgrade puts it back.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261202130100_core_event_log"
down_revision = "20261202130000_d2_postgis_mirror"
branch_labels = None
depends_on = None

CRIADA_PELA_D2 = "criada pela migration d2 20261202130100"


def upgrade() -> None:
    migrations.execute_sql(
        op,
        f"""
        CREATE SCHEMA IF NOT EXISTS core;

        -- Hands out sequence numbers in blocks, only under the numbering lock
        -- (sql/functions/event_log_numerar.sql): not a column default on purpose, and
        -- not named event_log_sequence_number_seq, which a serial column would own.
        CREATE SEQUENCE IF NOT EXISTS core.event_log_numeracao_seq AS bigint;
        -- Order of insertion inside a transaction: the numbering keeps it.
        CREATE SEQUENCE IF NOT EXISTS core.event_log_ordem_insercao_seq AS bigint;

        DO $$
        BEGIN
            IF to_regclass('core.event_log') IS NULL THEN
                CREATE TABLE core.event_log (
                    sequence_number  BIGINT,
                    event_id         UUID          NOT NULL,
                    tipo             VARCHAR(255)  NOT NULL,
                    versao_schema    VARCHAR(32)   NOT NULL DEFAULT '1.0.0',
                    origem           VARCHAR(100)  NOT NULL,
                    correlacao_id    UUID,
                    payload          JSONB         NOT NULL,
                    publicado_em     TIMESTAMPTZ   NOT NULL DEFAULT clock_timestamp(),
                    ordem_insercao   BIGINT        NOT NULL
                        DEFAULT nextval('core.event_log_ordem_insercao_seq'),
                    CONSTRAINT event_log_pkey PRIMARY KEY (event_id),
                    CONSTRAINT event_log_sequence_number_key UNIQUE (sequence_number)
                );
                COMMENT ON TABLE core.event_log IS '{CRIADA_PELA_D2}';
            ELSE
                -- The monolith's table: sequence_number must start NULL inside the
                -- inserting transaction, and rows need their insertion order. What is
                -- changed is written down in d2.event_log_original for the downgrade.
                CREATE TABLE d2.event_log_original AS
                SELECT pg_get_expr(d.adbin, d.adrelid) AS default_sequence_number,
                       a.attnotnull AS sequence_number_not_null,
                       NOT EXISTS (
                           SELECT 1 FROM pg_attribute o
                           WHERE o.attrelid = 'core.event_log'::regclass
                             AND o.attname = 'ordem_insercao' AND NOT o.attisdropped
                       ) AS ordem_insercao_criada
                FROM pg_attribute a
                LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                WHERE a.attrelid = 'core.event_log'::regclass
                  AND a.attname = 'sequence_number';
                ALTER TABLE core.event_log ALTER COLUMN sequence_number DROP DEFAULT;
                ALTER TABLE core.event_log ALTER COLUMN sequence_number DROP NOT NULL;
                ALTER TABLE core.event_log ADD COLUMN IF NOT EXISTS ordem_insercao BIGINT
                    NOT NULL DEFAULT nextval('core.event_log_ordem_insercao_seq');
            END IF;
        END
        $$;
        ALTER SEQUENCE core.event_log_ordem_insercao_seq OWNED BY core.event_log.ordem_insercao;
        -- Continue after whatever the table already holds.
        SELECT setval('core.event_log_numeracao_seq',
                      greatest(coalesce(max(sequence_number), 0), 1),
                      coalesce(max(sequence_number), 0) > 0)
        FROM core.event_log;

        -- "Events of type T after sequence S": the replay and the worker's poll.
        CREATE INDEX IF NOT EXISTS event_log_tipo_sequence_number_idx
            ON core.event_log (tipo, sequence_number);
        -- The commit-time numbering finds its transaction's rows here.
        CREATE INDEX IF NOT EXISTS event_log_pendentes_idx
            ON core.event_log (ordem_insercao) WHERE sequence_number IS NULL;

        DO $$
        BEGIN
            IF to_regclass('core.dead_letter_queue') IS NULL THEN
                CREATE TABLE core.dead_letter_queue (
                    id                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    consumidor        VARCHAR(100)  NOT NULL,
                    event_id          UUID          NOT NULL,
                    tipo              VARCHAR(255)  NOT NULL,
                    sequence_number   BIGINT,
                    erro              TEXT          NOT NULL,
                    tentativas        INTEGER       NOT NULL DEFAULT 1,
                    status            VARCHAR(20)   NOT NULL DEFAULT 'pendente',
                    primeiro_erro_em  TIMESTAMPTZ   NOT NULL DEFAULT clock_timestamp(),
                    ultimo_erro_em    TIMESTAMPTZ   NOT NULL DEFAULT clock_timestamp(),
                    reprocessado_em   TIMESTAMPTZ,
                    CONSTRAINT dead_letter_queue_consumidor_event_id_key
                        UNIQUE (consumidor, event_id),
                    CONSTRAINT dead_letter_queue_status_check
                        CHECK (status IN ('pendente', 'reprocessado', 'descartado'))
                );
                CREATE INDEX dead_letter_queue_status_idx
                    ON core.dead_letter_queue (status, consumidor);
                COMMENT ON TABLE core.dead_letter_queue IS '{CRIADA_PELA_D2}';
            END IF;
        END
        $$;
        """,
    )
    for name in (
        "20261202130100_core_event_log/functions/event_log_proteger_sequencia.sql",
        "20261202130100_core_event_log/functions/event_log_numerar.sql",
        "20261202130100_core_event_log/triggers/event_log_proteger_sequencia.sql",
        "20261202130100_core_event_log/triggers/event_log_numerar.sql",
    ):
        migrations.apply_frozen(op, name)


def downgrade() -> None:
    migrations.execute_sql(
        op,
        f"""
        DROP TRIGGER IF EXISTS event_log_numerar ON core.event_log;
        DROP TRIGGER IF EXISTS event_log_proteger_sequencia ON core.event_log;
        DROP FUNCTION IF EXISTS core.event_log_numerar();
        DROP FUNCTION IF EXISTS core.event_log_proteger_sequencia();
        DO $$
        DECLARE
            original record;
            serial text;
        BEGIN
            IF obj_description('core.dead_letter_queue'::regclass, 'pg_class')
               = '{CRIADA_PELA_D2}' THEN
                DROP TABLE core.dead_letter_queue;
            END IF;
            IF obj_description('core.event_log'::regclass, 'pg_class') = '{CRIADA_PELA_D2}' THEN
                DROP TABLE core.event_log;
            ELSIF to_regclass('d2.event_log_original') IS NOT NULL THEN
                DROP INDEX IF EXISTS core.event_log_pendentes_idx;
                DROP INDEX IF EXISTS core.event_log_tipo_sequence_number_idx;
                SELECT * INTO original FROM d2.event_log_original;
                IF original.ordem_insercao_criada THEN
                    ALTER TABLE core.event_log DROP COLUMN ordem_insercao;
                END IF;
                IF original.default_sequence_number IS NOT NULL THEN
                    EXECUTE format(
                        'ALTER TABLE core.event_log ALTER COLUMN sequence_number SET DEFAULT %s',
                        original.default_sequence_number
                    );
                    -- A serial's own sequence must continue after the numbers given here.
                    serial := pg_get_serial_sequence('core.event_log', 'sequence_number');
                    IF serial IS NOT NULL THEN
                        PERFORM setval(serial, greatest(coalesce(max(sequence_number), 0), 1),
                                       coalesce(max(sequence_number), 0) > 0)
                        FROM core.event_log;
                    END IF;
                END IF;
                IF original.sequence_number_not_null THEN
                    ALTER TABLE core.event_log ALTER COLUMN sequence_number SET NOT NULL;
                END IF;
                DROP TABLE d2.event_log_original;
            END IF;
        END
        $$;
        DROP SEQUENCE IF EXISTS core.event_log_ordem_insercao_seq;
        DROP SEQUENCE IF EXISTS core.event_log_numeracao_seq;
        """,
    )
