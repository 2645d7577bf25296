-- The transaction half of a d2.consumer_offset cursor: readers go in (transacao,
-- sequence_number) order (core.event_log), and d2.consumer_posicao(tipo) reads the
-- position from both tables. A row counts only while its last_sequence equals the
-- cursor's: a cursor moved by anything else (an operator, a worker of an earlier
-- version) is never trusted past the position recorded here. Hence no foreign key: a
-- cursor reset or truncated by hand simply ignores its row, and TRUNCATE of
-- d2.consumer_offset keeps working.
CREATE TABLE d2.consumer_offset_transacao (
    tipo_evento     VARCHAR(255) PRIMARY KEY,
    last_sequence   BIGINT       NOT NULL,
    last_transacao  xid8         NOT NULL
);

COMMENT ON TABLE d2.consumer_offset_transacao IS
    'Transaction half of a d2.consumer_offset cursor, valid while last_sequence matches.';
