"""The address text of a demanda.normalizada: its fields cleaned and bounded, the part of
a long text that holds the address, and the clauses and anchors of a complaint."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from d2.geocoder.vocabulary import PREPOSICOES

# Longer texts are cut: a real address fits, and 100 kB of text must cost no more than
# an address does (the geocoder, the SQL inference and the stored column all see this).
LIMITE = 300
_CEP = re.compile(r"(?<!\d)(\d{5})[-.\s]?(\d{3})(?!\d)")
# Control characters, and the format/surrogate/private-use ones, become spaces.
_CATEGORIAS_FORA = {"Cc", "Cf", "Cs", "Co", "Cn"}
_ESPACOS = re.compile(r"\s+")
# The label a citizen (or a form) writes before the address in a longer text ("... O
# mato está alto. Endereço: Rua X, 10, Campo Grande"): the address is what follows the
# last one. Looked for among the last few mentions of the word only, so the work stays
# a few scans of the text, however long or hostile.
_ROTULO = re.compile(r"endere[cç]o\s*:")
_MENCOES = 8
# A street named in a long text with no label ("... passei de novo ontem. Aqui na Rua X,
# 10, Centro, tem um buraco"): a street type and a word; or words that say where the
# citizen is ("aqui no Jardim X", "estou em Corumbá", "em frente ao", "no bairro Y");
# and where a sentence ends.
_RUA = re.compile(
    r"\b(?:rua|avenida|av|travessa|alameda|estrada|rodovia|pra[cç]a|largo|beco)\b\.?\s+\w"
    r"|\baqui\s+(?:em|n[oa]s?)\s+\w|\best(?:ou|amos)\s+(?:em|n[oa])\s+\w"
    r"|\bem\s+frente\b|\b(?:no|neste|nesse)\s+bairro\b",
    re.IGNORECASE,
)
_FIM_DE_FRASE = re.compile(r"[.!?\n]\s")
_FRASE_MAX = 200  # how far back a sentence's start is looked for


@dataclass(frozen=True)
class Endereco:
    original: str  # what a resolution stores as endereco_original
    cep: str | None  # "ddddd-ddd"
    # The payload's fields apart, cleaned (the address ladder reads them for what they
    # are: d2.geocoder.fields): entidades_extraidas.endereco and .nomeRua.
    texto: str | None = None  # what follows its label ("Endereço: ..."), when it has one
    rua: str | None = None


def limpar(texto: str) -> str:
    """Control characters out, whitespace collapsed, cut to LIMITE characters."""
    limpo = "".join(
        " " if unicodedata.category(c) in _CATEGORIAS_FORA else c for c in texto[: LIMITE * 4]
    )
    return _ESPACOS.sub(" ", limpo).strip()[:LIMITE].strip()


def rotulado(texto: str) -> str:
    """The address a text labels ("Endereço: Rua X, 10"): what follows its last label,
    found whatever the text's length; the text itself when it has none (or nothing
    follows it)."""
    minusculo = texto.lower()
    if len(minusculo) != len(texto):  # a letter whose lower case is longer: no label
        return texto
    fim = len(minusculo)
    for _ in range(_MENCOES):
        inicio = minusculo.rfind("endere", 0, fim)
        if inicio < 0:
            break
        achado = _ROTULO.match(minusculo, inicio)
        if achado is not None and (inicio == 0 or not minusculo[inicio - 1].isalnum()):
            depois = texto[achado.end() :]
            return depois if depois.strip() else texto
        fim = inicio + len("endere") - 1
    return texto


def localizado(texto: str) -> str:
    """A long text's address wherever it stands: when no street is named within what is
    read (LIMITE characters), the text from the sentence that names its first street on
    (a complaint, then "Aqui na Rua X, 10, Centro, Campo Grande"); the text itself
    otherwise. One scan."""
    if len(texto) <= LIMITE:
        return texto
    rua = _RUA.search(texto)
    if rua is None or rua.start() < LIMITE - 40:
        return texto
    inicio = max(0, rua.start() - _FRASE_MAX)
    fins = [m.end() for m in _FIM_DE_FRASE.finditer(texto, inicio, rua.start())]
    return texto[fins[-1] if fins else rua.start() :]


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


def normalizar(texto: str) -> str:
    sem_acento = unicodedata.normalize("NFKD", texto.casefold())
    return _ESPACOS.sub(" ", "".join(c for c in sem_acento if not unicodedata.combining(c))).strip()


def _cep(texto: str) -> str | None:
    achado = _CEP.search(texto)
    return f"{achado.group(1)}-{achado.group(2)}" if achado else None


def do_payload(payload: Any) -> Endereco | None:
    """The address of a payload's entidades_extraidas (endereco, nomeRua, cep), or None
    when it has no usable text."""
    if not isinstance(payload, dict):
        return None
    entidades = payload.get("entidades_extraidas")
    if not isinstance(entidades, dict):
        return None
    partes: list[str] = []
    campos: dict[str, str] = {}
    for campo in ("endereco", "nomeRua"):
        valor = entidades.get(campo)
        if isinstance(valor, str):
            limpo = limpar(valor)
            campo_limpo = limpar(localizado(rotulado(valor))) if campo == "endereco" else limpo
            if campo_limpo:
                campos[campo] = campo_limpo
            if limpo and not any(normalizar(limpo) in normalizar(p) for p in partes):
                partes.append(limpo)
    cep_campo = entidades.get("cep")
    cep = _cep(cep_campo) if isinstance(cep_campo, str) else None
    texto = limpar(", ".join(partes))
    cep = cep or _cep(texto)
    if cep is not None and _cep(texto) is None:
        texto = limpar(f"{texto}, {cep}" if texto else cep)
    if not any(c.isalnum() for c in texto):
        return None
    return Endereco(texto, cep, campos.get("endereco"), campos.get("nomeRua"))


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
