"""What a reference phrase points at: "em frente ao nº 1500 da Rua X", "perto do número
132", "próximo à Escola Y", "na altura do 1500" (a house number, a street, a POI), and
the corners ("Rua X esquina com a Rua Y", "no cruzamento da Av. X com a Rua Y": the
crossing street). d2.geocoder.parser cuts a segment at them and reads what they say into
the fields (d2.geocoder.fields)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from d2.geocoder import fields
from d2.geocoder.complaint import ANTES_DA_RUA, RUA_NA_PROSA
from d2.geocoder.places import gazetteer

_ARTIGO = r"(?:\s+(?:A|O|AS|OS))?"
# The little words between a reference's word and its name ("em frente ao", "esquina com a").
ARTIGOS = r"(?:\s+(?:A|AO|AOS|AS|DA|DAS|DE|DO|DOS|NA|NAS|NO|NOS|COM|C)\b)*"
REFERENCIA = re.compile(
    r"\b(?:EM\s+FRENTE|DEFRONTE|PROXIMO|PROX|PERTO|AO\s+LADO|ATRAS|JUNTO|VIZINHO"
    r"|ALTURA(?=\s+D[OA]S?\b))\b\.?" + ARTIGOS
)
_NUMERO_DA_RUA = re.compile(
    r"(?:(?:N|NO|NRO|NUM|NUMERO|N\.O)\.?\s*)?(\d{1,6}(?:\.\d{3})?)\s+(?:DA|DO|NA|NO|DE)\s+(.+)"
)


@dataclass(frozen=True)
class Referencia:
    """What follows a reference's word: the segment left to read as the address's (a
    street, places, a UF's sigla; None: nothing), and the house number or the POI it
    names, when it names one."""

    segmento: str | None
    numero: str | None = None
    poi: str | None = None


def referencia(resto: str) -> Referencia:
    """What follows "em frente ao", "próximo à": a number of a street (→ the street and
    its number), a number alone or before places (→ the address's number), a street (→
    the street, or the crossing one), or a POI."""
    achado = _NUMERO_DA_RUA.fullmatch(resto)
    if achado is not None:
        return Referencia(achado.group(2), numero=fields.numero_limpo(achado.group(1)))
    palavras = resto.split()
    if not palavras:
        return Referencia(None)
    if fields.numero_sozinho(palavras):
        # "perto do número 132", "em frente ao 132": a segment of its own, read as the
        # number of the address's street (when the street gives none).
        return Referencia(resto)
    if fields.tipo_de(palavras[0]) is not None:
        return Referencia(resto)
    if len(palavras) > 1 and len(palavras[0]) > 2 and palavras[0].isdigit():
        # "altura do 1500 Campo Grande": places after it
        return Referencia(" ".join(palavras[1:]), numero=palavras[0])
    poi, sigla = sem_sigla(palavras)
    return Referencia(sigla, poi=" ".join(poi[: fields.MAX_PALAVRAS]))


def sem_sigla(palavras: list[str]) -> tuple[list[str], str | None]:
    """The words of a POI or a crossing street, and the UF's sigla that closes them if one
    does: the address's, not the name's ("perto do Shopping Campo Grande MS", "esquina
    com a Rua Y MS")."""
    if len(palavras) > 1 and gazetteer.sigla_de_uf(palavras[-1]):
        return palavras[:-1], palavras[-1]
    return palavras, None


_PALAVRA_ESQUINA = r"\bESQ(?:UINA)?\b\.?"
_ESQUINA = re.compile(_PALAVRA_ESQUINA + ARTIGOS)
# "esquina da Rua X com a Rua Y", "no cruzamento da Av. X com a Rua Y", "cruzamento entre
# a Rua X e a Rua Y": both streets after the word, the address's first. "E" joins them
# after "entre", elsewhere only before a street's type ("esquina da Rua X e Rua Y"); a
# "com" must stand alone ("Com. Araújo" is a Comendador).
_TIPOS_NA_PROSA = "|".join(sorted(RUA_NA_PROSA))
_CRUZAMENTO = re.compile(
    rf"(?:{_PALAVRA_ESQUINA}|\bCRUZAMENTO)\s+(?:(?P<entre>ENTRE)|DA|DO|DAS|DOS|DE)\b{_ARTIGO}"
    rf"\s+(?P<rua>\S.*?)\s+(?:COM|(?(entre)E|E(?={_ARTIGO}\s+(?:{_TIPOS_NA_PROSA})\b)))"
    rf"{_ARTIGO}\s+(?P<cruzada>\S.*)"
)


@dataclass(frozen=True)
class Esquina:
    """A segment that names a corner: the address's street (its words as written, or ""),
    the crossing street's words, and the places said in the same breath."""

    rua: str
    cruzada: list[str]
    lugares: list[str]


def esquina(parte: str) -> Esquina | None:
    """The corner a standardised segment names, or None. Prose before "na esquina da …"
    goes ("buraco na esquina da Rua X com a Rua Y"); a place named after the crossing
    street with "em" is a place ("… com a Rua Y em Campo Grande": no street's name holds
    "em"), as after the address's street."""
    cruzamento = _CRUZAMENTO.search(parte)
    if cruzamento is not None:
        antes = parte[: cruzamento.start()].split()
        rua, cruzada = cruzamento["rua"], cruzamento["cruzada"].split()
        lugares = [" ".join(antes)] if antes and antes[-1] not in ANTES_DA_RUA else []
    else:
        simples = _ESQUINA.search(parte)
        if simples is None:
            return None
        rua, cruzada, lugares = parte[: simples.start()].strip(), parte[simples.end() :].split(), []
    cruzada, depois = fields.ate_em(cruzada, 2)
    return Esquina(rua, cruzada, [*lugares, " ".join(depois)] if depois else lugares)
