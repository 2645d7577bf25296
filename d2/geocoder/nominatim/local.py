"""The geocoder in process: nominatim-api over Nominatim's database, its async API on an
event loop of its own thread, at most `concorrencia` searches in flight, each bounded by
a timeout."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import psycopg.conninfo

from d2.geocoder.nominatim.search import Consulta, Match, Resultados, Unavailable

_C = TypeVar("_C")  # a question: free text or a Consulta
_R = TypeVar("_R")  # its answer


def dsn_nominatim(url: str) -> str:
    """A libpq URL or conninfo as Nominatim's DSN ("pgsql:dbname=...;host=...")."""
    partes = psycopg.conninfo.conninfo_to_dict(url)
    return "pgsql:" + ";".join(f"{k}={v}" for k, v in partes.items() if v is not None)


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

    def pesquisar(self, consultas: list[Consulta]) -> list[Resultados]:
        if not consultas:
            return []
        falha: list[Resultados] = [Unavailable("timeout")] * len(consultas)
        return list(
            self._rodar(self._em_paralelo(self._pesquisa, consultas), len(consultas), falha)
        )

    def saudavel(self) -> bool:
        """Whether Nominatim's database answers its status (quickly)."""
        return bool(self._rodar(self._status(), 1, False))

    def _rodar(self, corotina: Any, n: int, falha: Any) -> Any:
        """Run corotina on the loop's thread; falha when its n searches, asked
        `concorrencia` at a time, have not all ended within their timeouts."""
        futuro = asyncio.run_coroutine_threadsafe(corotina, self._loop)
        rounds = -(-n // self._concorrencia)
        try:
            return futuro.result(timeout=self._timeout_s * (rounds + 1) + 5)
        except TimeoutError:
            futuro.cancel()
            return falha

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

    async def _em_paralelo(
        self,
        uma: Callable[[asyncio.Semaphore, _C], Awaitable[_R]],
        consultas: list[_C],
    ) -> list[_R]:
        """Each question asked by uma, at most `concorrencia` in flight at once."""
        self._api_async()
        limite = asyncio.Semaphore(self._concorrencia)
        return list(await asyncio.gather(*(uma(limite, c) for c in consultas)))

    async def _chamar(
        self, limite: asyncio.Semaphore, pedido: Callable[[], Awaitable[Any]]
    ) -> Sequence[Any] | Unavailable:
        """One call of nominatim-api, within the bound in flight and the timeout: its
        results; none when Nominatim refuses the query (a query with no answer); or
        Unavailable (its database gone, refusing, missing, or slow)."""
        import nominatim_api

        async with limite:
            inicio = time.perf_counter()
            try:
                return list(await asyncio.wait_for(pedido(), self._timeout_s))
            except nominatim_api.UsageError:
                return []
            except TimeoutError:
                return Unavailable("timeout")
            except Exception as exc:
                return Unavailable(type(exc).__name__)
            finally:
                if self._observar is not None:
                    self._observar(time.perf_counter() - inicio)

    async def _pesquisa(self, limite: asyncio.Semaphore, consulta: Consulta) -> Resultados:
        """By fields (structured search) or free text, the matches in Nominatim's order."""
        import nominatim_api

        api = self._api_async()
        campos = consulta.campos()
        parametros: dict[str, Any] = {
            "max_results": consulta.limite,
            "address_details": True,
            "countries": ["br"],
        }
        if "q" in campos:
            achados = await self._chamar(limite, lambda: api.search(campos["q"], **parametros))
        else:
            if "amenity" in campos:
                parametros["layers"] = nominatim_api.DataLayer.ADDRESS | (
                    nominatim_api.DataLayer.POI
                )
            achados = await self._chamar(
                limite,
                lambda: api.search_address(
                    amenity=campos.get("amenity"),
                    street=campos.get("street"),
                    city=campos.get("city"),
                    postalcode=campos.get("postalcode"),
                    **parametros,
                ),
            )
        if isinstance(achados, Unavailable):
            return achados
        return tuple(_match_local(r) for r in achados)

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
