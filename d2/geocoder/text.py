"""The words around an address in a complaint: its clauses and anchors, the prose a
street is named after, the corners, and the place words a segment holds."""

from __future__ import annotations

import re
from dataclasses import dataclass

from d2.geocoder.vocabulary import PREPOSICOES

# Prose around an address, in a text enderecobr standardised (upper case, no accents).
# A clause ends at a sentence's end (a dot after a word of five letters or a number:
# "Sta.", "Prof.", "Av." are abbreviations) or at "mas", "porém".
_ORACAO = re.compile(r"(?:(?<=[A-Z]{5})|(?<=\d))\.\s+|\b(?:MAS|POREM|CONTUDO|TODAVIA|ENTRETANTO)\b")
# Words that tie a clause to where the citizen is: "aqui", "em frente", "no bairro",
# "nesta rua". They go, the place words themselves stay for fields to read ("BAIRRO Y",
# "EM FRENTE AO ...", "NA RUA X").
_ANCORA = re.compile(
    r"\bAQUI\b(?:\s+(?:EM|NO|NA|NOS|NAS)\b(?!\s+BAIRRO))?"
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


def trechos(padrao: str) -> list[tuple[str, bool]]:
    """A standardised text's clauses, and whether each holds an anchor: the places a
    clause with one names are the address's ("Moro em Dourados mas trabalho em Campo
    Grande, aqui na Rua X tem um buraco" → DOURADOS untied; CAMPO GRANDE, RUA X tied).
    Lead-ins ("moro em") and the prose a place is spoken of with are out. A text with no
    anchor nor lead-in is an address, read as it is: a bairro may be called "Vale Quem
    Tem" (Teresina)."""
    if not (_ANCORA.search(padrao) or _ENTRADA.search(padrao)):
        return [(padrao, False)]
    partes: list[tuple[str, bool]] = []
    for oracao in _ORACAO.split(padrao):
        sem_entrada = _ENTRADA.sub(",", _PROSA.sub(",", oracao))
        atado = _ANCORA.search(sem_entrada) is not None
        limpa = _ANCORA.sub(",", sem_entrada)
        if limpa.strip(" ,.;"):
            partes.append((limpa, atado))
    return partes


def so_o_nome(palavras: list[str], inicio: int, fim: int) -> bool:
    """Whether a name found at words inicio..fim (from 1) of a segment is all it says,
    but for a preposition before it and a sigla after it: "EM CAMPO GRANDE" names a
    place, "A ESPERANCA ACABOU" (Esperança, PB) does not."""
    depois = palavras[fim:]
    return all(p in _ANTES_DO_NOME for p in palavras[: inicio - 1]) and (
        not depois or (len(depois) == 1 and len(depois[0]) == 2)
    )


# An ordinal as enderecobr writes it ("7º" → 7O, "1ª" → 1A).
_ORDINAL = re.compile(r"\d{1,3}[OA]")


def ordinais(palavras: list[str]) -> list[str]:
    """A place's words with an ordinal before a word read as its number ("7O BEC" → 7
    BEC, "1A ETAPA" → 1 ETAPA), as d2.nome_busca reads the names they are compared with
    (º and ª are no letters there: CEP Aberto's "7º BEC" is "7 bec"); a last "1A" stays."""
    return [
        p[:-1] if i + 1 < len(palavras) and _ORDINAL.fullmatch(p) else p
        for i, p in enumerate(palavras)
    ]


def sem_capital(palavras: list[str]) -> list[str]:
    """A place's words without a last "capital" or "interior" after a UF's sigla ("SP
    capital", "MG interior"): the sigla closes the place, as in "Campo Grande MS"."""
    if len(palavras) > 1 and palavras[-1] in ("CAPITAL", "INTERIOR") and len(palavras[-2]) == 2:
        return palavras[:-1]
    return palavras


# The words before a street a complaint names ("buraco na Rua X", "pela Avenida Y").
_ANTES_DA_RUA = frozenset({*PREPOSICOES, "DA", "DO", "PELA", "PELO"})
# Words that join a name's parts: a street's type after one is inside a name.
CONECTORES = frozenset({"DA", "DAS", "DE", "DO", "DOS", "E"})
# The street types a complaint names its street with, after a preposition ("buraco na
# Rua X", "na calçada da Avenida Y"): not CALCADA, PRACA, ACESSO, words of prose too.
_RUA_NA_PROSA = frozenset(
    {"RUA", "AVENIDA", "AV", "TRAVESSA", "ALAMEDA", "ESTRADA", "RODOVIA", "BECO"}
)


def rua_depois(palavras: list[str]) -> tuple[int, int] | None:
    """Where the prose before a street ends and the street starts in a segment that names
    it after prose ("gostaria de reclamar do buraco na Rua X", "árvore caída rua X 500"),
    or None: a type of _RUA_NA_PROSA with a name after it, after "na", "da", "em"… (which
    go), or after any other word but a connector when a house number follows the name
    (a bairro's name may hold a type: "Emilio de la Rua Bajo"). The caller knows the
    segment does not start with a type."""
    for i in range(1, len(palavras) - 1):
        if palavras[i] not in _RUA_NA_PROSA:
            continue
        if i >= 2 and palavras[i - 1] in _ANTES_DA_RUA:
            return i - 1, i
        if palavras[i - 1] not in CONECTORES and any(p.isdigit() for p in palavras[i + 2 :]):
            return i, i
    return None


def ate_em(palavras: list[str], inicio: int) -> tuple[list[str], list[str]]:
    """A street's or bairro's words up to an "em" that ends them (no such name holds "em":
    "na Rua X em Campo Grande"), and the place named after it; an "em" among the first
    inicio words or last is the name's own."""
    if "EM" not in palavras[inicio:-1]:
        return palavras, []
    em = palavras.index("EM", inicio)
    return palavras[:em], palavras[em + 1 :]


def bairro_e_lugar(palavras: list[str]) -> tuple[list[str], list[str]]:
    """The words after "bairro": the bairro's name, and a place named after it in the same
    breath ("no bairro Jardim Paulista em Campo Grande", "no bairro Centro de Dourados"),
    read as any place segment. No bairro's name holds "em", and "Centro de Y" is Y's
    centre; "Vila da Penha" stays whole (Penha is also a município, SC)."""
    nome, lugar = ate_em(palavras, 1)
    if lugar:
        return nome, lugar
    if len(palavras) > 2 and palavras[0] == "CENTRO" and palavras[1] in ("DE", "DO", "DA"):
        return palavras[:1], palavras[2:]
    return palavras, []


_ARTIGO = r"(?:\s+(?:A|O|AS|OS))?"
# The little words between a reference's word and its name ("em frente ao", "esquina com a").
ARTIGOS = r"(?:\s+(?:A|AO|AOS|AS|DA|DAS|DE|DO|DOS|NA|NAS|NO|NOS|COM|C)\b)*"
# "Rua X esquina com a Rua Y": the crossing street after the word, the address's before.
_PALAVRA_ESQUINA = r"\bESQ(?:UINA)?\b\.?"
_ESQUINA = re.compile(_PALAVRA_ESQUINA + ARTIGOS)
# "esquina da Rua X com a Rua Y", "no cruzamento da Av. X com a Rua Y", "cruzamento entre
# a Rua X e a Rua Y": both streets after the word, the address's first. "E" joins them
# after "entre", elsewhere only before a street's type ("esquina da Rua X e Rua Y"); a
# "com" must stand alone ("Com. Araújo" is a Comendador).
_TIPOS_NA_PROSA = "|".join(sorted(_RUA_NA_PROSA))
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
        lugares = [" ".join(antes)] if antes and antes[-1] not in _ANTES_DA_RUA else []
    else:
        simples = _ESQUINA.search(parte)
        if simples is None:
            return None
        rua, cruzada, lugares = parte[: simples.start()].strip(), parte[simples.end() :].split(), []
    cruzada, depois = ate_em(cruzada, 2)
    return Esquina(rua, cruzada, [*lugares, " ".join(depois)] if depois else lugares)
