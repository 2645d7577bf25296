"""The fields of an address as citizens write them (Entendido): tipo + logradouro,
número or S/N, complemento, bairro, the place names (município, UF), CEP, and what a
reference points at; and how each kind of segment is read into them, the text
standardised with IPEA's enderecobr (upper case, no accents, abbreviations expanded: "R."
→ RUA, "Jd" → JARDIM, "apto" → APARTAMENTO, "nº" → NO): a street (its tipo, name, number
and complements), a house number, a complement, a place segment. d2.geocoder.parser cuts
the text into segments and says which is which; which place names are bairros,
municípios or UFs is decided in SQL against the territory (d2.geocoder.places).

No field sent to the geocoder is longer than MAX_PALAVRAS words, and no address has more
than MAX_SEGMENTOS place segments.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import enderecobr

from d2.geocoder.vocabulary import COMPLEMENTOS, PREPOSICOES, SEM_VALOR, TIPOS

MAX_SEGMENTOS = 8
MAX_PALAVRAS = 12
# A place segment is read whole up to this many words (a complaint's clause names its
# town anywhere in it); d2.candidatos_territorio reads as many.
MAX_PALAVRAS_LUGAR = 24
_NUMERO = re.compile(r"\d{1,6}(?:\.\d{3})?(?:-?[A-Z])?")
_MARCA_NUMERO = re.compile(r"N|NO|NRO|NUM|NUMERO|N\.O|N\.|NO\.")
_SIGLA = re.compile(r"[A-Z]{2}")


@dataclass
class Entendido:
    """The fields understood in one address."""

    tipo: str | None = None  # RUA, AVENIDA, ... (enderecobr's)
    logradouro: str | None = None  # its name, standardised, without the tipo
    numero: str | None = None  # "1500", "1500A", "KM 12"
    sem_numero: bool = False  # S/N
    complemento: str | None = None
    bairro: str | None = None  # named as such ("Bairro X"): a place segment too
    lugares: list[str] = field(default_factory=list)  # place names to look up in SQL
    # The street's name when nothing separated it from the places that may follow it
    # ("Rua X Centro Campo Grande"): places found at its end are cut off in SQL.
    rua_sem_fim: bool = False
    cep: str | None = None  # 8 digits
    # The indexes in lugares of the segments the text marks as a bairro ("Bairro X"):
    # read only as bairros, whatever else their names are (Bela Vista is a município too).
    lugares_bairro: set[int] = field(default_factory=set)
    # Those of a clause with an anchor ("aqui", "em frente": complaint.trechos).
    lugares_atados: set[int] = field(default_factory=set)
    # Those a form labels as the city ("Cidade: X", "Município: X"): a place as such.
    lugares_cidade: set[int] = field(default_factory=set)
    # Those that follow a street and its number with no separator ("rua X 100 centro
    # natal"): the name that ends one is the address's place.
    lugares_cauda: set[int] = field(default_factory=set)
    # Those said after "em" ("na Rua X em Natal"): where a place stands.
    lugares_em: set[int] = field(default_factory=set)
    # Those of a clause whose lead-in speaks of where the citizen is ("moro em X"): a
    # place the text speaks of, not always the address's (complaint.trechos).
    lugares_falados: set[int] = field(default_factory=set)
    referencia: str | None = None  # a POI the address refers to
    esquina: str | None = None  # the crossing street (tipo + name)
    texto: str = ""  # the standardised text, complements out (the free-text query)
    _no_texto: list[str] = field(default_factory=list, repr=False)
    _atado: bool = field(default=False, repr=False)  # the segment being read is tied
    _falado: bool = field(default=False, repr=False)  # … spoken of after a lead-in

    @property
    def rua(self) -> str | None:
        """The street as the geocoder is asked for it: tipo and name."""
        if not self.logradouro:
            return None
        return f"{self.tipo} {self.logradouro}" if self.tipo else self.logradouro

    @property
    def numero_simples(self) -> bool:
        """A plain house number (digits): the geocoder answers the street when it does
        not know the number, so a search without it is not worth a second try."""
        return self.numero is not None and self.numero.isdigit()

    def como_json(self) -> dict[str, Any]:
        campos = {
            "tipo": self.tipo,
            "logradouro": self.logradouro,
            "numero": "S/N" if self.sem_numero and self.numero is None else self.numero,
            "complemento": self.complemento,
            "bairro": self.bairro,
            "cep": self.cep,
            "referencia": self.referencia,
            "esquina": self.esquina,
        }
        return {k: v for k, v in campos.items() if v is not None}


def padronizado(
    padronizar: Callable[[str], str], palavras: list[str], limite: int = MAX_PALAVRAS
) -> str:
    """Words standardised by enderecobr, cut again (standardising can split a word)."""
    return " ".join(padronizar(" ".join(palavras)).split()[:limite])


def e_numero(palavra: str) -> bool:
    return _NUMERO.fullmatch(palavra) is not None


def numero_limpo(palavra: str) -> str:
    """A house number as the geocoder takes it: "1.500" → "1500", "1500-B" → "1500B"."""
    return palavra.replace(".", "").replace("-", "")


def tipo_de(palavra: str) -> str | None:
    padrao = enderecobr.padronizar_tipo_logradouro(palavra)
    return padrao if padrao in TIPOS else None


def inicio_de_numero(palavras: list[str], i: int) -> bool:
    """Whether a house number starts at palavras[i] (a number, "nº 12", S/N, "km 12")."""
    p = palavras[i]
    seguinte = palavras[i + 1] if i + 1 < len(palavras) else ""
    return (
        e_numero(p)
        or p == "SN"
        or (p == "KM" and e_numero(seguinte))
        or (_MARCA_NUMERO.fullmatch(p) is not None and e_numero(seguinte))
    )


def ler_numero(e: Entendido, palavras: list[str], i: int) -> int:
    """Read the house number at palavras[i] into e; returns the index after it."""
    p = palavras[i]
    if p == "SN":
        e.sem_numero = True
        return i + 1
    if p == "KM":
        if e.numero is None:
            e.numero = f"KM {numero_limpo(palavras[i + 1])}"
        return i + 2
    if not e_numero(p):  # a marker ("NO", "NUMERO") before the number
        i += 1
    if e.numero is None:
        e.numero = numero_limpo(palavras[i])
    return i + 1


def ler_complemento(e: Entendido, palavras: list[str], i: int) -> int:
    """Complements from palavras[i] on (standardised by enderecobr); the index after."""
    while i < len(palavras) and palavras[i] in COMPLEMENTOS:
        fim = i + 1
        seguinte = palavras[fim] if fim < len(palavras) else ""
        if palavras[i] not in SEM_VALOR and (0 < len(seguinte) <= 4 or seguinte.isdigit()):
            fim += 1
        parte = " ".join(palavras[i:fim])
        e.complemento = f"{e.complemento} {parte}" if e.complemento else parte
        i = fim
    return i


def complemento_escrito(palavras: list[str], padrao: list[str]) -> bool:
    """Whether a segment enderecobr standardises to a complement starts with one as
    written: the word itself ("Casa 2", "Fundos"), or its abbreviation with a value
    ("BL 3", "AP 12"); chat's "blz" (beleza) before prose is no BLOCO."""
    seguinte = palavras[1] if len(palavras) > 1 else ""
    valor = e_numero(seguinte) or 0 < len(seguinte) <= 2
    return palavras[0] == padrao[0] or valor or padrao[0] in SEM_VALOR


