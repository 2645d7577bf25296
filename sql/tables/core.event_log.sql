-- The event log (DESIGN, "Event log"): every colony publishes here with a plain INSERT,
-- and D-2 reads demanda.normalizada, lugar.cadastrado and uc.poligono_* and publishes
-- demanda.georreferenciada and its own events. It belongs to the monolith's core:
-- migration 20261202130100 creates it only where the monolith has not, which is what
-- this file describes (standalone installs, tests). On the monolith's table D-2 adds
-- only transacao and the two indexes on (tipo, ...), and keeps the table's own
-- sequence_number default.
--
-- Gap safety (docs/reliability.md, "The event log is gap-safe"): numbers taken at INSERT are not in
-- commit order, so readers go in (transacao, sequence_number) order and only below the
-- oldest running transaction; nothing can then appear behind a cursor.
-- The column ordem_insercao of the earlier commit-time numbering was dropped by
-- migration 20261203100000; the table keeps no trace of it but a dropped attribute.

-- sequence_number's default on a log D-2 created, owned by that column. Not a serial:
-- the name predates the column default (the commit-time numbering handed numbers out of
-- it under a lock), and a serial's sequence would be event_log_sequence_number_seq.
CREATE SEQUENCE core.event_log_numeracao_seq AS BIGINT;

CREATE TABLE core.event_log (
    -- Assigned at INSERT, NOT NULL, unique, increasing: INSERT ... RETURNING
    -- sequence_number gives it at once.
    sequence_number  BIGINT        NOT NULL DEFAULT nextval('core.event_log_numeracao_seq'),
    event_id         UUID          NOT NULL,
    tipo             VARCHAR(255)  NOT NULL,
    versao_schema    VARCHAR(32)   NOT NULL DEFAULT '1.0.0',
    origem           VARCHAR(100)  NOT NULL,
    correlacao_id    UUID,
    payload          JSONB         NOT NULL,
    publicado_em     TIMESTAMPTZ   NOT NULL DEFAULT clock_timestamp(),
    -- The inserting transaction, the readers' fence. Added without a default first, so
    -- that the monolith's table was not rewritten: rows from before are NULL and read
    -- as transaction 0 (they were numbered in commit order).
    transacao        xid8                   DEFAULT pg_current_xact_id(),
    CONSTRAINT event_log_pkey PRIMARY KEY (event_id),
    CONSTRAINT event_log_sequence_number_key UNIQUE (sequence_number)
);

ALTER SEQUENCE core.event_log_numeracao_seq OWNED BY core.event_log.sequence_number;

-- The highest number of a type: the boot, the lag, d2 status.
CREATE INDEX event_log_tipo_sequence_number_idx ON core.event_log (tipo, sequence_number);
-- The readers' range scan from their cursor (d2.eventos_ler and bus.ler_desde), in the
-- order they read.
CREATE INDEX event_log_tipo_transacao_idx
    ON core.event_log (tipo, (coalesce(transacao, '0'::xid8)), sequence_number);

-- The marker the downgrade reads: it drops the table only if D-2 created it.
COMMENT ON TABLE core.event_log IS 'criada pela migration d2 20261202130100';
COMMENT ON COLUMN core.event_log.transacao IS
    'D-2: the inserting transaction (NULL: inserted before migration 20261203100000). '
    'Consumers read below the oldest running transaction, never past an open one.';
