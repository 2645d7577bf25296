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
    """The database of this command, decided on first use (commands that never connect,
    such as `d2 db url`, never start the cluster)."""
    return url_do_banco()
