"""Alembic environment for D-2. `d2 migrate` hands it the URL it decided; the plain
Alembic CLI run from a checkout (`alembic upgrade head`, `alembic downgrade base`,
`alembic current`) uses DATABASE_URL, or the embedded cluster under D2_HOME (default
./.d2), started if needed and not migrated behind alembic's back."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context

from d2 import migrations
from d2.cli import database_url

config = context.config
url: str = config.attributes.get("d2_url") or database_url.url_para_migrar()

engine = sa.create_engine(
    migrations.sqlalchemy_url(url),
    poolclass=sa.pool.NullPool,
    connect_args={} if "://" in url else {"conninfo": url},
)

with engine.connect() as connection:
    # A wide version column: our revision ids are the spec's migration names.
    connection.exec_driver_sql(
        f"CREATE TABLE IF NOT EXISTS public.{migrations.VERSION_TABLE} ("
        "version_num varchar(128) NOT NULL PRIMARY KEY)"
    )
    connection.commit()
    context.configure(
        connection=connection,
        version_table=migrations.VERSION_TABLE,
        version_table_schema="public",
        transaction_per_migration=False,
    )
    with context.begin_transaction():
        context.run_migrations()
        # Every privilege, re-applied whenever the database reaches head, in the same
        # transaction: functions added or replaced by any migration are covered.
        heads = set(context.get_context().get_current_heads())
        if heads and heads == set(context.script.get_heads()):
            migrations.apply_grants(connection)
    connection.commit()
engine.dispose()