def segmento_de_complemento(e: Entendido, padrao: list[str]) -> list[str]:
    """A segment that starts with a complement, read into e; the places after it. A
    condomínio with a name is a place itself (CEP Aberto's bairros: "Condomínio Porto
    Seguro" of Rio das Ostras, not Porto Seguro, BA); its number or block is not."""
    nome = len(padrao) > 1 and not e_numero(padrao[1]) and padrao[1] not in COMPLEMENTOS
    if padrao[0] == "CONDOMINIO" and nome:
        return padrao
    return padrao[ler_complemento(e, padrao, 0) :]


def ler_rua(e: Entendido, palavras: list[str], com_tipo: bool) -> list[str]:
    """A street segment: tipo, name, number, complements; returns what follows them
    (places, when nothing separated them)."""
    if not palavras:
        return []
    i = 0
    tipo = tipo_de(palavras[0]) if com_tipo else None
    if tipo is not None:
        i = 1
    nome: list[str] = []
    # A number right after the tipo is the name ("Rua 14 de Julho", "Rua 10").
    while i < len(palavras) and not (nome and inicio_de_numero(palavras, i)):
        nome.append(palavras[i])
        i += 1
    if not nome:
        return palavras
    sigla: list[str] = []
    if (
        i == len(palavras)
        and len(nome) > 1
        and enderecobr.padronizar_estados_para_sigla(nome[-1]) == nome[-1]
    ):
        sigla = [nome.pop()]  # "Rua Bahia Campo Grande MS": a UF, not the street's
    e.tipo = tipo
    e.logradouro = padronizado(enderecobr.padronizar_logradouros, nome)
    if i == len(palavras):
        e.rua_sem_fim = True  # unless the next segment is its number (the caller sees)
        return sigla
    i = ler_numero(e, palavras, i)
    resto = enderecobr.padronizar_complementos(" ".join(palavras[i:])).split()
    return resto[ler_complemento(e, resto, 0) :]


