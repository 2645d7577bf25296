"""The words of the territorial inference (which UC an address names, answered at
`inferencia`/`baixa`): the levels it names, a place name found in the text (Candidate: by
d2.candidatos_territorio in SQL), why no UC was credible (Reason, also the reason an
address demand is discarded), and the rule that a name inside a longer one ("Boreal" in
"Nova Boreal") is no name of its own. The rules that weigh the names are in
d2.geocoder.places.decision and d2.geocoder.places.gazetteer.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

BAIRRO, MUNICIPIO, UF = 2, 4, 5


class Reason(enum.StrEnum):
    """Why the inference gave no UC (also the reason an address demand is discarded)."""

    NAO_ENCONTRADO = "nao_encontrado"  # no bairro, município or UF named
    AMBIGUO = "ambiguo"  # several places fit, or a bairro with no município
    CONTRADITORIO = "contraditorio"  # the município named is not in the UF named


@dataclass(frozen=True)
class Candidate:
    unidade_civica_id: str
    nivel: int
    nome: str
    cadeia_ucs: tuple[str, ...]
    segmento: int
    inicio: int
    fim: int
    exato: bool = True  # False: a misspelling proposed by d2.geocoder.places.names


def dentro_de_outro(c: Candidate, todos: list[Candidate]) -> bool:
    return any(
        o.segmento == c.segmento
        and o.inicio <= c.inicio
        and c.fim <= o.fim
        and (o.fim - o.inicio) > (c.fim - c.inicio)
        for o in todos
    )
