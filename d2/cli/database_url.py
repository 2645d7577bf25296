"""Where D-2's database is: decided once per command, at the command line, then passed
down to everything that connects (DESIGN floor plan: only the CLI knows about the
embedded cluster)."""

from __future__ import annotations

import functools

from d2 import config, embedded


def url_do_banco(settings: config.Settings | None = None) -> str:
    """DATABASE_URL, or else the embedded cluster's URL (starting and migrating it when
    it is not running)."""
    settings = settings or config.load()
    if settings.database_url:
        return settings.database_url
    return embedded.ensure_started(settings.home)


def url_para_migrar(settings: config.Settings | None = None) -> str:
    """For the plain Alembic CLI (alembic/env.py), which migrates by itself: DATABASE_URL,
    or the embedded cluster started (created if missing) but left at whatever revision it
    is, so `alembic current` and `alembic downgrade` see the database as it is."""
    settings = settings or config.load()
    if settings.database_url:
        return settings.database_url
    return embedded.start(settings.home).url()


@functools.cache
def url() -> str:
    """The database of this command, decided on its first use (a command that never
    connects never starts the cluster); d2.cli.main forgets it before each command."""
    return url_do_banco()
