"""`d2 map`: the page is self-contained and, opened in headless Chromium, draws the points.

The browser tests need Debian's chromium, which scripts/setup.sh installs (so CI runs
them); they are skipped only where no browser is installed, and install nothing themselves.
"""

from __future__ import annotations

import html
import re
import shutil
import stat
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest

from d2 import config
from d2.ops import html_map, revisoes
from d2.worker import loop
from tests.support import Conn, semear_cursor
from tests.support.events import inserir_evento, payload_normalizada
from tests.support.territorio import Territorio, inserir_uc, poligono, quadrado

NAVEGADORES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


@pytest.fixture
def cenario(conn: Conn, db_url: str) -> dict[str, Any]:
    """Resolved points at three levels, two reviews, dead letters with and without
    coordinates, all through the real worker."""
    territorio = Territorio(conn)
    semear_cursor(conn)
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
    loop.Worker(config.load(), url=db_url, batch_size=50).executar(drain=True)
    return {"territorio": territorio, "resolvidas": resolvidas, "revisoes": revisoes}


def test_gerar_mapa__self_contained_page_with_every_kind_of_point(
    conn: Conn, cenario: dict[str, Any], tmp_path: Path
) -> None:
    saida = tmp_path / "sub" / "mapa.html"
    resumo = html_map.gerar_mapa(conn, saida)
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


def test_gerar_mapa__page_is_readable_by_its_owner_only(conn: Conn, tmp_path: Path) -> None:
    """Citizens' coordinates: mode 0600, even over a world-readable file or a symlink."""
    saida = tmp_path / "mapa.html"
    saida.write_text("old")
    saida.chmod(0o644)
    alvo = tmp_path / "alvo.html"
    alvo.write_text("not the map")
    ligacao = tmp_path / "ligacao.html"
    ligacao.symlink_to(alvo)
    html_map.gerar_mapa(conn, saida)
    html_map.gerar_mapa(conn, ligacao)
    assert stat.S_IMODE(saida.stat().st_mode) == 0o600
    assert not ligacao.is_symlink() and stat.S_IMODE(ligacao.stat().st_mode) == 0o600
    assert alvo.read_text() == "not the map"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".mapa-")] == []


def test_gerar_mapa__limit_bounds_each_kind(
    conn: Conn, cenario: dict[str, Any], tmp_path: Path
) -> None:
    resumo = html_map.gerar_mapa(conn, tmp_path / "m.html", limite=1)
    assert resumo["revisoes"] == 1 and resumo["resolucoes"] == 1


def test_gerar_mapa__empty_database_still_writes_a_page(conn: Conn, tmp_path: Path) -> None:
    resumo = html_map.gerar_mapa(conn, tmp_path / "vazio.html")
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
        "--disable-quic",
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
    resumo = html_map.gerar_mapa(conn, saida)
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


# --- Script injection: hostile names and ids reach the page as text, never as markup -------

# Each payload, if it ran, marks <html data-pwned=N>; the marker must never appear.
HOSTIS = [
    "<img src=x onerror=document.documentElement.dataset.pwned=1>",
    "</script><script>document.documentElement.dataset.pwned=2</script>",
    "\"'><img src=x onerror=document.documentElement.dataset.pwned=3>",
    "javascript:document.documentElement.dataset.pwned=4//<svg onload=alert(4)>",
]

# Appended to a copy of the page: a simulated click and hover on every feature (points and
# polygons), each open popup's and tooltip's text collected with textContent (safe).
ABRIR_TUDO = """
<script>
window.addEventListener('load', () => setTimeout(() => {
  const saida = document.createElement('pre');
  saida.id = 'd2-aberto';
  let abertos = 0;
  const ler = (seletor) => {  // the newest: a closed one fades out for 200 ms
    const todos = document.querySelectorAll(seletor);
    const el = todos[todos.length - 1];
    if (el) { saida.textContent += el.textContent + '\\n'; abertos += 1; }
  };
  for (const chave of Object.keys(window)) {
    const m = window[chave];
    if (!(m instanceof L.Map)) continue;
    const camadas = [];
    m.eachLayer((l) => { if (l.feature) camadas.push(l); });
    for (const l of camadas) {
      if (l.getLatLng) {  // a point: its popup
        l.fire('click', {latlng: l.getLatLng()}, true);
        ler('.leaflet-popup-content');
        m.closePopup();
      } else {  // a polygon: its tooltip
        const onde = l.getBounds().getCenter();
        l.fire('mouseover', {latlng: onde}, true);
        ler('.leaflet-tooltip');
        l.fire('mouseout', {latlng: onde}, true);
      }
    }
    saida.dataset.abertos = String(abertos);
    saida.dataset.camadas = String(camadas.length);
  }
  document.body.appendChild(saida);
}, 50));
</script>
"""


