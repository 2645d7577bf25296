"""Real places for the address tests: Campo Grande and Dourados (MS), with
Campo Grande's homonyms in AL and RN, as IBGE-shaped files (squares at their real
places) loaded by the IBGE importer; an OSM file with two real streets
("Rua Antônio Maria Coelho" 1500 in Campo Grande, "Rua Hayel Bon Faker" 2000 in Dourados,
the first repeated in Dourados), a crossing street, a school, administrative boundaries
as OSM has them; a real Nominatim built from it once per session; and a CEP Aberto dump
of those streets for `d2 cep import`.
"""

from __future__ import annotations

import csv
import http.server
import json
import os
import threading
import time
import urllib.parse
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import geopandas
import pytest
import shapely

from d2 import config
from d2.importers import cep, ibge, sample
from d2.worker import loop
from tests.support.nominatim_fixtures import (
    NominatimAmostra,
    apontar_worker,
    construir_nominatim,
    exigir_nominatim,
)

if TYPE_CHECKING:
    from tests.conftest import Server

# CD_MUN → (name, UF's CD, box (x0, y0, x1, y1))
# The address corpus's categories (d2/bench/corpus/), each a way citizens write, and the
# answer its complete cases expect: a house in Centro, Campo Grande (MS).
CORPUS_CATEGORIAS = {
    "completo", "abreviacao", "sem_acento", "minusculas", "sem_virgula", "numero_marcado",
    "milhar_com_ponto", "sem_numero", "complemento", "com_bairro", "referencia",
    "erro_de_digitacao", "homonimo", "rua_com_nome_de_lugar", "cep_sozinho", "cep_contradiz",
    "campos", "lugar_sozinho", "centro_sozinho", "sem_lugar", "sem_sentido", "texto_longo",
    "gps_com_texto",
}  # fmt: skip
CORPUS_UC = "5002704001"
CORPUS_ESPERADO = {
    "uc": CORPUS_UC,
    "metodo": "endereco",
    "confianca": "media",
    "precisao": "numero",
}

MUNICIPIOS = {
    "5002704": ("Campo Grande", "50", (-54.9, -20.8, -54.3, -20.2)),
    "5003702": ("Dourados", "50", (-55.1, -22.5, -54.5, -21.9)),
    "2701357": ("Campo Grande", "27", (-36.6, -10.0, -36.4, -9.8)),
    "2401305": ("Campo Grande", "24", (-37.4, -5.9, -37.2, -5.7)),
}
UFS = {
    "50": ("Mato Grosso do Sul", "MS", "5"),
    "27": ("Alagoas", "AL", "2"),
    "24": ("Rio Grande do Norte", "RN", "2"),
}
REGIOES = {"5": ("Centro-Oeste", "CO"), "2": ("Nordeste", "NE")}
# CD_BAIRRO → (CD_MUN, name, box)
BAIRROS = {
    "500270401": ("5002704", "Centro", (-54.64, -20.48, -54.60, -20.44)),
    "500270402": ("5002704", "Monte Castelo", (-54.64, -20.44, -54.60, -20.40)),
    "500270403": ("5002704", "Jardim dos Estados", (-54.60, -20.48, -54.56, -20.44)),
    "500370201": ("5003702", "Jardim Caramuru", (-54.83, -22.24, -54.79, -22.20)),
    "500370202": ("5003702", "Centro", (-54.83, -22.20, -54.79, -22.16)),
}
# The CEPs of the dump: (CEP, street, bairro, CD_MUN)
CEPS = [
    ("79002220", "Rua Antônio Maria Coelho", "Centro", "5002704"),
    ("79002000", "Avenida Calógeras", "Centro", "5002704"),
    ("79806000", "Rua Hayel Bon Faker", "Jardim Caramuru", "5003702"),
    ("79800000", "", "", "5003702"),
    ("79040400", "Rua Sem Mapa", "Monte Castelo", "5002704"),
]


