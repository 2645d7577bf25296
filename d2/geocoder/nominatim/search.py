"""A search and its answers: the question asked (Consulta: by fields, Nominatim's
structured search, or free text), the matches Nominatim gives (Match), or Unavailable (try
again later). Both clients (d2.geocoder.nominatim.local, d2.geocoder.nominatim.remote)
answer in these terms."""

from __future__ import annotations

from dataclasses import dataclass

from d2 import errors
from d2.geocoder import question

# A Nominatim search rank (rank_search) from which a match is a street, a house, a POI.
RANK_RUA = 26


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
        """The cache key: the fields, case and accents folded."""
        campos = "|".join(f"{k}={question.normalizar(v)}" for k, v in sorted(self.campos().items()))
        return f"§{campos}|{self.limite}"


Resultados = tuple[Match, ...] | Unavailable
