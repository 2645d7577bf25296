"""The territorial inference: which UC an address names, from its bairro, município and
UF (d2.candidatos_territorio finds the names in SQL; the rules live here).

No guess when the text is ambiguous: a bairro counts only with its município named
("Centro" exists in thousands of places), two municípios named or a município outside
the UF named is no answer, and a name inside a longer name ("Boreal" in "Nova Boreal")
is not a name of its own.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field

from psycopg.rows import dict_row

from d2 import db
from d2.geocoder import text

BAIRRO, MUNICIPIO, UF = 2, 4, 5
# A segment that starts like a street names the street, whose name is often a place's
# ("Rua Bahia", "Avenida São Paulo"): read only when the address has no other segment.
_LOGRADOURO = re.compile(
    r"^(rua|r|avenida|av|travessa|tv|alameda|al|praca|praça|estrada|est|rodovia|rod|largo"
    r"|beco|viela|via|servidao|servidão)\b\.?",
    re.IGNORECASE,
)


def segmentos_lidos(endereco: text.Endereco) -> list[tuple[int, str]]:
    """The segments the inference reads (index, text): not a street's, unless alone."""
    todos = list(enumerate(endereco.segmentos[:12]))
    fora_da_rua = [(i, s) for i, s in todos if not _LOGRADOURO.match(s.strip())]
    return fora_da_rua or todos


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
    exato: bool = True  # False: a misspelling proposed by d2.geocoder.names


@dataclass
class Inference:
    uc: Candidate | None = None  # the most precise UC the text names, when credible
    municipio: Candidate | None = None
    ufs: set[str] = field(default_factory=set)  # the UFs the text names
    motivo: Reason | None = None

    def contem(self, cadeia: tuple[str, ...]) -> bool:
        """Whether a place with this chain (a geocoded point's) is where the text says:
        inside the município named, or the UF named when no município is."""
        if self.municipio is not None:
            return self.municipio.unidade_civica_id in cadeia
        return bool(self.ufs) and self.ufs <= set(cadeia)


def inferir_muitos(conn: db.Connection, enderecos: list[text.Endereco]) -> list[Inference]:
    """One Inference per address, in order, from one SQL statement."""
    ordens: list[int] = []
    segmentos: list[int] = []
    textos: list[str] = []
    for i, endereco in enumerate(enderecos):
        for j, segmento in segmentos_lidos(endereco):
            ordens.append(i)
            segmentos.append(j)
            textos.append(segmento)
    por_endereco: list[list[Candidate]] = [[] for _ in enderecos]
    if textos:
        with db.mapped_errors(), conn.cursor(row_factory=dict_row) as cur:
            linhas = cur.execute(
                db.q("geocoder_candidates"),
                {"ordens": ordens, "segmentos": segmentos, "textos": textos},
            ).fetchall()
        for linha in linhas:
            por_endereco[linha["ordem"]].append(
                Candidate(
                    linha["unidade_civica_id"],
                    linha["nivel"],
                    linha["nome"],
                    tuple(linha["cadeia_ucs"] or ()),
                    linha["segmento"],
                    linha["inicio"],
                    linha["fim"],
                )
            )
    return [decidir(c) for c in por_endereco]


def dentro_de_outro(c: Candidate, todos: list[Candidate]) -> bool:
    return any(
        o.segmento == c.segmento
        and o.inicio <= c.inicio
        and c.fim <= o.fim
        and (o.fim - o.inicio) > (c.fim - c.inicio)
        for o in todos
    )


def decidir(candidatos: list[Candidate]) -> Inference:
    """The rules, over the names found in one address."""
    nomes = [c for c in candidatos if not dentro_de_outro(c, candidatos)]
    ufs = {c.unidade_civica_id: c for c in nomes if c.nivel == UF}
    municipios = {c.unidade_civica_id: c for c in nomes if c.nivel == MUNICIPIO}
    bairros = {c.unidade_civica_id: c for c in nomes if c.nivel == BAIRRO}
    resultado = Inference(ufs=set(ufs))
    if municipios:
        coerentes = [m for m in municipios.values() if set(ufs) <= set(m.cadeia_ucs)]
        if not coerentes:
            resultado.motivo = Reason.CONTRADITORIO if ufs else Reason.AMBIGUO
            return resultado
        if len(coerentes) > 1:
            resultado.motivo = Reason.AMBIGUO
            return resultado
        municipio = resultado.municipio = resultado.uc = coerentes[0]
        nos_bairros = [b for b in bairros.values() if municipio.unidade_civica_id in b.cadeia_ucs]
        if len(nos_bairros) == 1:
            resultado.uc = nos_bairros[0]
        return resultado
    if len(ufs) == 1:
        resultado.uc = next(iter(ufs.values()))
        return resultado
    resultado.motivo = Reason.AMBIGUO if (ufs or bairros) else Reason.NAO_ENCONTRADO
    return resultado
