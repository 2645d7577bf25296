"""`d2 nominatim import FILE` and `d2 nominatim status`: the Nominatim database beside
D-2's (by default `nominatim` on DATABASE_URL's server; D2_NOMINATIM_DSN for another),
built by Nominatim's own importer (osm2pgsql underneath).

A rebuild drops the database first, so what it may drop is narrow: a database D-2 built
for Nominatim (it carries D-2's mark, a comment written after the import), or any other
when the operator passes --force; never DATABASE_URL's own database, nor one holding
D-2's schema or a monolith's event log, --force or not."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg.conninfo
from psycopg import sql

from d2 import config, db, errors
from d2.geocoder.nominatim import client, local

SUFIXOS = (".osm", ".osm.pbf", ".pbf", ".osm.bz2")

# The comment on a database D-2 built for Nominatim; only such a database is dropped by
# the next import without --force.
MARCA = "d2:nominatim"
COMENTARIO = f"{MARCA} built by `d2 nominatim import`, which drops and rebuilds it"


def dsn(settings: config.Settings, database_url: str) -> str:
    return settings.nominatim_dsn or client.url_nominatim_padrao(database_url)


def _manutencao(alvo: str) -> tuple[str, str]:
    """The maintenance database's URL on alvo's server, and alvo's database name."""
    partes = psycopg.conninfo.conninfo_to_dict(alvo)
    banco = str(partes.get("dbname") or "nominatim")
    return psycopg.conninfo.make_conninfo(alvo, dbname="postgres"), banco


def _executavel_nominatim() -> str:
    junto = Path(sys.executable).parent / "nominatim"
    encontrado = str(junto) if junto.exists() else shutil.which("nominatim")
    if encontrado is None:
        raise errors.ConfigError("the nominatim command is missing: pip install nominatim-db")
    return encontrado


def verificar(
    settings: config.Settings, database_url: str, arquivo: Path, *, criar_papel_web: bool
) -> str:
    """Everything the import needs, checked before anything is dropped; returns the
    Nominatim DSN. One-line errors: no file, osm2pgsql missing, the web role missing."""
    if not arquivo.is_file():
        raise errors.InvalidInput(f"{arquivo}: no such file")
    if not arquivo.name.endswith(SUFIXOS):
        raise errors.InvalidInput(f"{arquivo}: expected {', '.join(SUFIXOS)}")
    if shutil.which("osm2pgsql") is None:
        raise errors.ConfigError(
            "osm2pgsql is missing (Debian/Ubuntu: apt-get install osm2pgsql; "
            "scripts/setup.sh installs it)"
        )
    _executavel_nominatim()
    alvo = dsn(settings, database_url)
    manutencao, _ = _manutencao(alvo)
    papel = settings.nominatim_web_user
    with db.connect(manutencao, autocommit=True) as conn, db.mapped_errors():
        row = conn.execute(db.q("nominatim_web_role"), {"papel": papel}).fetchone()
        if row is None and criar_papel_web:
            conn.execute(sql.SQL(db.q("nominatim_create_web_role")).format(sql.Identifier(papel)))
        elif row is None or not row["login"]:
            raise errors.ConfigError(
                f"Nominatim's web role {papel!r} is missing or cannot log in: "
                f'CREATE ROLE "{papel}" LOGIN CONNECTION LIMIT 0; (or pass --create-web-role, '
                "or set NOMINATIM_DATABASE_WEBUSER to an existing login role)"
            )
    return alvo


