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


@functools.cache
def url() -> str:
    """The database of this command, decided on its first use (a command that never
    connects never starts the cluster); d2.cli.main forgets it before each command."""
    return url_do_banco()
