-- The clean intervals' builder's lock (migration 20261204130000): d2.mirror_faixas_construir
-- and the trigger d2.mirror_faixas_invalidar hold an EXCLUSIVE lock on this empty table
-- for their transaction, so a build and a write of the mirror never interleave (a build
-- never reads geometry older than the pending marks it clears), and two builds never
-- build the same bands. Only the owner may take it (LOCK TABLE in this mode needs UPDATE,
-- granted to nobody): the functions that take it run as the owner. A table lock and not
-- an advisory lock, which anyone who can connect could hold. No columns, no rows.
CREATE TABLE d2.mirror_faixas_construtor ();

COMMENT ON TABLE d2.mirror_faixas_construtor IS
    'D-2: the clean intervals'' builder holds an EXCLUSIVE lock on this table (no rows)';