@pytest.fixture
def cenario_hostil(conn: Conn, db_url: str) -> None:
    """UC names and a dead letter's demanda_id and error text, all hostile."""
    brasil = inserir_uc(conn, 7, "Brasil", poligono(quadrado(-50, -30, -30, -10)))
    uf = inserir_uc(conn, 5, "UF", poligono(quadrado(-50, -30, -40, -20)), brasil)
    mun = inserir_uc(conn, 4, HOSTIS[1], poligono(quadrado(-50, -30, -45, -25)), uf)
    inserir_uc(conn, 2, HOSTIS[3], poligono(quadrado(-50, -30, -47.5, -25)), mun)
    semear_cursor(conn)
    inserir_evento(conn, payload_normalizada(-27.0, -49.0))  # resolved in the bairro
    inserir_evento(conn, payload_normalizada(-27.0, -28.5))  # outside every UC: a review
    for hostil in HOSTIS:  # dead letters with coordinates, their id hostile
        inserir_evento(conn, payload_normalizada(-26.0, -44.0, demanda_id=hostil))
    descartada = payload_normalizada(-27.0, -29.0)  # a review an operator discards
    inserir_evento(conn, descartada)
    loop.Worker(config.load(), url=db_url, batch_size=50).executar(drain=True)
    # Error texts as hostile as the rest (the worker's own quote the bad id, cut).
    conn.execute("UPDATE core.dead_letter_queue SET erro = %s", [HOSTIS[0] + HOSTIS[2]])
    # And an operator's words: who and why are theirs to write.
    conn.execute(
        "SELECT * FROM d2.revisao_descartar(%s, %s, %s)",
        [descartada["demanda_id"], HOSTIS[0], HOSTIS[2]],
    )


def test_gerar_mapa__hostile_names_and_ids_run_no_script_in_chromium(
    conn: Conn, cenario_hostil: None, tmp_path: Path
) -> None:
    navegador()
    saida = tmp_path / "mapa.html"
    resumo = html_map.gerar_mapa(conn, saida)
    assert resumo["dead_letters"] == len(HOSTIS) and resumo["revisoes"] == 1
    pagina = tmp_path / "aberto.html"
    texto = saida.read_text(encoding="utf-8")
    pagina.write_text(texto.replace("</body>", ABRIR_TUDO + "</body>"), encoding="utf-8")
    dom = dom_depois_dos_scripts(pagina, tmp_path / "perfil")

    assert "data-pwned" not in dom
    aberto = re.search(r'<pre id="d2-aberto"[^>]*>(.*?)</pre>', dom, re.S)
    assert aberto, "the page's own scripts did not run to the end"
    camadas = int(re.search(r'data-camadas="(\d+)"', aberto.group(0)).group(1))  # type: ignore[union-attr]
    # Every point has a popup, every polygon a tooltip; each was opened.
    assert camadas >= 2 + len(HOSTIS) + 1 + 1
    assert f'data-abertos="{camadas}"' in aberto.group(0)
    conteudo = html.unescape(aberto.group(1))
    # The names are shown as the text they are; a dead letter's id only when a uuid.
    for hostil in HOSTIS:
        assert hostil in conteudo, conteudo
    assert conteudo.count("(não é um uuid)") == len(HOSTIS)
    assert 'href="javascript:' not in dom


def test_gerar_mapa__closed_reviews_one_layer_per_step(
    conn: Conn, db_url: str, tmp_path: Path
) -> None:
    """The near rule's answers, an operator's and a discard: a layer each, with who and why."""
    territorio = Territorio(conn)
    semear_cursor(conn)
    perto = payload_normalizada(-30.0004, -42.0)  # ~44 m south of município B
    atribuida = payload_normalizada(-27.0, -28.5)
    descartada = payload_normalizada(-31.0, -44.0)
    for payload in (perto, atribuida, descartada):
        inserir_evento(conn, payload)
    settings = config.load()
    loop.Worker(settings, url=db_url, batch_size=50).executar(drain=True)
    revisoes.atribuir(
        conn, settings, uuid.UUID(atribuida["demanda_id"]), territorio.mun_b, por="maria"
    )
    revisoes.descartar(
        conn, settings, uuid.UUID(descartada["demanda_id"]), motivo="no mar aberto", por="joão"
    )
    saida = tmp_path / "mapa.html"
    resumo = html_map.gerar_mapa(conn, saida)
    assert resumo["revisoes_tratadas"] == {"proximidade": 1, "operador": 1, "descarte": 1}
    assert resumo["revisoes"] == 0
    pagina = saida.read_text(encoding="utf-8")
    for payload in (perto, atribuida, descartada):
        assert payload["demanda_id"] in pagina
    assert "no mar aberto" in pagina and "Jo\\u00e3o".lower() in pagina.lower()
    if not any(shutil.which(n) for n in NAVEGADORES):
        return
    dom = dom_depois_dos_scripts(saida, tmp_path / "perfil")
    for passo in ("proximidade", "operador", "descarte"):
        assert len(re.findall(rf'<path[^>]*class="[^"]*\bd2-tratada-{passo}\b', dom)) == 1
    assert "revisão descartada por um operador (1)" in dom
