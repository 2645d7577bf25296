"""Connections, error mapping and the named queries of sql/queries/.

This is the only module that imports psycopg's errors: everything above sees d2.errors.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, LiteralString, cast
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import psycopg
import psycopg.conninfo
import psycopg.errors
from psycopg import sql
from psycopg.rows import dict_row

from d2 import errors

_NAME = re.compile(r"^--\s*name:\s*(\w+)\s*$", re.MULTILINE)

# SQLSTATE classes worth a retry: connection exceptions, serialization failure,
# deadlock, admin shutdown / crash shutdown / cannot connect now.
_CONFIG_FAILURES = (
    "password authentication failed",
    "Peer authentication failed",
    "does not exist",
    "no password supplied",
    "no pg_hba.conf entry",
    "permission denied for database",
    "Servname not supported",
    "invalid port",
    "invalid integer value",
)
# The leadership fence's own code (sql/functions/consumer_offset_lideranca.sql): in
# class 40, so the batch rolls back and the worker reconnects as a standby; never
# retried in place, and no failure of the batch's events (they are the new leader's).
LIDERANCA_PERDIDA = "40D2L"
_TRANSIENT = ("08", "40001", "40P01", LIDERANCA_PERDIDA, "57P01", "57P02", "57P03", "53300")


def sql_dir() -> Path:
    """Where the SQL files are: d2/_sql in a wheel, ../sql in a checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "_sql", here.parent / "sql"):
        if candidate.is_dir():
            return candidate
    raise errors.D2Error(f"SQL files not found next to {here}")


def sql_file(relative: str) -> str:
    """The text of one SQL object file, e.g. 'functions/resolver_territorio.sql'."""
    return (sql_dir() / relative).read_text(encoding="utf-8")


@functools.cache
def queries() -> dict[str, LiteralString]:
    """All named queries: `-- name: foo` headers split sql/queries/*.sql into entries."""
    found: dict[str, LiteralString] = {}
    for path in sorted((sql_dir() / "queries").glob("*.sql")):
        text = path.read_text(encoding="utf-8")
        parts = _NAME.split(text)
        for name, body in zip(parts[1::2], parts[2::2], strict=True):
            if name in found:
                raise errors.D2Error(f"query {name!r} defined twice (in {path.name})")
            found[name] = cast(LiteralString, body.strip().rstrip(";"))
    return found


def q(name: str) -> LiteralString:
    """One named query."""
    try:
        return queries()[name]
    except KeyError:
        raise errors.D2Error(f"no query named {name!r} in sql/queries") from None


def q_com(name: str, **identificadores: str) -> sql.Composed:
    """A named query whose {placeholders} are identifiers (a table's name, never data),
    composed and quoted by psycopg."""
    return sql.SQL(q(name)).format(**{k: sql.Identifier(v) for k, v in identificadores.items()})


def is_transient(exc: BaseException) -> bool:
    """True for failures worth a retry with backoff."""
    if isinstance(exc, errors.TransientDatabaseError | errors.DatabaseUnavailable):
        return True
    if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError):
        return True
    sqlstate = getattr(exc, "sqlstate", None) or ""
    return any(sqlstate.startswith(prefix) for prefix in _TRANSIENT)


def lideranca_perdida(exc: BaseException) -> bool:
    """True when exc (or what it wraps) is the leadership fence refusing a batch."""
    atual: BaseException | None = exc
    while atual is not None:
        if getattr(atual, "sqlstate", None) == LIDERANCA_PERDIDA:
            return True
        atual = atual.__cause__
    return False


def map_error(exc: psycopg.Error) -> errors.D2Error:
    """Translate a psycopg error into the d2.errors class a caller can act on."""
    if isinstance(exc, psycopg.errors.UniqueViolation):
        constraint = exc.diag.constraint_name
        return errors.UniqueViolation(f"unique violation on {constraint}", constraint=constraint)
    if isinstance(exc, psycopg.errors.LockNotAvailable):
        return errors.LockTimeout(f"database: {primeira_linha(exc)}")
    if isinstance(exc, psycopg.errors.QueryCanceled):
        return errors.StatementTimeout(f"database: {primeira_linha(exc)}")
    if isinstance(
        exc, psycopg.errors.InsufficientPrivilege | psycopg.errors.ReadOnlySqlTransaction
    ):
        return errors.PermissionDenied(f"database: {primeira_linha(exc)}")
    if is_transient(exc):
        return errors.TransientDatabaseError(f"database: {primeira_linha(exc)}")
    if isinstance(exc, psycopg.errors.UndefinedFile | psycopg.errors.FeatureNotSupported) and (
        "postgis" in str(exc).lower()
    ):
        return errors.PostgisMissing()
    # D-2's own functions refuse a caller's bad argument with these (RAISE ... USING
    # ERRCODE): the message is written for the operator who typed it.
    if isinstance(exc, psycopg.errors.InvalidParameterValue | psycopg.errors.NoDataFound):
        return errors.InvalidInput(exc.diag.message_primary or primeira_linha(exc))
    return errors.D2Error(f"database: {primeira_linha(exc)}")