def rua_do_segmento(e: Entendido, palavras: list[str], com_tipo: bool, numero: bool) -> list[str]:
    """A street segment read into e; returns the places after it. When its number follows
    (numero), the whole segment was the street, a last word like a sigla included
    ("Avenida José da Silva Sé, 556")."""
    resto = ler_rua(e, palavras, com_tipo=com_tipo)
    if e.rua_sem_fim and numero:
        e.rua_sem_fim = False
        if resto and e.logradouro:
            nome = [*e.logradouro.split(), *resto]
            e.logradouro = padronizado(enderecobr.padronizar_logradouros, nome)
            resto = []
    return resto


def ler_lugar(e: Entendido, palavras: list[str], *, papel: set[int] | None = None) -> None:
    """A place segment: bairro, município and UF names, in any order; a final two-letter
    word is also looked up alone (a UF's sigla: "Campo Grande MS"). papel: the set of
    Entendido the segment's index goes in (lugares_cidade, lugares_cauda)."""
    if not palavras or len(e.lugares) >= MAX_SEGMENTOS:
        return
    if len(palavras) > 1 and palavras[0] in PREPOSICOES:
        # "em Natal", "no Jardim X": the place, and where it stands (after "em": what a
        # place is said with, d2.geocoder.places.position).
        if palavras[0] == "EM":
            e.lugares_em.add(len(e.lugares))
        palavras = palavras[1:]
    palavras, inicio = ordinais(sem_capital(palavras[-MAX_PALAVRAS_LUGAR:])), len(e.lugares)
    if len(palavras) == 1 and _SIGLA.fullmatch(palavras[0]):
        e.lugares.append(palavras[0])  # a UF's sigla as written (enderecobr drops "RR")
    else:
        e.lugares.append(padronizado(enderecobr.padronizar_bairros, palavras, MAX_PALAVRAS_LUGAR))
    e._no_texto.append(e.lugares[-1])
    if papel is not None:
        papel.add(inicio)
    if len(palavras) > 1 and _SIGLA.fullmatch(palavras[-1]):
        e.lugares.append(palavras[-1])
    if e._atado:
        e.lugares_atados.update(range(inicio, len(e.lugares)))
    if e._falado:
        e.lugares_falados.update(range(inicio, len(e.lugares)))


def numero_sozinho(palavras: list[str]) -> bool:
    """A segment that is only a house number ("1500", "nº 1500", "S/N", "km 12")."""
    if not palavras or len(palavras) > 2 or not inicio_de_numero(palavras, 0):
        return False
    return len(palavras) == 1 or palavras[0] in ("KM", "N", "NO", "NRO", "NUM", "NUMERO")


# An ordinal as enderecobr writes it ("7º" → 7O, "1ª" → 1A).
_ORDINAL = re.compile(r"\d{1,3}[OA]")


def ordinal(palavra: str) -> bool:
    """Whether a word is an ordinal as enderecobr writes it ("1ª" → 1A, "7º" → 7O)."""
    return _ORDINAL.fullmatch(palavra) is not None


def rua_com_ordinal(palavras: list[str]) -> list[str]:
    """A street whose type an ordinal precedes ("1ª Travessa São Vicente", as enderecobr
    writes it 1A TRAVESSA …) with its type first, the ordinal its name's first word."""
    if len(palavras) > 2 and _ORDINAL.fullmatch(palavras[0]) and tipo_de(palavras[1]):
        return [palavras[1], palavras[0], *palavras[2:]]
    return palavras


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


def ate_em(palavras: list[str], inicio: int) -> tuple[list[str], list[str]]:
    """A street's or bairro's words up to an "em" that ends them (no such name holds "em":
    "na Rua X em Campo Grande"), and the place named after it (read into
    Entendido.lugares_em by the caller); an "em" among the first inicio words or last is
    the name's own."""
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


def cep_formatado(cep: str | None) -> str | None:
    return f"{cep[:5]}-{cep[5:]}" if cep and len(cep) == 8 else None
