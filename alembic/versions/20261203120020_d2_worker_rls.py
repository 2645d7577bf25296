"""d2_worker sees and writes only D-2's rows of core.event_log and core.dead_letter_queue.

Issue 16 item 7: with plain table grants, d2_worker read every domain's payloads in
core.event_log and read and rewrote every consumer's dead letters. Row-level security
restricts it, and only it:

* a PERMISSIVE policy `USING (true) WITH CHECK (true)` for PUBLIC keeps every other role
  seeing and writing exactly what it did (the table's owner and superusers skip RLS
  anyway);
* RESTRICTIVE policies for d2_worker: core.event_log rows of D-2's two event types only
  (it reads demanda.normalizada and its own demanda.georreferenciada, and publishes only
  the latter); core.dead_letter_queue rows of consumidor 'D-2' only.

Row-level security on a table also refuses COPY FROM to roles it applies to, and
pg_dump run by a role that is neither owner nor superuser needs --enable-row-security;
both are written in the README's section for the monolith's operators. Downgrade drops
the policies and turns RLS off where this migration turned it on.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261203120020_d2_worker_rls"
down_revision = "20261203120010_worker_lideranca"
branch_labels = None
depends_on = None

TABLES = ("event_log", "dead_letter_queue")


def upgrade() -> None:
    migrations.execute_sql(
        op,
        """
        -- Remembers which tables had RLS off before, so downgrade turns off only those.
        CREATE TABLE d2.rls_ativada_pela_d2 (tabela regclass PRIMARY KEY);
        INSERT INTO d2.rls_ativada_pela_d2 (tabela)
        SELECT c.oid::regclass FROM pg_class c
        WHERE c.oid IN ('core.event_log'::regclass, 'core.dead_letter_queue'::regclass)
          AND NOT c.relrowsecurity;

        CREATE POLICY d2_todos ON core.event_log AS PERMISSIVE FOR ALL TO PUBLIC
            USING (true) WITH CHECK (true);
        CREATE POLICY d2_worker_leitura ON core.event_log AS RESTRICTIVE FOR SELECT
            TO d2_worker
            USING (tipo IN ('demanda.normalizada', 'demanda.georreferenciada'));
        CREATE POLICY d2_worker_publicacao ON core.event_log AS RESTRICTIVE FOR INSERT
            TO d2_worker
            WITH CHECK (tipo = 'demanda.georreferenciada');

        CREATE POLICY d2_todos ON core.dead_letter_queue AS PERMISSIVE FOR ALL TO PUBLIC
            USING (true) WITH CHECK (true);
        CREATE POLICY d2_worker_consumidor ON core.dead_letter_queue AS RESTRICTIVE
            FOR ALL TO d2_worker
            USING (consumidor = 'D-2') WITH CHECK (consumidor = 'D-2');

        ALTER TABLE core.event_log ENABLE ROW LEVEL SECURITY;
        ALTER TABLE core.dead_letter_queue ENABLE ROW LEVEL SECURITY;
        """,
    )


def downgrade() -> None:
    migrations.execute_sql(
        op,
        """
        DROP POLICY IF EXISTS d2_worker_leitura ON core.event_log;
        DROP POLICY IF EXISTS d2_worker_publicacao ON core.event_log;
        DROP POLICY IF EXISTS d2_todos ON core.event_log;
        DROP POLICY IF EXISTS d2_worker_consumidor ON core.dead_letter_queue;
        DROP POLICY IF EXISTS d2_todos ON core.dead_letter_queue;
        DO $$
        DECLARE
            tabela regclass;
        BEGIN
            FOR tabela IN SELECT r.tabela FROM d2.rls_ativada_pela_d2 r LOOP
                EXECUTE format('ALTER TABLE %s DISABLE ROW LEVEL SECURITY', tabela);
            END LOOP;
        END
        $$;
        DROP TABLE d2.rls_ativada_pela_d2;
        """,
    )