def primeira_linha(exc: BaseException) -> str:
    """The first line of an error's text (psycopg's carry context lines after it)."""
    texto = str(exc).strip()
    return texto.splitlines()[0] if texto else type(exc).__name__


@contextlib.contextmanager
def mapped_errors() -> Iterator[None]:
    """Re-raise psycopg errors as d2.errors classes (keeps the original as __cause__)."""
    try:
        yield
    except psycopg.Error as exc:
        raise map_error(exc) from exc


def connect(
    url: str,
    *,
    autocommit: bool = False,
    application_name: str = "d2",
    connect_timeout: int = 10,
    **kw: Any,
) -> psycopg.Connection[dict[str, Any]]:
    """A psycopg connection with dict rows; a clear DatabaseUnavailable when unreachable.
    The URL is decided by the caller (the CLI: d2/cli/database_url.py)."""
    target = url
    try:
        conn = psycopg.connect(
            target,
            autocommit=autocommit,
            row_factory=dict_row,
            application_name=application_name,
            connect_timeout=connect_timeout,
            **kw,
        )
    except psycopg.ProgrammingError as exc:
        # libpq quotes the piece it could not parse, which may be the password: hide it.
        motivo = re.sub(r'"[^"]*"', '"…"', str(exc).strip().splitlines()[-1])
        raise errors.ConfigError(
            f"DATABASE_URL is not a valid connection string: {motivo}"
        ) from exc
    except psycopg.OperationalError as exc:
        reason = str(exc).strip().splitlines()[-1] if str(exc).strip() else "unreachable"
        # Retrying cannot fix these: wrong credentials, no such database or role.
        if any(marker in str(exc) for marker in _CONFIG_FAILURES):
            raise errors.ConfigError(f"cannot connect to the database: {reason}") from exc
        raise errors.DatabaseUnavailable(f"cannot connect to the database: {reason}") from exc
    with mapped_errors():
        conn.execute(q("session_setup"))
    if not autocommit:
        conn.commit()
    return conn


Connection = psycopg.Connection[dict[str, Any]]


@contextlib.contextmanager
def limites(
    conn: Connection, *, lock_s: float | None = None, statement_s: float | None = None
) -> Iterator[None]:
    """Within the block, no lock wait of this session lasts more than lock_s
    (errors.LockTimeout) and no statement more than statement_s (errors.StatementTimeout);
    None leaves that one as it is. The session's own settings come back after."""
    if lock_s is None and statement_s is None:
        yield
        return
    with mapped_errors():
        antes = conn.execute(q("session_timeouts_get")).fetchone()
        assert antes is not None
        conn.execute(
            q("session_timeouts_set"),
            {
                "lock_timeout": _ms(lock_s) if lock_s is not None else antes["lock_timeout"],
                "statement_timeout": (
                    _ms(statement_s) if statement_s is not None else antes["statement_timeout"]
                ),
            },
        )
    try:
        yield
    finally:
        if (
            not conn.closed
            and not conn.broken
            and (conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE)
        ):
            conn.execute(q("session_timeouts_set"), dict(antes))


def _ms(segundos: float) -> str:
    return f"{max(1, round(segundos * 1000))}ms"


def fora_de_transacao(conn: Connection) -> bool:
    """True for an autocommit connection with no transaction open (a lock for the session
    and a transaction of one's own can then be taken)."""
    return bool(conn.autocommit) and (
        conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    )


def exigir_autocommit(conn: Connection) -> None:
    # Each chunk must commit on its own: inside an outer transaction every row lock
    # would be held, and every event withheld, until the whole run ends.
    if not conn.autocommit:
        raise errors.D2Error("this task needs an autocommit connection (one commit per chunk)")


def mascarar_senha(url: str) -> str:
    """The URL or conninfo with its password (user:pw@, ?password=, password=) as ***:
    terminals, shell histories and CI logs keep what is printed."""
    if url.startswith(("postgresql://", "postgres://")):
        partes = urlsplit(url)
        rede = partes.netloc
        if "@" in rede:
            credenciais, servidor = rede.rsplit("@", 1)
            if ":" in credenciais:
                rede = credenciais.split(":", 1)[0] + ":***@" + servidor
        consulta = [
            (k, "***" if k == "password" else v)
            for k, v in parse_qsl(partes.query, keep_blank_values=True)
        ]
        return urlunsplit(partes._replace(netloc=rede, query=urlencode(consulta, safe="/*")))
    try:
        campos = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "(unparsable DATABASE_URL, not shown)"
    if "password" in campos:
        campos["password"] = "***"
    return psycopg.conninfo.make_conninfo(**campos)  # type: ignore[arg-type]
