"""The geocoder clients: Nominatim in process (nominatim-api over its database) or over
HTTP (an existing server's /search JSON API). Both answer a batch of queries at once,
at most `concorrencia` in flight, each bounded by a timeout; per query the answer is
the best match (Match), None (nothing found), or Unavailable (try again later)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import psycopg.conninfo

from d2 import config, errors

log = logging.getLogger(__name__)

# A Nominatim search rank (rank_search) from which a match is a street, a house, a POI.
RANK_RUA = 26
_MAX_RESPOSTA_HTTP = 1 << 20


class Unavailable(errors.D2Error):
    """The geocoder did not answer (down, slow or refusing); try again later."""


@dataclass(frozen=True)
class Match:
    lat: float
    lng: float
    rank: int  # Nominatim's rank_search: 30 house/POI, 26 street, 21 postcode, 16 city
    categoria: str  # "highway", "place", "amenity", ...
    tipo: str  # "residential", "house", "postcode", "suburb", ...
    pais: str | None  # ISO code, lower case
    nome: str  # Nominatim's display name

    @property
    def de_rua(self) -> bool:
        """Street, house or POI precision, or a CEP (a street or a locality's code)."""
        return self.rank >= RANK_RUA or self.tipo == "postcode"


Resposta = Match | None | Unavailable


class Geocoder(Protocol):
    modo: str

    def buscar_muitos(self, consultas: list[str]) -> list[Resposta]: ...

    def fechar(self) -> None: ...


def dsn_nominatim(url: str) -> str:
    """A libpq URL or conninfo as Nominatim's DSN ("pgsql:dbname=...;host=...")."""
    partes = psycopg.conninfo.conninfo_to_dict(url)
    return "pgsql:" + ";".join(f"{k}={v}" for k, v in partes.items() if v is not None)


def url_nominatim_padrao(database_url: str) -> str:
    """The default Nominatim database: `nominatim` on DATABASE_URL's server."""
    return psycopg.conninfo.make_conninfo(database_url, dbname="nominatim")


class NominatimLocal:
    """nominatim-api in process: its async API on an event loop of its own thread."""

    modo = "local"

    def __init__(
        self,
        dsn: str,
        projeto: Path,
        *,
        concorrencia: int = 2,
        timeout_s: float = 5.0,
        observar: Callable[[float], None] | None = None,
    ) -> None:
        self._ambiente = {
            "NOMINATIM_DATABASE_DSN": dsn_nominatim(dsn),
            "NOMINATIM_API_POOL_SIZE": str(max(1, concorrencia)),
            "NOMINATIM_QUERY_TIMEOUT": str(max(1, int(timeout_s))),
            "NOMINATIM_REQUEST_TIMEOUT": str(max(1, int(timeout_s))),
        }
        self._projeto = projeto
        self._concorrencia = max(1, concorrencia)
        self._timeout_s = timeout_s
        self._observar = observar
        self._api: Any = None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="d2-nominatim", daemon=True
        )
        self._thread.start()

    def buscar_muitos(self, consultas: list[str]) -> list[Resposta]:
        if not consultas:
            return []
        futuro = asyncio.run_coroutine_threadsafe(self._todas(consultas), self._loop)
        rodadas = -(-len(consultas) // self._concorrencia)
        try:
            return futuro.result(timeout=self._timeout_s * (rodadas + 1) + 5)
        except TimeoutError:
            futuro.cancel()
            return [Unavailable("timeout")] * len(consultas)

    async def _todas(self, consultas: list[str]) -> list[Resposta]:
        if self._api is None:
            import nominatim_api

            self._api = nominatim_api.NominatimAPIAsync(self._projeto, self._ambiente)
        limite = asyncio.Semaphore(self._concorrencia)
        return list(await asyncio.gather(*(self._uma(limite, c) for c in consultas)))

    async def _uma(self, limite: asyncio.Semaphore, consulta: str) -> Resposta:
        import nominatim_api

        async with limite:
            inicio = time.perf_counter()
            try:
                achados = await asyncio.wait_for(
                    self._api.search(
                        consulta, max_results=1, address_details=True, countries=["br"]
                    ),
                    self._timeout_s,
                )
            except nominatim_api.UsageError:
                return None  # a query Nominatim refuses is a query with no answer
            except TimeoutError:
                return Unavailable("timeout")
            except Exception as exc:  # the database behind it: gone, refusing, missing
                return Unavailable(type(exc).__name__)
            finally:
                if self._observar is not None:
                    self._observar(time.perf_counter() - inicio)
        if not achados:
            return None
        r = achados[0]
        return Match(
            float(r.centroid.y),
            float(r.centroid.x),
            int(r.rank_search),
            str(r.category[0]),
            str(r.category[1]),
            r.country_code,
            (r.display_name or "")[:500],
        )

    def fechar(self) -> None:
        if self._api is not None:
            api, self._api = self._api, None
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(api.close(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        if not self._loop.is_running():
            self._loop.close()


class NominatimHTTP:
    """An existing Nominatim server's /search (format=jsonv2), a thread per request."""

    modo = "http"

    def __init__(
        self,
        url: str,
        *,
        concorrencia: int = 2,
        timeout_s: float = 5.0,
        observar: Callable[[float], None] | None = None,
    ) -> None:
        self._base = url.rstrip("/")
        self._timeout_s = timeout_s
        self._observar = observar
        self._pool = ThreadPoolExecutor(max(1, concorrencia), thread_name_prefix="d2-nominatim")

    def buscar_muitos(self, consultas: list[str]) -> list[Resposta]:
        return list(self._pool.map(self._uma, consultas))

    def _uma(self, consulta: str) -> Resposta:
        parametros = urllib.parse.urlencode(
            {
                "q": consulta,
                "format": "jsonv2",
                "limit": 1,
                "countrycodes": "br",
                "addressdetails": 1,
            }
        )
        pedido = urllib.request.Request(
            f"{self._base}/search?{parametros}", headers={"User-Agent": "d2-georreferenciamento"}
        )
        inicio = time.perf_counter()
        try:
            with urllib.request.urlopen(pedido, timeout=self._timeout_s) as resposta:
                corpo = resposta.read(_MAX_RESPOSTA_HTTP + 1)
        except urllib.error.HTTPError as exc:
            # 400: the server refuses this query (it has no answer); 429/5xx: later.
            return None if exc.code == 400 else Unavailable(f"HTTP {exc.code}")
        except (OSError, ValueError) as exc:  # refused, reset, timed out, bad URL
            return Unavailable(type(exc).__name__)
        finally:
            if self._observar is not None:
                self._observar(time.perf_counter() - inicio)
        if len(corpo) > _MAX_RESPOSTA_HTTP:
            return Unavailable("resposta grande demais")
        try:
            lista = json.loads(corpo)
            if not lista:
                return None
            r = lista[0]
            return Match(
                float(r["lat"]),
                float(r["lon"]),
                int(r.get("place_rank", 0)),
                str(r.get("category", "")),
                str(r.get("type", "")),
                (r.get("address") or {}).get("country_code"),
                str(r.get("display_name", ""))[:500],
            )
        except (ValueError, KeyError, TypeError, IndexError, AttributeError):
            return Unavailable("resposta ilegível")

    def fechar(self) -> None:
        self._pool.shutdown(wait=True)


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
