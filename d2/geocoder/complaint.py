"""The grammar of a complaint around its address, in a text enderecobr standardised
(upper case, no accents): its clauses, the anchors that tie one to where the citizen is
("aqui", "em frente", "no bairro"), the lead-ins that speak of another place ("moro em"),
the prose a place is spoken of with ("tem um buraco"), a street named after prose
("buraco na Rua X") and the dates a complaint carries ("dia 05/12"). d2.geocoder.parser
cuts the text with them; d2.geocoder.places.interpretation reads the places a clause ties.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from d2.geocoder import fields
from d2.geocoder.vocabulary import CONECTORES, PREPOSICOES

# Prose around an address, in a text enderecobr standardised (upper case, no accents).
# A clause ends at a sentence's end (a dot after a word of five letters or a number:
# "Sta.", "Prof.", "Av." are abbreviations) or at "mas", "porém".
_ORACAO = re.compile(r"(?:(?<=[A-Z]{5})|(?<=\d))\.\s+|\b(?:MAS|POREM|CONTUDO|TODAVIA|ENTRETANTO)\b")
# Words that tie a clause to where the citizen is: "aqui", "em frente", "no bairro",
# "nesta rua". They go, the place words themselves stay for fields to read ("BAIRRO Y",
# "EM FRENTE AO ...", "NA RUA X"), with the preposition a place stands after ("aqui em
# Natal": EM NATAL).
_ANCORA = re.compile(
    r"\bAQUI\b"
    r"|\bN(?:EST|ESS)[AE]\s+(?:RUA|AVENIDA|CIDADE|BAIRRO|ENDERECO|LOCAL)\b"
    r"|\b(?:NO|NESTE|NESSE)\b(?=\s+BAIRRO\b)|(?=\bEM\s+FRENTE\b)"
)
# "moro em", "estou em", "sou de", "moro aqui em": a place the citizen speaks of, not an
# address word ("estou em Campo Grande agora", "moro aqui em Campo Grande" say where the
# writer is, not where the problem is).
_ENTRADA = re.compile(
    r"\b(?:MORO|MORAMOS|RESIDO|RESIDIMOS|TRABALHO|TRABALHAMOS|VIVO|VIVEMOS|SOU|SOMOS"
    r"|ESTOU|ESTAMOS)\s+(?:AQUI\b(?:\s+(?:EM|NA|NO|NAS|NOS)\b)?|(?:EM|NA|NO|NAS|NOS|DE|DA|DO)\b)"
)
# What the citizen says of the place ("tem um buraco", "que fica", "onde"): no name goes
# on past these words; the prose runs to the next separator, preposition ("tem um buraco
# | em Campo Grande"), "aqui" or street named.
_PROSA = re.compile(
    r"\b(?:TEM|TEMOS|HA|EXISTE|EXISTEM|ESTA|ESTAO|FICA|FICAM|QUE|ONDE|POIS|PORQUE|QUANDO"
    r"|PRECISA|PRECISAM)\b[^,;|()\[\]{}<>\n/\\]*?(?=[,;|()\[\]{}<>\n/\\]|\s-|\b(?:EM|NO|NA|NOS"
    r"|NAS|AQUI|RUA|AVENIDA|AV|TRAVESSA|ALAMEDA|ESTRADA|RODOVIA|PRACA|LARGO|BECO)\b|$)"
)
# What may stand around a place a tied clause names: a preposition or an article
# before it, a UF's sigla after it ("aqui em Campo Grande MS").
_ANTES_DO_NOME = frozenset({"EM", "NO", "NA", "NOS", "NAS", "DE", "DA", "DO", "A", "O", "AO"})
# A date in a complaint ("dia 05/12", "desde 03/04/2024") is no house number nor street.
DATA = re.compile(r"\b(?:DIA\s+)?\d{1,2}/\d{1,2}/\d{2,4}\b|\bDIA\s+\d{1,2}/\d{1,2}\b")


@dataclass(frozen=True)
class Trecho:
    """A clause of a complaint: its text, whether an anchor ties it to where the citizen
    is, and whether a lead-in speaks of a place the citizen is ("moro em X")."""

    texto: str
    atado: bool = False
    falado: bool = False


def trechos(padrao: str) -> list[Trecho]:
    """A standardised text's clauses (Trecho): the places a clause with an anchor names
    are the address's ("Moro em Dourados mas trabalho em Campo Grande, aqui na Rua X tem
    um buraco" → DOURADOS untied; CAMPO GRANDE, RUA X tied). Lead-ins ("moro em") and the
    prose a place is spoken of with are out, and a clause with a lead-in is marked. A text
    with no anchor nor lead-in is an address, read as it is: a bairro may be called "Vale
    Quem Tem" (Teresina)."""
    if not (_ANCORA.search(padrao) or _ENTRADA.search(padrao)):
        return [Trecho(padrao)]
    partes: list[Trecho] = []
    for oracao in _ORACAO.split(padrao):
        sem_prosa = _PROSA.sub(",", oracao)
        sem_entrada = _ENTRADA.sub(",", sem_prosa)
        atado = _ANCORA.search(sem_entrada) is not None
        limpa = _ANCORA.sub(",", sem_entrada)
        if limpa.strip(" ,.;"):
            partes.append(Trecho(limpa, atado, sem_entrada != sem_prosa))
    return partes


def so_o_nome(palavras: list[str], inicio: int, fim: int) -> bool:
    """Whether a name found at words inicio..fim (from 1) of a segment is all it says,
    but for a preposition before it and a sigla after it: "EM CAMPO GRANDE" names a
    place, "A ESPERANCA ACABOU" (Esperança, PB) does not."""
    depois = palavras[fim:]
    return all(p in _ANTES_DO_NOME for p in palavras[: inicio - 1]) and (
        not depois or (len(depois) == 1 and len(depois[0]) == 2)
    )


# The words before a street a complaint names ("buraco na Rua X", "pela Avenida Y").
ANTES_DA_RUA = frozenset({*PREPOSICOES, "DA", "DO", "PELA", "PELO"})
# Words that join a name's parts: a street's type after one is inside a name.
# Rua X", "na calçada da Avenida Y"): not CALCADA, PRACA, ACESSO, words of prose too.
RUA_NA_PROSA = frozenset(
    {"RUA", "AVENIDA", "AV", "TRAVESSA", "ALAMEDA", "ESTRADA", "RODOVIA", "BECO"}
)


def rua_depois(palavras: list[str]) -> tuple[int, int] | None:
    """Where the prose before a street ends and the street starts in a segment that names
    it after prose ("gostaria de reclamar do buraco na Rua X", "árvore caída rua X 500"),
    or None: a type of RUA_NA_PROSA with a name after it, after "na", "da", "em"… (which
    go), or after any other word but a connector when a house number follows the name
    (a bairro's name may hold a type: "Emilio de la Rua Bajo"). The caller knows the
    segment does not start with a type."""
    for i in range(1, len(palavras) - 1):
        if palavras[i] not in RUA_NA_PROSA:
            continue
        if i >= 2 and palavras[i - 1] in ANTES_DA_RUA:
            return i - 1, i
        if i >= 3 and fields.ordinal(palavras[i - 1]) and palavras[i - 2] in ANTES_DA_RUA:
            return i - 2, i - 1  # "na 1ª Travessa X": the ordinal is the street's
        if palavras[i - 1] not in CONECTORES and any(p.isdigit() for p in palavras[i + 2 :]):
            return i, i
    return None
