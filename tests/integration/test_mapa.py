"""`d2 mapa`: the page is self-contained and, opened in headless Chromium, draws the points.

The browser test needs Debian's chromium (apt-get install chromium); it is skipped where
no browser is installed and installs nothing itself.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import psycopg
import pytest

from d2 import config, mapa, worker
from tests.eventos import inserir_evento, payload_normalizada
from tests.territorio import Territorio

Conn = psycopg.Connection[dict[str, Any]]
NAVEGADORES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


@pytest.fixture
def cenario(conn: Conn, db_url: str) -> dict[str, Any]:
    """Resolved points at three levels, two reviews, dead letters with and without
    coordinates, all through the real worker."""
    territorio = Territorio(conn)
    conn.execute(
        "INSERT INTO d2.consumer_offset (tipo_evento, last_sequence) "
        "VALUES ('demanda.normalizada', 0)"
    )
    resolvidas = [
        payload_normalizada(-27.0, -49.0),  # bairro A1
        payload_normalizada(-26.0, -46.0),  # bairro A2
        payload_normalizada(-27.0, -42.0),  # município B
        payload_normalizada(-22.0, -45.0),  # UF
    ]
    revisoes = [payload_normalizada(-27.0, -28.5), payload_normalizada(-31.0, -44.0)]
    mortos = [
        payload_normalizada(-28.0, -37.0, demanda_id="not-a-uuid"),  # with coordinates
        payload_normalizada("x", "y", demanda_id="also-bad"),  # coordinates not numbers
    ]
    for payload in resolvidas + revisoes + mortos:
        inserir_evento(conn, payload)
    inserir_evento(conn, ["not", "an", "object"])  # no coordinates at all
    worker.Worker(config.load(), url=db_url, batch_size=50).executar(drain=True)
    return {"territorio": territorio, "resolvidas": resolvidas, "revisoes": revisoes}


def test_gerar_mapa__self_contained_page_with_every_kind_of_point(
    conn: Conn, cenario: dict[str, Any], tmp_path: Path
) -> None:
    saida = tmp_path / "sub" / "mapa.html"
    resumo = mapa.gerar_mapa(conn, saida)
    assert resumo["revisoes"] == 2 and resumo["resolucoes"] == 4
    assert resumo["resolucoes_por_nivel"] == {"2": 2, "4": 1, "5": 1}
    assert resumo["dead_letters"] == 1 and resumo["dead_letters_sem_coordenadas"] == 2
    assert resumo["poligonos"] >= 1
    pagina = saida.read_text(encoding="utf-8")
    # Nothing from the network: Leaflet inlined, no CDN script or stylesheet, no tiles.
    assert not re.search(r"<script[^>]+src=", pagina)
    assert not re.search(r"<link[^>]+href=[\"']?(https?:)?//", pagina)
    assert "Leaflet 1.9.4" in pagina and "L.tileLayer(" not in pagina
    for payload in cenario["revisoes"] + cenario["resolvidas"]:
        assert payload["demanda_id"] in pagina  # in the popups' data
    assert "Munic\\u00edpio B" in pagina  # the polygon nearest to the reviews (JSON-escaped)
    assert 'id="d2-legenda"' in pagina


def test_gerar_mapa__limit_bounds_each_kind(
    conn: Conn, cenario: dict[str, Any], tmp_path: Path
) -> None:
    resumo = mapa.gerar_mapa(conn, tmp_path / "m.html", limite=1)
    assert resumo["revisoes"] == 1 and resumo["resolucoes"] == 1


def test_gerar_mapa__empty_database_still_writes_a_page(conn: Conn, tmp_path: Path) -> None:
    resumo = mapa.gerar_mapa(conn, tmp_path / "vazio.html")
    assert resumo["revisoes"] == resumo["resolucoes"] == resumo["poligonos"] == 0
    assert "d2-legenda" in (tmp_path / "vazio.html").read_text(encoding="utf-8")


def navegador() -> str:
    for nome in NAVEGADORES:
        caminho = shutil.which(nome)
        if caminho:
            return caminho
    pytest.skip("no Chromium installed (Debian: apt-get install chromium)")


def dom_depois_dos_scripts(pagina: Path, perfil: Path) -> str:
    comando = [
        navegador(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={perfil}",
        "--virtual-time-budget=5000",
        "--window-size=1200,800",
        "--dump-dom",
        pagina.as_uri(),
    ]
    feito = subprocess.run(comando, capture_output=True, text=True, timeout=120, check=False)
    assert feito.returncode == 0, feito.stderr[-2000:]
    return feito.stdout


def test_gerar_mapa__chromium_draws_markers_polygons_and_legend(
    conn: Conn, cenario: dict[str, Any], tmp_path: Path
) -> None:
    navegador()
    saida = tmp_path / "mapa.html"
    resumo = mapa.gerar_mapa(conn, saida)
    dom = dom_depois_dos_scripts(saida, tmp_path / "perfil")

    def contar(classe: str) -> int:
        return len(re.findall(rf'<path[^>]*class="[^"]*\b{classe}\b', dom))

    assert contar("d2-revisao") == 2
    assert contar("d2-dead-letter") == 1
    assert contar("d2-resolucao") == 4
    assert contar("d2-nivel-2") == 2 and contar("d2-nivel-4") == 1 and contar("d2-nivel-5") == 1
    # Polygons are SVG paths too, without the point classes.
    assert contar("leaflet-interactive") >= 7 + resumo["poligonos"]
    assert 'id="d2-legenda"' in dom and "revisão pendente (2)" in dom
    assert "leaflet-container" in dom
