"""Connections, error mapping and the named queries of sql/queries/ (how long a session
waits for a lock, and who holds it, is d2.locks's).

This is the only module that imports psycopg's errors: everything above sees d2.errors.
"""

from __future__ import annotations

import contextlib
import functools
import re
import threading
import time
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
LEADERSHIP_LOST = "40D2L"
_TRANSIENT = ("08", "40001", "40P01", LEADERSHIP_LOST, "57P01", "57P02", "57P03", "53300")
# The session's server went away or cannot take it now: connection exceptions, admin
# shutdown (pg_terminate_backend, a fast shutdown), crash shutdown, cannot connect now.
_SEM_SERVIDOR = ("08", "57P01", "57P02", "57P03")


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


def conexao_perdida(exc: BaseException) -> bool:
    """True when exc (or what it wraps) says the connection is gone or no server could
    take it: the server was stopped, crashed or killed, the session was terminated, or the
    URL reached no server that takes writes (a failover under way). False for failures
    of a working session (a deadlock, a serialization failure, a publish refused)."""
    for atual in _causas(exc):
        if isinstance(atual, errors.DatabaseUnavailable | psycopg.InterfaceError):
            return True
        sqlstate = getattr(atual, "sqlstate", None)
        if sqlstate is None and isinstance(atual, psycopg.OperationalError):
            return True  # libpq's own: the server closed the connection unexpectedly
        if sqlstate and sqlstate.startswith(_SEM_SERVIDOR):
            return True
    return False


def leadership_lost(exc: BaseException) -> bool:
    """True when exc (or what it wraps) is the leadership fence refusing a batch."""
    return any(getattr(atual, "sqlstate", None) == LEADERSHIP_LOST for atual in _causas(exc))


def _causas(exc: BaseException) -> Iterator[BaseException]:
    """exc, then what it wraps (mapped_errors raises d2.errors from psycopg's)."""
    atual: BaseException | None = exc
    while atual is not None:
        yield atual
        atual = atual.__cause__


def map_error(exc: psycopg.Error) -> errors.D2Error:
    """Translate a psycopg error into the d2.errors class a caller can act on."""
    if isinstance(exc, psycopg.errors.UniqueViolation):
        constraint = exc.diag.constraint_name
        return errors.UniqueViolation(f"unique violation on {constraint}", constraint=constraint)
    if isinstance(exc, psycopg.errors.LockNotAvailable):
        return errors.LockTimeout(f"database: {primeira_linha(exc)}")
    if isinstance(exc, psycopg.errors.QueryCanceled):
        return errors.StatementTimeout(f"database: {primeira_linha(exc)}")
    if isinstance(exc, psycopg.errors.ReadOnlySqlTransaction):
        return errors.ReadOnlySession(
            f"database: {primeira_linha(exc)} (this connection is read-only; on a hot standby, "
            "DATABASE_URL must reach the primary: list every server in it with "
            "target_session_attrs=read-write)"
        )
    if isinstance(exc, psycopg.errors.InsufficientPrivilege):
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


# How often a worker that lost its database tries the URL again while it waits: with a
# multi-host URL, the primary a failover manager just promoted is found within this, however
# long the manager took to decide.
SONDA_S = 0.5


def esperar_servidor(url: str, parar: threading.Event, espera_s: float) -> bool:
    """Wait up to espera_s (or until parar) for the URL to reach a server that takes a
    session, trying every SONDA_S after the first; True as soon as one does. A backoff
    that grew while no server answered then ends when one answers again, not up to its
    cap later."""
    fim = time.monotonic() + espera_s
    parar.wait(min(SONDA_S, espera_s))
    while not parar.is_set() and time.monotonic() < fim:
        try:
            with connect(url, autocommit=True, application_name="d2-probe", connect_timeout=2):
                return True
        except errors.DatabaseUnavailable:
            parar.wait(min(SONDA_S, max(0.0, fim - time.monotonic())))
    return False


def fora_de_transacao(conn: Connection) -> bool:
    """True for an autocommit connection with no transaction open (a lock for the session
    and a transaction of one's own can then be taken)."""
    return bool(conn.autocommit) and (
        conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    )


def em_standby(conn: Connection) -> bool:
    """True when the server is a hot standby (it reports in_hot_standby, PostgreSQL 14+):
    it answers reads, and takes no write until it is promoted."""
    return conn.info.parameter_status("in_hot_standby") == "on"


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


def descrever_sessao(sessao: dict[str, Any]) -> str:
    """One database session for an operator: pid, role, database, application and, where
    this role may see it, how long its transaction has been open. The texts are another
    session's choice (application_name especially): quoted with repr, so control
    characters and bidi overrides print escaped, not interpreted."""
    partes = [
        f"role {_texto(sessao.get('usuario'))}",
        f"database {_texto(sessao.get('banco'))}",
        f"application {_texto(sessao.get('aplicacao'))}",
    ]
    if sessao.get("transacao_s") is not None:
        partes.append(f"transaction open {float(sessao['transacao_s']):.0f} s")
    return f"pid {sessao.get('pid')} ({', '.join(partes)})"


def _texto(valor: object) -> str:
    return "?" if valor is None else repr(str(valor))