def importar(
    settings: config.Settings,
    database_url: str,
    arquivo: Path,
    *,
    criar_papel_web: bool = False,
    forcar: bool = False,
    threads: int = 2,
    progresso: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Build (or rebuild) the Nominatim database from an OSM file; record the import in
    D-2's database, which empties the workers' address caches. forcar: drop an existing
    database D-2 did not build (never DATABASE_URL's)."""
    alvo = verificar(settings, database_url, arquivo, criar_papel_web=criar_papel_web)
    duracao = construir(
        settings,
        alvo,
        arquivo,
        database_url=database_url,
        forcar=forcar,
        threads=threads,
        progresso=progresso,
    )
    with db.connect(database_url, autocommit=True) as conn, db.mapped_errors():
        row = conn.execute(
            db.q("nominatim_import_record"),
            {"arquivo": arquivo.name[:255], "bytes": arquivo.stat().st_size, "duracao_s": duracao},
        ).fetchone()
    return {"importacao": row["id"] if row else None, "arquivo": arquivo.name, "segundos": duracao}


def _cluster(conn: db.Connection) -> str | None:
    """The cluster's system identifier, or None where the role may not read it."""
    try:
        with db.mapped_errors():
            row = conn.execute(db.q("nominatim_cluster_id")).fetchone()
    except errors.PermissionDenied:
        return None
    return str(row["sistema"]) if row else None


def _e_o_banco_do_d2(manutencao: db.Connection, banco: str, database_url: str) -> bool:
    """Whether banco, on manutencao's cluster, is DATABASE_URL's database, however the two
    URLs spell the server. Where either cluster cannot be identified, the same name counts
    as the same database."""
    with db.connect(database_url, autocommit=True) as conn, db.mapped_errors():
        row = conn.execute("SELECT current_database() AS banco").fetchone()
        proprio = str(row["banco"]) if row else ""
        sistema_d2 = _cluster(conn)
    if proprio != banco:
        return False
    sistema = _cluster(manutencao)
    return sistema is None or sistema_d2 is None or sistema == sistema_d2


def _ocupado(alvo: str) -> bool:
    """Whether the database at alvo holds D-2's schema or a monolith's event log. A
    database D-2 cannot enter is not looked into: the mark or --force decides."""
    try:
        with db.connect(alvo, autocommit=True, connect_timeout=5) as conn, db.mapped_errors():
            row = conn.execute(db.q("nominatim_database_check")).fetchone()
    except errors.D2Error:
        return False
    return bool(row and row["ocupado"])


def checar_alvo(
    manutencao: db.Connection, alvo: str, banco: str, *, database_url: str, forcar: bool
) -> bool:
    """Whether banco exists and may be dropped for a rebuild; ConfigError in one line
    when it may not: DATABASE_URL's database or one holding D-2's schema or an event log
    (never), or a database without D-2's mark (only with --force)."""
    with db.mapped_errors():
        estado = manutencao.execute(db.q("nominatim_database_state"), {"banco": banco}).fetchone()
    if estado is None:
        return False
    if _e_o_banco_do_d2(manutencao, banco, database_url):
        raise errors.ConfigError(
            f"refusing to drop database {banco!r}: it is DATABASE_URL's own database; point "
            "D2_NOMINATIM_DSN at a database of its own (default: nominatim)"
        )
    if estado["modelo"] or _ocupado(alvo):
        raise errors.ConfigError(
            f"refusing to drop database {banco!r}: it holds D-2's schema or an event log "
            "(or is a template), not a Nominatim database; check D2_NOMINATIM_DSN"
        )
    if not str(estado["comentario"]).startswith(MARCA) and not forcar:
        raise errors.ConfigError(
            f"database {banco!r} exists and was not built by `d2 nominatim import` (it has "
            f"no {MARCA!r} comment); the import would drop it: check D2_NOMINATIM_DSN, or "
            "pass --force if it is yours to replace"
        )
    return True


def _marcar(manutencao: str, banco: str) -> None:
    """D-2's mark on the database the importer created, when it belongs to the role that
    ran it (not one another role created under the same name meanwhile)."""
    with db.connect(manutencao, autocommit=True) as conn, db.mapped_errors():
        estado = conn.execute(db.q("nominatim_database_state"), {"banco": banco}).fetchone()
        if estado is None or estado["dono"] != estado["eu"]:
            return
        conn.execute(
            sql.SQL(db.q("nominatim_mark_database")).format(
                sql.Identifier(banco), sql.Literal(COMENTARIO)
            )
        )


def construir(
    settings: config.Settings,
    alvo: str,
    arquivo: Path,
    *,
    database_url: str,
    forcar: bool = False,
    threads: int = 2,
    progresso: Callable[[str], None] | None = None,
) -> float:
    """Drop the database at alvo (checar_alvo says whether it may) and run Nominatim's
    importer into it; mark what it built; its seconds. database_url is D-2's own
    database, never dropped."""
    manutencao, banco = _manutencao(alvo)
    inicio = time.monotonic()
    with db.connect(manutencao, autocommit=True) as conn:
        if checar_alvo(conn, alvo, banco, database_url=database_url, forcar=forcar):
            with db.mapped_errors():
                conn.execute(sql.SQL(db.q("nominatim_drop_database")).format(sql.Identifier(banco)))
    try:
        _importar_osm(settings, alvo, arquivo, threads=threads, progresso=progresso)
    except BaseException:
        # Marked even when the importer failed half-way, so that the next import may drop
        # what it left; the importer's failure is the one to report.
        with contextlib.suppress(errors.D2Error):
            _marcar(manutencao, banco)
        raise
    _marcar(manutencao, banco)
    return time.monotonic() - inicio


def _importar_osm(
    settings: config.Settings,
    alvo: str,
    arquivo: Path,
    *,
    threads: int,
    progresso: Callable[[str], None] | None,
) -> None:
    """Nominatim's importer into the (absent) database at alvo."""
    ambiente = os.environ | {
        "NOMINATIM_DATABASE_DSN": local.dsn_nominatim(alvo),
        "NOMINATIM_DATABASE_WEBUSER": settings.nominatim_web_user,
    }
    comando = [
        _executavel_nominatim(),
        "import",
        "--osm-file",
        str(arquivo.absolute()),
        "--project-dir",
        str(client.projeto_nominatim(settings)),
        "--threads",
        str(max(1, threads)),
    ]
    ultimas: list[str] = []
    with subprocess.Popen(
        comando, env=ambiente, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as processo:
        assert processo.stdout is not None
        for linha in processo.stdout:
            linha = linha.rstrip()
            if not linha:
                continue
            ultimas = [*ultimas[-4:], linha]
            if progresso is not None:
                progresso(linha)
    if processo.wait() != 0:
        motivo = next(
            (u for u in reversed(ultimas) if "FATAL" in u or "rror" in u),
            ultimas[-1] if ultimas else "no output",
        )
        raise errors.ImportFailed(f"nominatim import failed: {motivo}")


def status(settings: config.Settings, database_url: str) -> dict[str, Any]:
    """What is loaded: the geocoder's mode, the database's counts, the last import."""
    resultado: dict[str, Any] = {"modo": "http" if settings.nominatim_url else "local"}
    with db.connect(database_url) as conn, db.mapped_errors():
        ultima = conn.execute(db.q("nominatim_import_last")).fetchone()
        pendentes = conn.execute(db.q("geocoder_summary")).fetchone()
    resultado["ultima_importacao"] = dict(ultima) if ultima else None
    resultado["geocodificacoes_pendentes"] = int(pendentes["total"]) if pendentes else 0
    if settings.nominatim_url:
        resultado["url"] = settings.nominatim_url
        return resultado
    alvo = dsn(settings, database_url)
    manutencao, banco = _manutencao(alvo)
    resultado["banco"] = banco
    with db.connect(manutencao, autocommit=True) as conn, db.mapped_errors():
        existe = conn.execute(db.q("nominatim_database_exists"), {"banco": banco}).fetchone()
        estado = conn.execute(db.q("nominatim_database_state"), {"banco": banco}).fetchone()
    if existe is None:
        resultado["carregado"] = False
        return resultado
    # Only a marked database is rebuilt by the next import without --force.
    resultado["marcado"] = bool(estado and str(estado["comentario"]).startswith(MARCA))
    try:
        with db.connect(alvo) as conn, db.mapped_errors():
            contagens = conn.execute(db.q("nominatim_counts")).fetchone()
    except errors.D2Error as exc:
        resultado["carregado"] = False
        resultado["erro"] = str(exc).splitlines()[0]
        return resultado
    resultado["carregado"] = True
    resultado |= dict(contagens or {})
    return resultado
