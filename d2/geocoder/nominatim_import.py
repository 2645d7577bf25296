"""`d2 nominatim import FILE` and `d2 nominatim status`: the Nominatim database beside
D-2's (by default `nominatim` on DATABASE_URL's server; D2_NOMINATIM_DSN for another),
built by Nominatim's own importer (osm2pgsql underneath)."""

from __future__ import annotations

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
from d2.geocoder import nominatim

SUFIXOS = (".osm", ".osm.pbf", ".pbf", ".osm.bz2")


def dsn(settings: config.Settings, database_url: str) -> str:
    return settings.nominatim_dsn or nominatim.url_nominatim_padrao(database_url)


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
    threads: int = 2,
    progresso: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Build (or rebuild) the Nominatim database from an OSM file; record the import in
    D-2's database, which empties the workers' address caches."""
    alvo = verificar(settings, database_url, arquivo, criar_papel_web=criar_papel_web)
    duracao = construir(settings, alvo, arquivo, threads=threads, progresso=progresso)
    with db.connect(database_url, autocommit=True) as conn, db.mapped_errors():
        row = conn.execute(
            db.q("nominatim_import_record"),
            {"arquivo": arquivo.name[:255], "bytes": arquivo.stat().st_size, "duracao_s": duracao},
        ).fetchone()
    return {"importacao": row["id"] if row else None, "arquivo": arquivo.name, "segundos": duracao}


def construir(
    settings: config.Settings,
    alvo: str,
    arquivo: Path,
    *,
    threads: int = 2,
    progresso: Callable[[str], None] | None = None,
) -> float:
    """Drop the database at alvo and run Nominatim's importer into it; its seconds."""
    manutencao, banco = _manutencao(alvo)
    inicio = time.monotonic()
    with db.connect(manutencao, autocommit=True) as conn, db.mapped_errors():
        conn.execute(sql.SQL(db.q("nominatim_drop_database")).format(sql.Identifier(banco)))
    ambiente = os.environ | {
        "NOMINATIM_DATABASE_DSN": nominatim.dsn_nominatim(alvo),
        "NOMINATIM_DATABASE_WEBUSER": settings.nominatim_web_user,
    }
    comando = [
        _executavel_nominatim(),
        "import",
        "--osm-file",
        str(arquivo.absolute()),
        "--project-dir",
        str(nominatim.projeto_nominatim(settings)),
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
    return time.monotonic() - inicio


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
    if existe is None:
        resultado["carregado"] = False
        return resultado
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
