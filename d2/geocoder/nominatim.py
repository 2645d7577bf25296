"""The geocoder: what it answers (Geocoder) and which one answers (criar_geocodificador):
Nominatim in process (d2.geocoder.nominatim_local: nominatim-api over its database) or
over HTTP (d2.geocoder.nominatim_http: an existing server's /search JSON API). Both answer
a batch of queries at once, at most `concorrencia` in flight, each bounded by a timeout.

Two kinds of question (d2.geocoder.nominatim_search): `buscar_muitos` asks free text and
gets the best match (Match), None (nothing found) or Unavailable (try again later) — the
path of D2_GEOCODER_LADDER=off; `pesquisar` asks by fields (Consulta: street, city,
postcode, a POI; Nominatim's structured search) or free text, and gets the matches in
Nominatim's order, or Unavailable — the address ladder's (d2.geocoder.ladder)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import psycopg.conninfo

from d2 import config
from d2.geocoder.nominatim_http import NominatimHTTP
from d2.geocoder.nominatim_local import NominatimLocal
from d2.geocoder.nominatim_search import Consulta, Resposta, Resultados


class Geocoder(Protocol):
    modo: str

    def buscar_muitos(self, consultas: list[str]) -> list[Resposta]: ...

    def pesquisar(self, consultas: list[Consulta]) -> list[Resultados]: ...

    def saudavel(self) -> bool: ...

    def fechar(self) -> None: ...


def url_nominatim_padrao(database_url: str) -> str:
    """The default Nominatim database: `nominatim` on DATABASE_URL's server."""
    return psycopg.conninfo.make_conninfo(database_url, dbname="nominatim")


def criar_geocodificador(
    settings: config.Settings,
    database_url: str,
    observar: Callable[[float], None] | None = None,
) -> Geocoder:
    """HTTP when D2_NOMINATIM_URL is set; else in process over D2_NOMINATIM_DSN, or the
    database `nominatim` on DATABASE_URL's server."""
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
