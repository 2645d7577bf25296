"""Alembic, driven from Python: upgrade, downgrade, current revision, Prisma stamping.

The version table is `public.d2_alembic_version` with a wide column, because the
revision ids keep the spec's migration names (§2.7), longer than alembic's default 32.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from d2 import db, errors

VERSION_TABLE = "d2_alembic_version"

# The old (Prisma) implementation's migrations that are ours, in order (spec §2.7).
PRISMA_MIGRATIONS = (
    "20260809112210_d2_uc_polygons_resolucoes_geo",
    "20260811195030_add_fonte_metadados_populacao_uc_polygons",
    "20260813112406_add_consumer_offset_d1b_d2_d4",
    "20260814202321_create_d2_revisoes_geo_pendentes",
    "20260913120000_uc_polygons_nome_busca",
    "20260918140000_d2_eventos_processados_limpeza",
)


def script_location() -> Path:
    here = Path(__file__).resolve().parent
    for candidate in (here / "_alembic", here.parent / "alembic"):
        if (candidate / "env.py").exists():
            return candidate
    raise errors.D2Error(f"alembic scripts not found next to {here}")


def sqlalchemy_url(url: str) -> str:
    """A libpq URL as SQLAlchemy wants it (psycopg 3 driver)."""
    for prefix in ("postgresql+psycopg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    # A keyword/value conninfo string: hand it to psycopg untouched.
    return "postgresql+psycopg://"


def _config(url: str) -> Any:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(script_location()))
    cfg.attributes["d2_url"] = url
    return cfg


def upgrade(url: str, revision: str = "head") -> None:
    """Migrate the database at url up to revision, stamping a Prisma-migrated one first.

    Refuses (errors.D2Error) where a schema D-2's definer functions resolve names through
    is writable by other roles. Reaching head re-applies sql/grants.sql (alembic/env.py).
    """
    from alembic import command

    with db.connect(url) as conn:
        refuse_writable_schemas(conn)
    stamp_from_prisma(url)
    cfg = _config(url)
    command.upgrade(cfg, revision)


def downgrade(url: str, revision: str) -> None:
    from alembic import command

    command.downgrade(_config(url), revision)


def current(url: str) -> str | None:
    with db.connect(url) as conn:
        exists = conn.execute("SELECT to_regclass(%(t)s) AS t", {"t": VERSION_TABLE}).fetchone()
        if not exists or exists["t"] is None:
            return None
        row = conn.execute(db.q("alembic_current")).fetchone()
        return row["version_num"] if row else None


def head() -> str:
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(_config(""))
    found = script.get_current_head()
    if found is None:
        raise errors.D2Error("no alembic head")
    return found


def stamp_from_prisma(url: str) -> str | None:
    """Stamp a database the old Prisma implementation migrated, so alembic continues it.

    Returns the revision stamped, or None when there was nothing to do.
    """
    from alembic import command

    if current(url) is not None:
        return None
    with db.connect(url) as conn:
        has_prisma = conn.execute(
            "SELECT to_regclass('public._prisma_migrations') IS NOT NULL AS p"
        ).fetchone()
        if not has_prisma or not has_prisma["p"]:
            return None
        applied = {
            row["migration_name"]
            for row in conn.execute(db.q("prisma_applied_migrations")).fetchall()
        }
    last = None
    for name in PRISMA_MIGRATIONS:
        if name not in applied:
            break
        last = name
    if last is not None:
        command.stamp(_config(url), last)
    return last


def writable_schemas(conn: Any) -> list[str]:
    """'schema (role)' for each schema D-2's functions resolve names through in which a
    role other than its owner, the migrating role and superusers may CREATE."""
    rows = conn.execute(db.q("schemas_writable_by_others")).fetchall()
    return [f"{row['schema']} ({row['papel']})" for row in rows]


def refuse_writable_schemas(conn: Any) -> None:
    """Raise errors.D2Error, one line, when writable_schemas finds any (a schema
    others may write on a definer function's search_path could hijack it)."""
    found = writable_schemas(conn)
    if found:
        raise errors.D2Error(
            "refusing to migrate: other roles may CREATE in "
            + ", ".join(found)
            + ", where D-2's definer functions resolve PostGIS; run "
            "REVOKE CREATE ON SCHEMA <schema> FROM <role> (docs/reliability.md, Threats)"
        )


def apply_grants(connection: Any) -> None:
    """Re-apply sql/grants.sql on an alembic (SQLAlchemy) connection, in its transaction."""
    connection.connection.dbapi_connection.execute(db.sql_file("grants.sql"))


def execute_sql(operations: Any, sql: str) -> None:
    """Run a whole SQL text (several statements, % signs and all) inside a migration."""
    raw = operations.get_bind().connection.dbapi_connection
    raw.execute(sql)


def apply_frozen(operations: Any, *partes: str) -> None:
    """Apply a SQL file frozen with its migration, under alembic/versions/sql/<revision>/:
    the text that migration installs, forever. The live definition of each object is the
    file of the same path under sql/; `d2 db freeze REVISION PATH...`
    copies it here for a new migration, and SHA256SUMS beside these files seals them
    (tests/unit/test_sealed_migrations.py). The path is given whole
    ("<revision>/functions/x.sql") or as the revision and the file's path."""
    path = frozen_dir() / Path(*partes)
    execute_sql(operations, path.read_text(encoding="utf-8"))


def frozen_dir() -> Path:
    return script_location() / "versions" / "sql"


MANIFEST = "SHA256SUMS"


def hashes() -> dict[str, str]:
    """sha256 of every frozen file, by its path under alembic/versions/sql."""
    base = frozen_dir()
    return {
        p.relative_to(base).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(base.rglob("*.sql"))
    }


def sealed() -> dict[str, str]:
    """The committed manifest: path -> sha256."""
    arquivo = frozen_dir() / MANIFEST
    if not arquivo.exists():
        return {}
    pares = (linha.split(None, 1) for linha in arquivo.read_text().splitlines() if linha)
    return {caminho.strip(): soma for soma, caminho in pares}


def freeze(revision: str, relativos: list[str]) -> list[str]:
    """Copy live sql/ files into a migration's frozen folder and seal them. Refuses to
    overwrite a file already frozen: what a migration installs never changes."""
    feitos = []
    for relativo in relativos:
        destino = frozen_dir() / revision / relativo
        if destino.exists():
            raise errors.D2Error(f"{revision}/{relativo} is already frozen")
        destino.parent.mkdir(parents=True, exist_ok=True)
        destino.write_bytes((db.sql_dir() / relativo).read_bytes())
        feitos.append(f"{revision}/{relativo}")
    seal()
    return feitos


def seal() -> list[str]:
    """Add the hashes of frozen files not yet in the manifest; never change an entry.
    Returns the paths added."""
    atuais, antigos = hashes(), sealed()
    mudados = sorted(c for c in antigos if c in atuais and atuais[c] != antigos[c])
    if mudados:
        raise errors.D2Error(f"frozen migration SQL changed (restore it): {', '.join(mudados)}")
    novos = sorted(set(atuais) - set(antigos))
    todos = {**antigos, **{c: atuais[c] for c in novos}}
    linhas = [f"{todos[c]}  {c}" for c in sorted(todos)]
    (frozen_dir() / MANIFEST).write_text("\n".join(linhas) + "\n")
    return novos