def _caixa(b: tuple[float, float, float, float]) -> shapely.Polygon:
    return shapely.box(*b)


def escrever_territorio(pasta: Path) -> Path:
    """The places as IBGE 2025 files (the columns the importer reads)."""
    pasta.mkdir(parents=True, exist_ok=True)

    def gravar(linhas: list[dict[str, str]], geoms: list[shapely.Geometry], nome: str) -> None:
        geopandas.GeoDataFrame(linhas, geometry=geoms, crs=4674).to_file(
            pasta / nome, driver="GeoJSON", engine="pyogrio"
        )

    muns = {cd: _caixa(b) for cd, (_, _, b) in MUNICIPIOS.items()}
    ufs = {uf: shapely.union_all([g for cd, g in muns.items() if cd[:2] == uf]) for uf in UFS}
    rgs = {
        rg: shapely.union_all([g for uf, g in ufs.items() if UFS[uf][2] == rg]) for rg in REGIOES
    }
    gravar([{"Pais": "Brasil"}], [shapely.union_all(list(rgs.values()))], "BR_Pais_2025.geojson")
    gravar(
        [{"CD_REGIAO": rg, "NM_REGIAO": n, "SIGLA_RG": s} for rg, (n, s) in REGIOES.items()],
        list(rgs.values()),
        "BR_Regioes_2025.geojson",
    )
    gravar(
        [
            {"CD_UF": uf, "NM_UF": n, "SIGLA_UF": s, "CD_REGIAO": rg}
            for uf, (n, s, rg) in UFS.items()
        ],
        list(ufs.values()),
        "BR_UF_2025.geojson",
    )
    gravar(
        [
            {"CD_MUN": cd, "NM_MUN": n, "CD_UF": uf, "SIGLA_UF": UFS[uf][1]}
            for cd, (n, uf, _) in MUNICIPIOS.items()
        ],
        list(muns.values()),
        "BR_Municipios_2025.geojson",
    )
    gravar(
        [
            {"CD_BAIRRO": cd, "NM_BAIRRO": n, "CD_MUN": mun, "NM_MUN": MUNICIPIOS[mun][0]}
            for cd, (mun, n, _) in BAIRROS.items()
        ],
        [_caixa(b) for _, _, b in BAIRROS.values()],
        "BR_bairros_CD2022.geojson",
    )
    return pasta


class _Osm:
    def __init__(self) -> None:
        self.raiz = ET.Element("osm", version="0.6", generator="d2 tests")
        self.proximo = 0
        self.vias: list[tuple[str, list[str], dict[str, str]]] = []
        self.relacoes: list[tuple[str, str, dict[str, str]]] = []

    def _id(self) -> str:
        self.proximo += 1
        return str(self.proximo)

    def no(self, x: float, y: float, tags: dict[str, str] | None = None) -> str:
        ident = self._id()
        e = ET.SubElement(
            self.raiz, "node", id=ident, version="1", timestamp="2026-01-01T00:00:00Z",
            lat=f"{y:.7f}", lon=f"{x:.7f}",
        )  # fmt: skip
        for k, v in (tags or {}).items():
            ET.SubElement(e, "tag", k=k, v=v)
        return ident

    def via(self, nos: list[str], tags: dict[str, str]) -> str:
        ident = self._id()
        self.vias.append((ident, nos, tags))
        return ident

    def limite(self, b: tuple[float, float, float, float], tags: dict[str, str]) -> None:
        x0, y0, x1, y1 = b
        nos = [self.no(x0, y0), self.no(x1, y0), self.no(x1, y1), self.no(x0, y1)]
        via = self.via([*nos, nos[0]], {})
        self.relacoes.append(
            (self._id(), via, {"type": "boundary", "boundary": "administrative", **tags})
        )

    def rua(
        self, nome: str, x: float, y: float, casas: list[str], cidade: str, cep: str | None = None
    ) -> None:
        self.via(
            [self.no(x + 0.002 * j, y) for j in range(3)], {"highway": "residential", "name": nome}
        )
        for j, casa in enumerate(casas):
            tags = {"addr:street": nome, "addr:housenumber": casa, "addr:city": cidade}
            if cep:
                tags["addr:postcode"] = cep
            self.no(x + 0.001 + 0.001 * j, y + 0.0002, tags)

    def gravar(self, path: Path) -> Path:
        for ident, nos, tags in self.vias:
            e = ET.SubElement(
                self.raiz, "way", id=ident, version="1", timestamp="2026-01-01T00:00:00Z"
            )
            for no in nos:
                ET.SubElement(e, "nd", ref=no)
            for k, v in tags.items():
                ET.SubElement(e, "tag", k=k, v=v)
        for ident, via, tags in self.relacoes:
            e = ET.SubElement(
                self.raiz, "relation", id=ident, version="1", timestamp="2026-01-01T00:00:00Z"
            )
            ET.SubElement(e, "member", type="way", ref=via, role="outer")
            for k, v in tags.items():
                ET.SubElement(e, "tag", k=k, v=v)
        ET.ElementTree(self.raiz).write(path, encoding="utf-8", xml_declaration=True)
        return path


