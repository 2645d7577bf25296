"""Errors of D-2. The docstring of each class is its default one-line message."""

from __future__ import annotations

from typing import Any


class D2Error(Exception):
    """D-2 failed."""

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or (self.__doc__ or "").strip())


class ConfigError(D2Error):
    """The configuration is invalid."""


class DatabaseUnavailable(D2Error):
    """The database cannot be reached."""


class PostgisMissing(D2Error):
    """PostGIS is not installed (Debian: apt-get install postgresql-15-postgis-3)."""


class EmbeddedClusterError(D2Error):
    """The embedded PostgreSQL cluster could not be started."""


class TransientDatabaseError(D2Error):
    """A transient database failure (connection lost, serialization failure, deadlock)."""


class LockTimeout(D2Error):
    """A lock D-2 needed stayed held by another session past its wait (lock_timeout)."""

    def __init__(self, message: str | None = None, sessoes: list[dict[str, Any]] | None = None):
        super().__init__(message)
        self.sessoes = sessoes or []
        """The sessions found holding it, when the caller looked (pid, usuario, banco, ...)."""


class StatementTimeout(D2Error):
    """A statement ran past its time bound (statement_timeout) and was cancelled."""


class PermissionDenied(D2Error):
    """This database role lacks a privilege the operation needs."""


class ReadOnlySession(PermissionDenied):
    """This session may not write: the server is a hot standby (or the transaction is
    read-only)."""


class UniqueViolation(D2Error):
    """A unique constraint was violated."""

    def __init__(self, message: str | None = None, constraint: str | None = None) -> None:
        super().__init__(message)
        self.constraint = constraint


class InvalidInput(D2Error):
    """The input is invalid."""


class InvalidEvent(D2Error):
    """The event payload does not satisfy its schema."""


class ConsumerPaused(D2Error):
    """A consumer stopped before an event on purpose; its cursor holds until an operator
    resumes it."""


class PublishError(D2Error):
    """Publishing to the event log failed."""


class ImportFailed(D2Error):
    """The import failed."""


def texto_seguro(exc: BaseException) -> str:
    """An unexpected failure as an error text for the dead letters and the logs: d2's own
    errors in full (their texts name fields and rules, never a payload's values); any
    other exception by its type and where it was raised, since Python's and libraries'
    messages quote the value they choked on, which may be a citizen's address."""
    if isinstance(exc, D2Error):
        return f"{type(exc).__name__}: {exc}"
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    onde = (
        f" (raised at {tb.tb_frame.f_code.co_filename.rsplit('/', 1)[-1]}:{tb.tb_lineno})"
        if tb is not None
        else ""
    )
    return f"{type(exc).__name__}{onde}"
