"""core.event_log as producers know it: numbered at INSERT, gap safety from a fence.

- sequence_number gets back its own default (the monolith's, recorded by 20261202130100
  in d2.event_log_original, or nextval of core.event_log_numeracao_seq on a log D-2
  created) and NOT NULL: `INSERT ... RETURNING sequence_number` gives the number at once.
- The commit-time numbering goes: triggers event_log_numerar and
  event_log_proteger_sequencia, functions core.event_log_numerar(),
  core.event_log_proteger_sequencia(), core.event_log_inserir_numerados(), the flag
  d2.numerar_na_insercao, and the column ordem_insercao with its sequence where D-2 added
  it. No producer's commit waits for D-2 any more.
- Added instead: core.event_log.transacao xid8, default pg_current_xact_id() (the
  inserting transaction), added without a default first so that the table is not
  rewritten: rows from before stay NULL (all committed long ago, in commit order); and an
  index on (tipo, coalesce(transacao, 0), sequence_number) for the consumers' reads.
  A consumer reads in (transacao, sequence_number) order and only below
  pg_snapshot_xmin(pg_current_snapshot()): every transaction below it has finished, so
  nothing can appear behind its cursor (sql/queries/bus.sql, bus_ler_desde).
- d2.consumer_offset_transacao keeps the transaction half of each cursor (the spec's
  d2.consumer_offset keeps its columns), and d2.consumer_posicao(tipo) reads a cursor's
  position. Today's cursors are recorded at transaction 0 (their events are from
  before): they continue where they are, even if a worker of the previous version keeps
  moving last_sequence for a while.

The ACCESS EXCLUSIVE lock is taken first: transactions that inserted under the old
numbering finish (and are numbered) before anything changes. SET NOT NULL reads the
table once under that lock; nothing is rewritten.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261203100000_event_log_transacao"
down_revision = "20261203010000_event_log_numerar_na_insercao"
branch_labels = None
depends_on = None

CRIADA_PELA_D2 = "criada pela migration d2 20261202130100"
FROZEN = "20261203010000_event_log_numerar_na_insercao/"


def upgrade() -> None:
    migrations.execute_sql(
        op,
        f"""
        LOCK TABLE core.event_log IN ACCESS EXCLUSIVE MODE;
        DROP TRIGGER IF EXISTS event_log_numerar ON core.event_log;
        DROP TRIGGER IF EXISTS event_log_proteger_sequencia ON core.event_log;
        DROP FUNCTION IF EXISTS
            core.event_log_inserir_numerados(varchar, varchar, varchar, jsonb);
        DROP FUNCTION IF EXISTS core.event_log_numerar();
        DROP FUNCTION IF EXISTS core.event_log_proteger_sequencia();
        DROP INDEX IF EXISTS core.event_log_pendentes_idx;

        DO $$
        DECLARE
            original text;
            serial text;
            -- Only a column D-2 added goes: on a log D-2 created, or where it added it.
            ordem_da_d2 boolean := obj_description('core.event_log'::regclass, 'pg_class')
                                   = '{CRIADA_PELA_D2}';
        BEGIN
            IF to_regclass('d2.event_log_original') IS NOT NULL THEN
                EXECUTE 'SELECT default_sequence_number, ordem_insercao_criada'
                        ' FROM d2.event_log_original'
                    INTO original, ordem_da_d2;
            END IF;
            IF original IS NOT NULL THEN
                -- The monolith's own default (a serial): it continues after the numbers
                -- D-2 gave meanwhile.
                EXECUTE format(
                    'ALTER TABLE core.event_log ALTER COLUMN sequence_number SET DEFAULT %s',
                    original
                );
            ELSE
                ALTER SEQUENCE core.event_log_numeracao_seq
                    OWNED BY core.event_log.sequence_number;
                ALTER TABLE core.event_log ALTER COLUMN sequence_number
                    SET DEFAULT nextval('core.event_log_numeracao_seq');
            END IF;
            serial := pg_get_serial_sequence('core.event_log', 'sequence_number');
            IF serial IS NOT NULL THEN
                PERFORM setval(serial, greatest(coalesce(max(sequence_number), 0), 1),
                               coalesce(max(sequence_number), 0) > 0)
                FROM core.event_log;
                EXECUTE format('GRANT USAGE ON SEQUENCE %s TO d2_worker', serial);
            END IF;
            IF ordem_da_d2 THEN
                ALTER TABLE core.event_log DROP COLUMN IF EXISTS ordem_insercao;
            END IF;
        END
        $$;
        ALTER TABLE core.event_log ALTER COLUMN sequence_number SET NOT NULL;

        ALTER TABLE core.event_log ADD COLUMN transacao xid8;
        ALTER TABLE core.event_log ALTER COLUMN transacao SET DEFAULT pg_current_xact_id();
        COMMENT ON COLUMN core.event_log.transacao IS
            'D-2: the inserting transaction (NULL: inserted before migration 20261203100000). '
            'Consumers read below the oldest running transaction, never past an open one.';
        CREATE INDEX event_log_tipo_transacao_idx
            ON core.event_log (tipo, (coalesce(transacao, '0'::xid8)), sequence_number);

        -- No foreign key: a row counts only while its last_sequence equals the cursor's,
        -- so a cursor reset or truncated by hand simply ignores it (and TRUNCATE of
        -- d2.consumer_offset keeps working).
        CREATE TABLE d2.consumer_offset_transacao (
            tipo_evento     VARCHAR(255) PRIMARY KEY,
            last_sequence   BIGINT NOT NULL,
            last_transacao  xid8   NOT NULL
        );
        COMMENT ON TABLE d2.consumer_offset_transacao IS
            'Transaction half of a d2.consumer_offset cursor, valid while last_sequence matches.';
        GRANT SELECT, INSERT, UPDATE, DELETE ON d2.consumer_offset_transacao TO d2_worker;
        -- Today's cursors point at events from before (transaction 0): recorded as such,
        -- so a worker of the previous version still running meanwhile cannot drag the
        -- position forward (see d2.consumer_posicao).
        INSERT INTO d2.consumer_offset_transacao (tipo_evento, last_sequence, last_transacao)
        SELECT tipo_evento, last_sequence, '0'::xid8 FROM d2.consumer_offset;
        """,
    )
    migrations.apply_frozen(op, revision, "functions/consumer_posicao.sql")
    migrations.execute_sql(
        op,
        """
        REVOKE EXECUTE ON FUNCTION d2.consumer_posicao(varchar) FROM PUBLIC;
        GRANT EXECUTE ON FUNCTION d2.consumer_posicao(varchar) TO d2_worker;
        """,
    )


def downgrade() -> None:
    migrations.execute_sql(
        op,
        """
        LOCK TABLE core.event_log IN ACCESS EXCLUSIVE MODE;
        -- The old numbering reads a cursor as "every event numbered above it": move each
        -- cursor back below the first event it has not read (a few may be read twice,
        -- which the consumers' idempotency absorbs; none is skipped).
        UPDATE d2.consumer_offset o
        SET last_sequence = coalesce(
            (SELECT min(e.sequence_number) - 1
             FROM core.event_log e, d2.consumer_posicao(o.tipo_evento) p
             WHERE e.tipo = o.tipo_evento
               AND (coalesce(e.transacao, '0'::xid8), e.sequence_number)
                   > (p.transacao, p.sequencia)),
            greatest(o.last_sequence,
                     (SELECT coalesce(max(e.sequence_number), 0) FROM core.event_log e
                      WHERE e.tipo = o.tipo_evento)));
        DROP FUNCTION d2.consumer_posicao(varchar);
        DROP TABLE d2.consumer_offset_transacao;
        DROP INDEX core.event_log_tipo_transacao_idx;
        ALTER TABLE core.event_log DROP COLUMN transacao;

        DO $$
        DECLARE
            serial text;
        BEGIN
            serial := pg_get_serial_sequence('core.event_log', 'sequence_number');
            IF serial IS NOT NULL AND serial <> 'core.event_log_numeracao_seq' THEN
                EXECUTE format('REVOKE USAGE ON SEQUENCE %s FROM d2_worker', serial);
            END IF;
        END
        $$;
        ALTER TABLE core.event_log ALTER COLUMN sequence_number DROP DEFAULT;
        ALTER TABLE core.event_log ALTER COLUMN sequence_number DROP NOT NULL;
        ALTER SEQUENCE core.event_log_numeracao_seq OWNED BY NONE;
        REVOKE USAGE ON SEQUENCE core.event_log_numeracao_seq FROM d2_worker;
        SELECT setval('core.event_log_numeracao_seq',
                      greatest(coalesce(max(sequence_number), 0), 1),
                      coalesce(max(sequence_number), 0) > 0)
        FROM core.event_log;

        CREATE SEQUENCE IF NOT EXISTS core.event_log_ordem_insercao_seq AS bigint;
        ALTER TABLE core.event_log ADD COLUMN IF NOT EXISTS ordem_insercao BIGINT;
        ALTER TABLE core.event_log ALTER COLUMN ordem_insercao
            SET DEFAULT nextval('core.event_log_ordem_insercao_seq');
        ALTER SEQUENCE core.event_log_ordem_insercao_seq
            OWNED BY core.event_log.ordem_insercao;
        GRANT USAGE ON SEQUENCE core.event_log_ordem_insercao_seq TO d2_worker;
        CREATE INDEX IF NOT EXISTS event_log_pendentes_idx
            ON core.event_log (ordem_insercao) WHERE sequence_number IS NULL;
        """,
    )
    for name in (
        "20261202130600_event_log_numerar_v2/functions/event_log_numerar_v2.sql",
        FROZEN + "functions/event_log_proteger_sequencia_v2.sql",
        "20261202130100_core_event_log/triggers/event_log_proteger_sequencia.sql",
        FROZEN + "triggers/event_log_numerar_v2.sql",
        FROZEN + "functions/event_log_inserir_numerados.sql",
    ):
        migrations.apply_frozen(op, name)
    migrations.execute_sql(
        op,
        """
        GRANT EXECUTE ON FUNCTION
            core.event_log_inserir_numerados(varchar, varchar, varchar, jsonb)
            TO d2_worker;
        """,
    )
