"""The geocoder clients: Nominatim in process (nominatim-api over its database) or over
HTTP (an existing server's /search JSON API). Both answer a batch of queries at once,
at most `concorrencia` in flight, each bounded by a timeout.

Two kinds of question: `buscar_muitos` asks free text and gets the best match (Match),
None (nothing found) or Unavailable (try again later) — the path of D2_GEOCODER_LADDER=off;
`pesquisar` asks by fields (Consulta: street, city, postcode, a POI; Nominatim's
structured search) or free text, and gets the matches in Nominatim's order, or
Unavailable — the address ladder's (d2.geocoder.ladder)."""

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
from d2.geocoder import text

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
    # The house number matched; None when Nominatim answered with the street because it
    # does not know the number asked (it says so only this way).
    numero: str | None = None

    @property
    def de_rua(self) -> bool:
        """Street, house or POI precision, or a CEP (a street or a locality's code)."""
        return self.rank >= RANK_RUA or self.tipo == "postcode"

    @property
    def de_numero(self) -> bool:
        """A house with its number, or a POI: the precision of a building."""
        return self.rank >= 30 and (self.numero is not None or self.categoria != "place")


Resposta = Match | None | Unavailable

# The fields a structured search takes (Nominatim's search_address / /search?street=).
_MAX_CAMPO = 120


@dataclass(frozen=True)
class Consulta:
    """One search: by fields (Nominatim's structured search) or free text (texto)."""

    rua: str | None = None  # street, with the house number
    cidade: str | None = None  # the município's (or a bairro's) name
    cep: str | None = None  # "ddddd-ddd"
    lugar: str | None = None  # a POI's name (Nominatim's amenity)
    texto: str | None = None  # free text
    limite: int = 5  # matches wanted

    def campos(self) -> dict[str, str]:
        """The fields sent, each bounded (a field is a short phrase, not a document)."""
        brutos = {
            "street": self.rua,
            "city": self.cidade,
            "postalcode": self.cep,
            "amenity": self.lugar,
            "q": self.texto,
        }
        return {k: v[:_MAX_CAMPO] for k, v in brutos.items() if v}

    @property
    def chave(self) -> str:
        """The cache key: the fields, case and accents folded (never a free-text key of
        the path without the ladder, which has no "§")."""
        campos = "|".join(f"{k}={text.normalizar(v)}" for k, v in sorted(self.campos().items()))
        return f"§{campos}|{self.limite}"


Resultados = tuple[Match, ...] | Unavailable


