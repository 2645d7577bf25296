"""Events numbered as they are inserted, for a publisher that commits right after.

- core.event_log_inserir_numerados: inserts a batch under the numbering lock with its
  numbers already given, so each row is written once (numbering at commit inserts it and
  then updates it: a second heap tuple and a second entry in every index). The D-2
  worker publishes this way, last in its transaction.
- core.event_log_proteger_sequencia version 2 gives those numbers (lock first, then
  nextval) when the transaction raised d2.numerar_na_insercao; otherwise, as before, a
  new row starts unnumbered. Still no producer chooses a number.
- The trigger event_log_numerar fires only for rows inserted unnumbered.

Measured with `d2 bench drain`: publishing 500 outputs went from ~15 ms (insert plus
the commit-time update) to ~8 ms.
"""

from __future__ import annotations

from alembic import op

from d2 import migrations

revision = "20261203010000_event_log_numerar_na_insercao"
down_revision = "20261202140000_d2_mirror_faixas"
branch_labels = None
depends_on = None


def upgrade() -> None:
    for name in (
        "20261203010000_event_log_numerar_na_insercao/functions/event_log_proteger_sequencia_v2.sql",
        "20261203010000_event_log_numerar_na_insercao/triggers/event_log_numerar_v2.sql",
        "20261203010000_event_log_numerar_na_insercao/functions/event_log_inserir_numerados.sql",
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


def downgrade() -> None:
    migrations.execute_sql(
        op,
        """
        DROP FUNCTION IF EXISTS core.event_log_inserir_numerados(varchar, varchar, varchar, jsonb);
        """,
    )
    migrations.apply_frozen(op, "20261202130100_core_event_log/triggers/event_log_numerar.sql")
    migrations.apply_frozen(
        op, "20261202130100_core_event_log/functions/event_log_proteger_sequencia.sql"
    )
