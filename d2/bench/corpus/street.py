"""A street of the address corpus (d2/bench/address_corpus.py): its CEP Aberto names,
where it lies in the corpus's OSM file, the house numbers its cases use; which CEP Aberto
streets the corpus may name, and where on the map they go.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import shapely
from shapely.geometry.base import BaseGeometry

from d2.bench.corpus import text

# Geometry, in degrees (about 111 km each at the equator).
_COMPRIMENTO = 0.0016  # a street: 3 nodes, ~180 m west to east
_PASSO_X = 0.0022
PASSO_Y = 0.0005  # streets ~55 m apart; houses 11 m north of theirs
CASA_DY = 0.0001
ESCOLA_DY = 0.00025


@dataclass
class Rua:
    """A street of the corpus: its CEP Aberto names, where it lies, the numbers used."""

    uf: str
    cidade: str  # CEP Aberto's name of the município
    municipio: str  # IBGE code
    cep: str  # 8 digits
    bairro: str  # CEP Aberto's bairro
    nome: str  # with its type: "Rua Antônio Maria Coelho"
    uc: str = ""  # IBGE code of the smallest UC holding it (bairro or município)
    x0: float = 0.0
    y: float = 0.0
    numeros: list[str] = field(default_factory=list)
    escola: str | None = None
    postcode_no_osm: bool = False

    @property
    def tipo(self) -> str:
        return self.nome.split(" ", 1)[0]

    @property
    def titulo(self) -> str:
        """The name without its type: "Antônio Maria Coelho"."""
        return self.nome.split(" ", 1)[1]

    def ponto(self, fracao: float = 0.5, dy: float = 0.0) -> tuple[float, float]:
        return (round(self.x0 + _COMPRIMENTO * fracao, 7), round(self.y + dy, 7))


def rua_valida(nome: str) -> bool:
    """A street with a type and a name of words (not "Rua A-A", "Rua 10", "Avenida X - D",
    nor a large user's "Rua Y 389")."""
    partes = nome.split(" ")
    if len(partes) < 2 or partes[0] not in text.TIPOS or " - " in nome:
        return False
    if re.search(r"\d|,|/|\(|s/n|quadra|lote|km\b", nome, re.IGNORECASE):
        return False
    return re.search(r"\s[A-Z](-[A-Z])?$", nome) is None and any(len(p) >= 3 for p in partes[1:])


def nome_de_lugar(rua: str, lugares: set[str]) -> bool:
    """A street named after another place: "Rua Bahia", "Rua Dourados"."""
    return text.dobrar(rua.split(" ", 1)[1]) in lugares


def origens(area: BaseGeometry, ancora: tuple[float, float], n: int) -> list[tuple[float, float]]:
    """Up to n street origins on a fixed grid inside area, nearest the anchor first."""
    if area.is_empty or n == 0:
        return []
    shapely.prepare(area)
    minx, miny, maxx, maxy = area.bounds
    cands = [
        (round(i * _PASSO_X, 7), round(j * PASSO_Y, 7))
        for i in range(int(minx // _PASSO_X), int(maxx // _PASSO_X) + 1)
        for j in range(int(miny // PASSO_Y), int(maxy // PASSO_Y) + 1)
    ]
    cands.sort(key=lambda p: ((p[0] - ancora[0]) ** 2 + (p[1] - ancora[1]) ** 2, p))
    escolhidas: list[tuple[float, float]] = []
    for x, y in cands:
        forma = shapely.box(x, y, x + _COMPRIMENTO, y + ESCOLA_DY)
        if area.contains(forma):
            escolhidas.append((x, y))
            if len(escolhidas) == n:
                break
    return escolhidas