class Geocoder(Protocol):
    modo: str

    def buscar_muitos(self, consultas: list[str]) -> list[Resposta]: ...

    def pesquisar(self, consultas: list[Consulta]) -> list[Resultados]: ...

    def saudavel(self) -> bool: ...

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

    def _rodar(self, corotina: Any, n: int, falha: Any) -> Any:
        futuro = asyncio.run_coroutine_threadsafe(corotina, self._loop)
        rodadas = -(-n // self._concorrencia)
        try:
            return futuro.result(timeout=self._timeout_s * (rodadas + 1) + 5)
        except TimeoutError:
            futuro.cancel()
            return falha

    def pesquisar(self, consultas: list[Consulta]) -> list[Resultados]:
        if not consultas:
            return []
        falha: list[Resultados] = [Unavailable("timeout")] * len(consultas)
        return list(self._rodar(self._pesquisas(consultas), len(consultas), falha))

    def saudavel(self) -> bool:
        """Whether Nominatim's database answers its status (quickly)."""
        return bool(self._rodar(self._status(), 1, False))

    def _api_async(self) -> Any:
        if self._api is None:
            import nominatim_api

            self._api = nominatim_api.NominatimAPIAsync(self._projeto, self._ambiente)
        return self._api

    async def _status(self) -> bool:
        try:
            estado = await asyncio.wait_for(self._api_async().status(), self._timeout_s)
        except Exception:  # down, refusing, slow: not healthy
            return False
        return int(getattr(estado, "status", 1)) == 0

    async def _pesquisas(self, consultas: list[Consulta]) -> list[Resultados]:
        limite = asyncio.Semaphore(self._concorrencia)
        return list(await asyncio.gather(*(self._pesquisa(limite, c) for c in consultas)))

    async def _pesquisa(self, limite: asyncio.Semaphore, consulta: Consulta) -> Resultados:
        import nominatim_api

        api = self._api_async()
        campos = consulta.campos()
        parametros: dict[str, Any] = {
            "max_results": consulta.limite,
            "address_details": True,
            "countries": ["br"],
        }
        async with limite:
            inicio = time.perf_counter()
            try:
                if "q" in campos:
                    pedido = api.search(campos["q"], **parametros)
                else:
                    if "amenity" in campos:
                        parametros["layers"] = nominatim_api.DataLayer.ADDRESS | (
                            nominatim_api.DataLayer.POI
                        )
                    pedido = api.search_address(
                        amenity=campos.get("amenity"),
                        street=campos.get("street"),
                        city=campos.get("city"),
                        postalcode=campos.get("postalcode"),
                        **parametros,
                    )
                achados = await asyncio.wait_for(pedido, self._timeout_s)
            except nominatim_api.UsageError:
                return ()  # a query Nominatim refuses is a query with no answer
            except TimeoutError:
                return Unavailable("timeout")
            except Exception as exc:  # the database behind it: gone, refusing, missing
                return Unavailable(type(exc).__name__)
            finally:
                if self._observar is not None:
                    self._observar(time.perf_counter() - inicio)
        return tuple(_match_local(r) for r in achados)

    async def _todas(self, consultas: list[str]) -> list[Resposta]:
        self._api_async()
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
        return _match_local(achados[0])

    def fechar(self) -> None:
        if self._api is not None:
            api, self._api = self._api, None
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(api.close(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        if not self._loop.is_running():
            self._loop.close()


def _match_local(r: Any) -> Match:
    """A nominatim-api SearchResult as a Match."""
    return Match(
        float(r.centroid.y),
        float(r.centroid.x),
        int(r.rank_search),
        str(r.category[0]),
        str(r.category[1]),
        r.country_code,
        (r.display_name or "")[:500],
        str(r.housenumber)[:20] if r.housenumber else None,
    )


def _match_http(r: dict[str, Any]) -> Match:
    """One element of /search?format=jsonv2&addressdetails=1 as a Match."""
    endereco = r.get("address") or {}
    numero = endereco.get("house_number")
    return Match(
        float(r["lat"]),
        float(r["lon"]),
        int(r.get("place_rank", 0)),
        str(r.get("category", "")),
        str(r.get("type", "")),
        endereco.get("country_code"),
        str(r.get("display_name", ""))[:500],
        str(numero)[:20] if numero else None,
    )


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

    def pesquisar(self, consultas: list[Consulta]) -> list[Resultados]:
        return list(self._pool.map(self._pesquisa, consultas))

    def saudavel(self) -> bool:
        """Whether the server's /status says it is fine (quickly)."""
        pedido = urllib.request.Request(
            f"{self._base}/status?format=json", headers={"User-Agent": "d2-georreferenciamento"}
        )
        try:
            with urllib.request.urlopen(pedido, timeout=self._timeout_s) as resposta:
                estado = json.loads(resposta.read(_MAX_RESPOSTA_HTTP))
        except (OSError, ValueError):
            return False
        return isinstance(estado, dict) and estado.get("status") == 0

    def _pedir(self, parametros: dict[str, Any]) -> list[Any] | Unavailable:
        """GET /search; the list of results, or why there is none to wait for."""
        consulta = urllib.parse.urlencode(
            parametros | {"format": "jsonv2", "countrycodes": "br", "addressdetails": 1}
        )
        pedido = urllib.request.Request(
            f"{self._base}/search?{consulta}", headers={"User-Agent": "d2-georreferenciamento"}
        )
        inicio = time.perf_counter()
        try:
            with urllib.request.urlopen(pedido, timeout=self._timeout_s) as resposta:
                corpo = resposta.read(_MAX_RESPOSTA_HTTP + 1)
        except urllib.error.HTTPError as exc:
            # 400: the server refuses this query (it has no answer); 429/5xx: later.
            return [] if exc.code == 400 else Unavailable(f"HTTP {exc.code}")
        except (OSError, ValueError) as exc:  # refused, reset, timed out, bad URL
            return Unavailable(type(exc).__name__)
        finally:
            if self._observar is not None:
                self._observar(time.perf_counter() - inicio)
        if len(corpo) > _MAX_RESPOSTA_HTTP:
            return Unavailable("resposta grande demais")
        try:
            lista = json.loads(corpo)
        except ValueError:
            return Unavailable("resposta ilegível")
        return lista if isinstance(lista, list) else Unavailable("resposta ilegível")

    def _uma(self, consulta: str) -> Resposta:
        lista = self._pedir({"q": consulta, "limit": 1})
        if isinstance(lista, Unavailable):
            return lista
        try:
            return _match_http(lista[0]) if lista else None
        except (ValueError, KeyError, TypeError, IndexError, AttributeError):
            return Unavailable("resposta ilegível")

    def _pesquisa(self, consulta: Consulta) -> Resultados:
        lista = self._pedir(consulta.campos() | {"limit": consulta.limite})
        if isinstance(lista, Unavailable):
            return lista
        try:
            return tuple(_match_http(r) for r in lista[: consulta.limite])
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