def escrever_osm(path: Path) -> Path:
    osm = _Osm()
    osm.limite(
        (-55.2, -22.6, -54.2, -20.1),
        {"admin_level": "4", "name": "Mato Grosso do Sul", "ref": "MS"},
    )
    for cd, (nome, _, caixa) in MUNICIPIOS.items():
        osm.limite(caixa, {"admin_level": "8", "name": nome, "IBGE:GEOCODIGO": cd})
    osm.no(-54.615, -20.4697, {"place": "city", "name": "Campo Grande"})
    osm.no(-54.806, -22.2211, {"place": "city", "name": "Dourados"})
    osm.no(-36.5, -9.9, {"place": "town", "name": "Campo Grande"})
    osm.no(-37.3, -5.8, {"place": "town", "name": "Campo Grande"})
    osm.no(-54.61, -20.46, {"place": "suburb", "name": "Centro"})
    osm.no(-54.80, -22.23, {"place": "suburb", "name": "Jardim Caramuru"})
    osm.rua(
        "Rua Antônio Maria Coelho", -54.615, -20.465, ["1500", "1520"], "Campo Grande", "79002-220"
    )
    osm.via(
        [osm.no(-54.613, -20.468), osm.no(-54.613, -20.462)],
        {"highway": "residential", "name": "Rua 14 de Julho"},
    )
    osm.no(-54.6125, -20.4655, {"amenity": "school", "name": "Escola Estadual Maria Constança"})
    # POIs named as the address itself: a hospital (Jardim dos Estados), the Santa Casa
    # (Centro), a park (an area: Monte Castelo), and two schools of one name in two
    # bairros (no single bairro for that name).
    osm.no(-54.585, -20.455, {"amenity": "hospital", "name": "Hospital Regional Rosa Pedrossian"})
    osm.no(-54.625, -20.455, {"amenity": "hospital", "name": "Santa Casa de Campo Grande"})
    canto = [(-54.63, -20.43), (-54.61, -20.43), (-54.61, -20.41), (-54.63, -20.41)]
    nos = [osm.no(x, y) for x, y in canto]
    osm.via([*nos, nos[0]], {"leisure": "park", "name": "Parque das Nações Indígenas"})
    osm.no(-54.58, -20.47, {"amenity": "school", "name": "Escola Municipal Padre Tomaz"})
    osm.no(-54.62, -20.42, {"amenity": "school", "name": "Escola Municipal Padre Tomaz"})
    osm.rua("Rua Hayel Bon Faker", -54.81, -22.225, ["2000", "2010"], "Dourados", "79806-000")
    osm.rua("Rua Antônio Maria Coelho", -54.81, -22.228, ["10"], "Dourados")
    return osm.gravar(path)


