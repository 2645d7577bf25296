"""The geocoder: what it answers (Geocoder) and which one answers (criar_geocodificador):
Nominatim in process (d2.geocoder.nominatim.local: nominatim-api over its database) or
over HTTP (d2.geocoder.nominatim.remote: an existing server's /search JSON API). Both answer
a batch of queries at once, at most `concorrencia` in flight, each bounded by a timeout.

One kind of question (d2.geocoder.nominatim.search): `pesquisar` asks by fields
(Consulta: street, city, postcode, a POI; Nominatim's structured search) or free text,
and gets the matches in Nominatim's order, or Unavailable (try again later): the address
ladder's (d2.geocoder.ladder).

Which one (escolher): none with D2_NOMINATIM=off; the server of D2_NOMINATIM_URL; the
database of D2_NOMINATIM_DSN; else the default database `nominatim` on DATABASE_URL's
server, where it exists or `d2 nominatim import` ever built one (then it is expected:
while it is away, addresses wait for it); else none. Without a Nominatim (SemNominatim)
the address path still reads places and CEPs and answers at the bairro or município; a
Nominatim that is configured but down makes addresses wait instead."""

from __future__ import annotations

import logging
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import psycopg.conninfo

from d2 import config, db
from d2.geocoder.nominatim.local import NominatimLocal
from d2.geocoder.nominatim.remote import NominatimHTTP
from d2.geocoder.nominatim.search import Consulta, Resultados

log = logging.getLogger(__name__)


class Geocoder(Protocol):
    modo: str

    def pesquisar(self, consultas: list[Consulta]) -> list[Resultados]: ...

    def saudavel(self) -> bool: ...

    def fechar(self) -> None: ...


# The modes (Geocoder.modo), as d2 status and /healthz say them.
LOCAL, HTTP, NENHUM = "local", "http", "nenhum"
BANCO_PADRAO = "nominatim"


class SemNominatim:
    """No Nominatim at all: every search finds nothing, at no cost, so the ladder reads
    only places and CEPs (it asks nothing of this one: d2.geocoder.ladder_steps)."""

    modo = NENHUM

    def pesquisar(self, consultas: list[Consulta]) -> list[Resultados]:
        return [()] * len(consultas)

    def saudavel(self) -> bool:
        return True

    def fechar(self) -> None:
        pass


@dataclass(frozen=True)
class Escolha:
    """Which geocoder answers, and where (no credentials: d2 status prints it)."""

    modo: str  # local | http | nenhum
    onde: str


def url_nominatim_padrao(database_url: str) -> str:
    """The default Nominatim database: `nominatim` on DATABASE_URL's server."""
    return psycopg.conninfo.make_conninfo(database_url, dbname=BANCO_PADRAO)


def escolher(settings: config.Settings, conn: db.Connection) -> Escolha:
    """The geocoder the settings name; for the default database, whether it is there
    (conn: any connection to DATABASE_URL's database)."""
    if not settings.nominatim_ativo:
        return Escolha(NENHUM, "D2_NOMINATIM=off")
    if settings.nominatim_url:
        partes = urllib.parse.urlsplit(settings.nominatim_url)
        servidor = partes.hostname or ""
        if partes.port:
            servidor = f"{servidor}:{partes.port}"
        return Escolha(HTTP, f"{partes.scheme}://{servidor}{partes.path}".rstrip("/"))
    if settings.nominatim_dsn:
        banco = psycopg.conninfo.conninfo_to_dict(settings.nominatim_dsn).get("dbname")
        return Escolha(LOCAL, f"database {banco} (D2_NOMINATIM_DSN)")
    with db.mapped_errors():
        row = conn.execute(db.q("nominatim_exists"), {"banco": BANCO_PADRAO}).fetchone()
    if row is not None and (row["existe"] or row["importado"]):
        return Escolha(LOCAL, f"database {BANCO_PADRAO} on DATABASE_URL's server")
    return Escolha(
        NENHUM, f"none configured, and no database {BANCO_PADRAO} on DATABASE_URL's server"
    )


def reescolher(
    settings: config.Settings,
    database_url: str,
    conn: db.Connection,
    observar: Callable[[float], None] | None = None,
) -> Geocoder | None:
    """For a worker that started with no Nominatim: the one escolher names now (the
    default database, once `d2 nominatim import` recorded it), or None. D2_NOMINATIM=off
    stays off; a URL or a DSN is never absent at start, so never chosen again here."""
    if not settings.nominatim_ativo:
        return None
    escolha = escolher(settings, conn)
    if escolha.modo == NENHUM:
        return None
    log.info("Geocodificação com Nominatim: importação concluída", extra={"onde": escolha.onde})
    return criar_geocodificador(settings, database_url, observar, escolha=escolha)


def criar_geocodificador(
    settings: config.Settings,
    database_url: str,
    observar: Callable[[float], None] | None = None,
    *,
    escolha: Escolha | None = None,
) -> Geocoder:
    """The geocoder escolher names (asked here when not given): none; HTTP over
    D2_NOMINATIM_URL; else in process over D2_NOMINATIM_DSN, or the database `nominatim`
    on DATABASE_URL's server."""
    if escolha is None:
        with db.connect(database_url, autocommit=True, application_name="d2-geocoder") as conn:
            escolha = escolher(settings, conn)
    if escolha.modo == NENHUM:
        return SemNominatim()
    if settings.nominatim_url:
        return NominatimHTTP(
            settings.nominatim_url,
            concorrencia=settings.geocoder_concorrencia,
            timeout_s=settings.geocoder_timeout_s,
            observar=observar,
        )
    return NominatimLocal(
        settings.nominatim_dsn or url_nominatim_padrao(database_url),
        projeto_nominatim(settings),
        concorrencia=settings.geocoder_concorrencia,
        timeout_s=settings.geocoder_timeout_s,
        observar=observar,
    )


def projeto_nominatim(settings: config.Settings) -> Path:
    """Nominatim's project directory (its settings; D-2 keeps none there)."""
    caminho = settings.home / "nominatim"
    caminho.mkdir(parents=True, exist_ok=True)
    return caminho
