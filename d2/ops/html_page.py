"""The page primitives of `d2 map` (d2/ops/html_map.py): one self-contained HTML page of
GeoJSON layers, Leaflet inlined from the copy vendored in d2/ops/_leaflet (Leaflet 1.9.4,
BSD-2-Clause), every text escaped, written readable by its owner only."""

from __future__ import annotations

import contextlib
import html
import os
import re
import tempfile
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

import folium

from d2 import errors
from d2.terminal import visivel

_LEAFLET = Path(__file__).resolve().parent / "_leaflet"
_EXTERNO = re.compile(r"<(?:script|link)\b[^>]*\b(?:src|href)\s*=\s*[\"']?(?:https?:)?//", re.I)


def texto(valor: Any) -> Any:
    """A property as the popups and tooltips show it. folium's GeoJsonPopup/GeoJsonTooltip
    write property values into innerHTML as they are: every text is HTML-escaped here, since
    names and ids come from files and events anyone upstream could write. Bidi overrides,
    zero-width and control characters are shown as escapes (d2/terminal.py) first: inside
    a popup they would reorder or hide the text around them."""
    if valor is None:
        return "—"
    if isinstance(valor, datetime):
        return f"{valor:%Y-%m-%d %H:%M:%S}"
    if isinstance(valor, int | float) and not isinstance(valor, bool):
        return valor
    return html.escape(visivel(str(valor)), quote=True)


def pontos(linhas: Iterable[dict[str, Any]], campos: list[str]) -> dict[str, Any]:
    """A GeoJSON FeatureCollection of points with the given properties."""
    return {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "geometry": {"type": "Point", "coordinates": [linha["lng"], linha["lat"]]},
                "properties": {campo: texto(linha.get(campo)) for campo in campos},
            }
            for linha in linhas
        ],
    }


def camada_pontos(
    mapa: folium.Map,
    nome: str,
    dados: dict[str, Any],
    campos: list[tuple[str, str]],
    *,
    cor: str,
    borda: str,
    raio: int,
    classe: str,
) -> None:
    if not dados["features"]:
        return
    folium.GeoJson(
        dados,
        name=nome,
        marker=folium.CircleMarker(
            radius=raio,
            color=borda,
            weight=1.5,
            fill=True,
            fill_color=cor,
            fill_opacity=0.9,
            className=classe,
        ),
        popup=folium.GeoJsonPopup(
            fields=[c for c, _ in campos], aliases=[a for _, a in campos], localize=False
        ),
        zoom_on_click=False,
    ).add_to(mapa)


def limites(pontos: list[tuple[float, float]]) -> list[list[float]] | None:
    if not pontos:
        return None
    lats = [p[0] for p in pontos]
    lngs = [p[1] for p in pontos]
    return [[min(lats), min(lngs)], [max(lats), max(lngs)]]


def figura(mapa: folium.Map) -> folium.Figure:
    figura = mapa.get_root()
    assert isinstance(figura, folium.Figure)
    return figura


def inline_leaflet(mapa: folium.Map) -> None:
    js = (_LEAFLET / "leaflet.js").read_text(encoding="utf-8")
    js = re.sub(r"//# sourceMappingURL=\S+\s*$", "", js)
    css = (_LEAFLET / "leaflet.css").read_text(encoding="utf-8")
    mapa.default_js = []
    mapa.default_css = []
    figura(mapa).header.add_child(
        folium.Element(f"<style>{css}</style>\n<script>{js}</script>"), name="leaflet_inline"
    )


def gravar_privado(saida: Path, pagina: str) -> None:
    """The page holds citizens' coordinates: mode 0600 from its first byte (mkstemp), then
    renamed over `saida`, so an existing file's mode or a symlink there is not reused."""
    saida.parent.mkdir(parents=True, exist_ok=True)
    fd, temporario = tempfile.mkstemp(prefix=".mapa-", suffix=".html", dir=saida.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as arquivo:
            arquivo.write(pagina)
        os.replace(temporario, saida)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporario)
        raise


def checar_autocontido(pagina: str) -> None:
    """A script or stylesheet from the network would leave the page blank offline."""
    achado = _EXTERNO.search(pagina)
    if achado:
        raise errors.D2Error(f"map page would load from the network: {achado.group(0)[:120]}")
