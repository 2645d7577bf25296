"""The geocoder over HTTP: an existing Nominatim server's /search JSON API
(D2_NOMINATIM_URL), a thread per request, at most `concorrencia` in flight, each bounded
by a timeout; its answers read back, bounded in size."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from d2.geocoder.nominatim.search import Consulta, Match, Resultados, Unavailable

_MAX_RESPOSTA_HTTP = 1 << 20


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