def escrever_ceps(pasta: Path) -> Path:
    """A CEP Aberto dump of CEPS (one UF file, cities.csv, states.csv)."""
    pasta.mkdir(parents=True, exist_ok=True)
    with (pasta / "states.csv").open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["50", "Mato Grosso do Sul", "MS"]])
    with (pasta / "cities.csv").open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["1", "Campo Grande", "50"], ["2", "Dourados", "50"]])
    ids = {"5002704": "1", "5003702": "2"}
    with (pasta / "ms.cepaberto_parte_1.csv").open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([c, rua, "", b, ids[mun], "50"] for c, rua, b, mun in CEPS)
    return pasta


@pytest.fixture(scope="session")
def nominatim_ms(
    pg_server: Server, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[NominatimAmostra]:
    """A real Nominatim over escrever_osm's file, built once per session."""
    exigir_nominatim()
    home = tmp_path_factory.mktemp("nominatim_ms")
    arquivo = escrever_osm(home / "ms.osm")
    yield construir_nominatim(pg_server, home, arquivo, f"nominatim_ms_{os.getpid()}")


@pytest.fixture
def geocoder_ms_url(
    db_url: str,
    nominatim_ms: NominatimAmostra,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> str:
    """This test's database with the places and their CEPs loaded, the worker pointed at
    nominatim_ms (in process), the cursor seeded."""
    ibge.run_import(db_url, directory=escrever_territorio(tmp_path / "ibge"), progress=False)
    cep.importar(db_url, escrever_ceps(tmp_path / "ceps"))
    return apontar_worker(db_url, nominatim_ms, tmp_path / "home", monkeypatch)


class FalsoNominatim(http.server.BaseHTTPRequestHandler):
    """A stand-in for a Nominatim server (/status, /search): it knows no place, never
    answers in time a query holding "VENENO", says it is down when vivo is False, and
    records every search's parameters."""

    vivo = True
    pedidos: ClassVar[list[dict[str, list[str]]]] = []

    def do_GET(self) -> None:
        parametros = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
        if self.path.startswith("/status"):
            corpo: Any = {"status": 0, "message": "OK"} if self.vivo else {"status": 700}
        else:
            FalsoNominatim.pedidos.append(parametros)
            if "VENENO" in " ".join(v for vs in parametros.values() for v in vs).upper():
                time.sleep(1.5)  # past the D2_GEOCODER_TIMEOUT the tests set
            corpo = []
        dados = json.dumps(corpo).encode()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(dados)))
            self.end_headers()
            self.wfile.write(dados)
        except OSError:
            pass  # the client gave up (its timeout)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def falso_nominatim() -> Iterator[str]:
    """FalsoNominatim on a free port of 127.0.0.1 (its URL)."""
    servidor = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FalsoNominatim)
    FalsoNominatim.vivo = True
    FalsoNominatim.pedidos.clear()
    fio = threading.Thread(target=servidor.serve_forever, daemon=True)
    fio.start()
    try:
        yield f"http://127.0.0.1:{servidor.server_address[1]}"
    finally:
        servidor.shutdown()
        servidor.server_close()


@pytest.fixture
def geocoder_falso_url(
    db_url: str, falso_nominatim: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> str:
    """This test's database with the sample territory, the worker pointed at
    FalsoNominatim (HTTP; 1 s timeout; D2_GEOCODER_TRIES_MAX 3), the cursor seeded."""
    sample.load_sample(db_url)
    monkeypatch.setenv("D2_NOMINATIM_URL", falso_nominatim)
    monkeypatch.setenv("D2_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("D2_GEOCODER_TIMEOUT", "1")
    monkeypatch.setenv("D2_GEOCODER_TRIES_MAX", "3")
    loop.Worker(config.load(), url=db_url).executar(drain=True)  # boot: seeds the cursor
    return db_url
