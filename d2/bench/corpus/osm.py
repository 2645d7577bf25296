"""An OSM XML file written in memory, then at once, as the address corpus's Nominatim
reads it (d2/bench/address_corpus.py's write_osm): nodes, ways, relations, in that order.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import shapely
from shapely.geometry.base import BaseGeometry

_NOS_POR_VIA = 500

_DATA = "2026-01-01T00:00:00Z"


class Osm:
    def __init__(self) -> None:
        self.raiz = ET.Element("osm", version="0.6", generator="d2 address corpus")
        self.nos: list[ET.Element] = []
        self.vias: list[ET.Element] = []
        self.relacoes: list[ET.Element] = []
        self._ultimo = 0

    def _id(self) -> str:
        self._ultimo += 1
        return str(self._ultimo)

    @staticmethod
    def _tags(elemento: ET.Element, tags: dict[str, str]) -> None:
        for chave, valor in tags.items():
            ET.SubElement(elemento, "tag", k=chave, v=valor)

    def no(self, lng: float, lat: float, tags: dict[str, str] | None = None) -> str:
        ident = self._id()
        e = ET.Element("node", id=ident, version="1", timestamp=_DATA,
                       lat=f"{lat:.7f}", lon=f"{lng:.7f}")  # fmt: skip
        self._tags(e, tags or {})
        self.nos.append(e)
        return ident

    def via(self, nos: list[str], tags: dict[str, str]) -> str:
        ident = self._id()
        e = ET.Element("way", id=ident, version="1", timestamp=_DATA)
        for no in nos:
            ET.SubElement(e, "nd", ref=no)
        self._tags(e, tags)
        self.vias.append(e)
        return ident

    def relacao(self, membros: list[tuple[str, str, str]], tags: dict[str, str]) -> None:
        e = ET.Element("relation", id=self._id(), version="1", timestamp=_DATA)
        for tipo, ref, papel in membros:
            ET.SubElement(e, "member", type=tipo, ref=ref, role=papel)
        self._tags(e, tags)
        self.relacoes.append(e)

    def anel(self, coordenadas: list[tuple[float, float]]) -> list[str]:
        """A closed ring as ways of at most _NOS_POR_VIA nodes; their ids."""
        nos = [self.no(x, y) for x, y in coordenadas[:-1]]
        nos.append(nos[0])
        vias = []
        for inicio in range(0, len(nos) - 1, _NOS_POR_VIA - 1):
            vias.append(self.via(nos[inicio : inicio + _NOS_POR_VIA], {}))
        return vias

    def contorno(self, geometria: BaseGeometry, tags: dict[str, str], rotulo: str | None) -> None:
        membros: list[tuple[str, str, str]] = []
        for parte in shapely.get_parts(geometria):
            if not isinstance(parte, shapely.Polygon) or parte.is_empty:
                continue
            membros += [("way", v, "outer") for v in self.anel(list(parte.exterior.coords))]
            for buraco in parte.interiors:
                membros += [("way", v, "inner") for v in self.anel(list(buraco.coords))]
        if rotulo is not None:
            membros.append(("node", rotulo, "label"))
        self.relacao(membros, tags)

    def escrever(self, path: Path) -> None:
        for e in (*self.nos, *self.vias, *self.relacoes):  # nodes, ways, relations
            self.raiz.append(e)
        path.parent.mkdir(parents=True, exist_ok=True)
        ET.ElementTree(self.raiz).write(path, encoding="utf-8", xml_declaration=True)
