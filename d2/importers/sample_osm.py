"""An OSM file of the sample territory (d2.importers.sample), for the sample Nominatim.

Each município gets a place node (city or town) near the middle of its settled area,
each bairro a place=suburb node inside its polygon and close to its município's node (so
that Nominatim, which has no boundaries here, files the suburb under that município),
and a few named streets with addressed houses (addr:street, addr:housenumber,
addr:city, some addr:postcode) inside the município's polygon, next to its node. Some
street names repeat across municípios, as they do in Brazil, so a street without its
município is ambiguous.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import shapely

from d2.importers import sample

_DATA = "2026-01-01T00:00:00Z"


@dataclass(frozen=True)
class Logradouro:
    nome: str
    casas: tuple[str, ...]
    cep: str | None = None


# CD_MUN → (place, (lng, lat) of its node, its streets).
LUGARES: dict[str, tuple[str, tuple[float, float], tuple[Logradouro, ...]]] = {
    "1100015": (
        "city",
        (-58.01, -12.51),
        (
            Logradouro("Rua das Palmeiras", ("10", "20", "123"), "78010-100"),
            Logradouro("Rua Marechal Floriano", ("5", "77")),
        ),
    ),
    "1100023": (
        "city",
        (-59.0, -6.0),
        (Logradouro("Avenida Brasil", ("100", "250"), "78200-300"),),
    ),
    "1100031": ("town", (-58.0, -7.5), (Logradouro("Rua do Enclave", ("1", "2")),)),
    "1100049": (
        "town",
        (-54.0, -10.0),
        (Logradouro("Rua Marechal Floriano", ("123", "456"), "78300-200"),),
    ),
    "2100055": (
        "city",
        (-50.51, -12.0),
        (
            Logradouro("Rua das Palmeiras", ("10", "99"), "65010-000"),
            Logradouro("Avenida Beira-Rio", ("1",)),
        ),
    ),
    "2100063": ("town", (-47.5, -10.0), (Logradouro("Rua da Serra", ("15", "30")),)),
    "2200079": ("town", (-44.5, -10.0), (Logradouro("Rua da Lagoa", ("8",), "64500-000"),)),
    "2200087": ("town", (-41.5, -10.0), (Logradouro("Rua das Garças", ("3", "4")),)),
}
# CD_BAIRRO → (lng, lat) of its suburb node: inside the bairro, near its município's node.
SUBURBIOS: dict[str, tuple[float, float]] = {
    "1100015001": (-58.02, -12.52),
    "1100015002": (-57.99, -12.52),
    "1100015003": (-58.01, -12.49),
    "2100055001": (-50.52, -12.0),
    "2100055002": (-50.49, -12.0),
}


class _Writer:
    def __init__(self) -> None:
        self.raiz = ET.Element("osm", version="0.6", generator="d2 sample")
        self._proximo = 0

    def _id(self) -> str:
        self._proximo += 1
        return str(self._proximo)

    def no(self, lng: float, lat: float, tags: dict[str, str] | None = None) -> str:
        ident = self._id()
        elemento = ET.SubElement(
            self.raiz,
            "node",
            id=ident,
            version="1",
            timestamp=_DATA,
            lat=f"{lat:.7f}",
            lon=f"{lng:.7f}",
        )
        for chave, valor in (tags or {}).items():
            ET.SubElement(elemento, "tag", k=chave, v=valor)
        return ident

    def via(self, nos: list[str], tags: dict[str, str]) -> None:
        elemento = ET.SubElement(self.raiz, "way", id=self._id(), version="1", timestamp=_DATA)
        for no in nos:
            ET.SubElement(elemento, "nd", ref=no)
        for chave, valor in tags.items():
            ET.SubElement(elemento, "tag", k=chave, v=valor)


def pontos_da_rua(lng: float, lat: float, k: int) -> list[tuple[float, float]]:
    """The k-th street of a município whose place node is at (lng, lat): a line west-east
    0.004° long, 0.003° apart from the one before, south of the node."""
    y = lat - 0.004 - 0.003 * k
    x0 = lng - 0.006
    return [(x0 + 0.002 * j, y) for j in range(3)]


def write_osm(path: Path) -> Path:
    """Write the sample territory as an .osm (XML) file at path."""
    municipios = sample.municipios()
    bairros = sample.bairros()
    escritor = _Writer()
    vias: list[tuple[list[str], dict[str, str]]] = []
    for codigo, (lugar, (lng, lat), ruas) in LUGARES.items():
        nome, geometria = municipios[codigo]
        assert geometria.contains(shapely.Point(lng, lat)), nome
        escritor.no(lng, lat, {"place": lugar, "name": nome})
        for k, rua in enumerate(ruas):
            pontos = pontos_da_rua(lng, lat, k)
            x0, y = pontos[0]
            assert all(geometria.contains(shapely.Point(p)) for p in pontos), rua.nome
            nos = [escritor.no(x, yy) for x, yy in pontos]
            vias.append((nos, {"highway": "residential", "name": rua.nome}))
            for j, casa in enumerate(rua.casas):
                tags = {
                    "addr:street": rua.nome,
                    "addr:housenumber": casa,
                    "addr:city": nome,
                }
                if rua.cep is not None and j == 0:
                    tags["addr:postcode"] = rua.cep
                escritor.no(x0 + 0.001 + 0.0015 * j, y + 0.0002, tags)
    for codigo, (lng, lat) in SUBURBIOS.items():
        _, nome, geometria = bairros[codigo]
        assert geometria.contains(shapely.Point(lng, lat)), nome
        escritor.no(lng, lat, {"place": "suburb", "name": nome})
    for nos, tags in vias:  # ways after all nodes, as osm2pgsql expects
        escritor.via(nos, tags)
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(escritor.raiz).write(path, encoding="utf-8", xml_declaration=True)
    return path
