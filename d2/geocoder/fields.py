"""Understanding an address as citizens write it: the text standardised with IPEA's
enderecobr (upper case, no accents, abbreviations expanded: "R." → RUA, "Jd" → JARDIM,
"apto" → APARTAMENTO, "nº" → NO) and split into fields — tipo + logradouro, número or
S/N, complemento, bairro, the place names (município, UF), CEP — plus what a reference
phrase points at ("em frente ao nº 1500 da Rua X", "perto do número 132", "próximo à
Escola Y", "esquina com Rua Z"). A preposition before a street or a bairro ("na Rua X")
is not its name; the prose around an address is not either, and a clause with an anchor
("aqui", "em frente") names the address's places (text.trechos). Splitting is ours
(enderecobr 0.3 standardises fields, it does not find them); which place names are
bairros, municípios or UFs is decided in SQL against the territory (d2.geocoder.places).

The work is bounded whatever the text: it is cut to question.LIMITE characters before
anything reads it, to MAX_SEGMENTOS segments of MAX_PALAVRAS words, every expression runs
in linear time (no nested quantifiers, no back-references), and no field sent to the
geocoder is longer than MAX_PALAVRAS words.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import enderecobr

from d2.geocoder import gazetteer, question, text
from d2.geocoder.vocabulary import COMPLEMENTOS, PREPOSICOES, SEM_VALOR, TIPOS

MAX_SEGMENTOS = 8
MAX_PALAVRAS = 12

_TRACOS = re.compile("[\u2010-\u2015\u2212]")
_CEP = re.compile(r"(?<![\d.])(\d{2})\.?(\d{3})[-.\s]?(\d{3})(?![\d.])")
_PALAVRA_CEP = re.compile(r"\bCEP\b\s*[:.]?")
# A date in a complaint ("dia 05/12", "desde 03/04/2024") is no house number nor street.
_DATA = re.compile(r"\b(?:DIA\s+)?\d{1,2}/\d{1,2}/\d{2,4}\b|\bDIA\s+\d{1,2}/\d{1,2}\b")
# S/N, also written without its slash ("rua principal s n centro": no punctuation).
_SN = re.compile(r"\bS\s*/\s*N(?:O|\.)?(?![A-Z0-9])|\bS\.\s*N\b\.?|\bS\s+N\b|\bSEM\s+NUMERO\b")
# Field separators: punctuation, a dash between spaces, or glued before a final sigla
# ("Campo Grande-MS"); a dash inside a name ("Beira-Rio", "Xique-Xique") stays.
_SEPARADOR = re.compile(r"[,;|()\[\]{}<>\n/\\]|\s-+\s*|-+\s|(?<=[A-Z])-(?=[A-Z]{2}(?![A-Z0-9]))")
_NAO_PALAVRA = re.compile(r"[^A-Z0-9' .-]")
_ESPACOS = re.compile(r"\s+")
_NUMERO = re.compile(r"\d{1,6}(?:\.\d{3})?(?:-?[A-Z])?")
_MARCA_NUMERO = re.compile(r"N|NO|NRO|NUM|NUMERO|N\.O|N\.|NO\.")
_REFERENCIA = re.compile(
    r"\b(?:EM\s+FRENTE|DEFRONTE|PROXIMO|PROX|PERTO|AO\s+LADO|ATRAS|JUNTO|VIZINHO"
    r"|ALTURA(?=\s+D[OA]S?\b))\b\.?" + text.ARTIGOS
)
_NUMERO_DA_RUA = re.compile(
    r"(?:(?:N|NO|NRO|NUM|NUMERO|N\.O)\.?\s*)?(\d{1,6}(?:\.\d{3})?)\s+(?:DA|DO|NA|NO|DE)\s+(.+)"
)
_BAIRRO = re.compile(r"(?:BAIRRO|BRO|B)\b\.?\s+(.+)")
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
    # Those of a clause with an anchor ("aqui", "em frente": text.trechos).
    lugares_atados: set[int] = field(default_factory=set)
    referencia: str | None = None  # a POI the address refers to
    esquina: str | None = None  # the crossing street (tipo + name)
    texto: str = ""  # the standardised text, complements out (the free-text query)
    _no_texto: list[str] = field(default_factory=list, repr=False)
    _atado: bool = field(default=False, repr=False)  # the segment being read is tied

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


def _palavras(segmento: str) -> list[str]:
    # Twice the field's bound: with no separator, the município ends the street's segment.
    palavras = _NAO_PALAVRA.sub(" ", segmento).split()[: 2 * MAX_PALAVRAS]
    return [p.strip(".-'") or p for p in palavras if p.strip(".-'")]


def _sem_preposicao(palavras: list[str]) -> list[str]:
    """A segment's words without the preposition before its street or bairro ("na Rua X"
    → RUA X, and "aqui na Rua X" of a long text); "NO 12" stays (enderecobr writes "nº"
    NO)."""
    if len(palavras) > 2 and palavras[0] == "AQUI" and palavras[1] in PREPOSICOES:
        palavras = palavras[1:]
    if len(palavras) > 1 and palavras[0] in PREPOSICOES:
        seguinte = palavras[1]
        if tipo_de(seguinte) is not None or _BAIRRO.fullmatch(" ".join(palavras[1:])):
            return palavras[1:]
    return palavras


def _padrao(padronizar: Callable[[str], str], palavras: list[str]) -> str:
    """Words standardised by enderecobr, cut again (standardising can split a word)."""
    return " ".join(padronizar(" ".join(palavras)).split()[:MAX_PALAVRAS])


def _e_numero(palavra: str) -> bool:
    return _NUMERO.fullmatch(palavra) is not None


def _numero(palavra: str) -> str:
    """A house number as the geocoder takes it: "1.500" → "1500", "1500-B" → "1500B"."""
    return palavra.replace(".", "").replace("-", "")


def tipo_de(palavra: str) -> str | None:
    padrao = enderecobr.padronizar_tipo_logradouro(palavra)
    return padrao if padrao in TIPOS else None


def _inicio_de_numero(palavras: list[str], i: int) -> bool:
    """Whether a house number starts at palavras[i] (a number, "nº 12", S/N, "km 12")."""
    p = palavras[i]
    seguinte = palavras[i + 1] if i + 1 < len(palavras) else ""
    return (
        _e_numero(p)
        or p == "SN"
        or (p == "KM" and _e_numero(seguinte))
        or (_MARCA_NUMERO.fullmatch(p) is not None and _e_numero(seguinte))
    )


def _ler_numero(e: Entendido, palavras: list[str], i: int) -> int:
    """Read the house number at palavras[i] into e; returns the index after it."""
    p = palavras[i]
    if p == "SN":
        e.sem_numero = True
        return i + 1
    if p == "KM":
        if e.numero is None:
            e.numero = f"KM {_numero(palavras[i + 1])}"
        return i + 2
    if not _e_numero(p):  # a marker ("NO", "NUMERO") before the number
        i += 1
    if e.numero is None:
        e.numero = _numero(palavras[i])
    return i + 1


def _ler_complemento(e: Entendido, palavras: list[str], i: int) -> int:
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


def _complemento(e: Entendido, padrao: list[str]) -> list[str]:
    """A segment that starts with a complement, read into e; the places after it. A
    condomínio with a name is a place itself (CEP Aberto's bairros: "Condomínio Porto
    Seguro" of Rio das Ostras, not Porto Seguro, BA); its number or block is not."""
    nome = len(padrao) > 1 and not _e_numero(padrao[1]) and padrao[1] not in COMPLEMENTOS
    if padrao[0] == "CONDOMINIO" and nome:
        return padrao
    return padrao[_ler_complemento(e, padrao, 0) :]


def _ler_rua(e: Entendido, palavras: list[str], com_tipo: bool) -> list[str]:
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
    while i < len(palavras) and not (nome and _inicio_de_numero(palavras, i)):
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
    e.logradouro = _padrao(enderecobr.padronizar_logradouros, nome)
    if i == len(palavras):
        e.rua_sem_fim = True  # unless the next segment is its number (the caller sees)
        return sigla
    i = _ler_numero(e, palavras, i)
    resto = enderecobr.padronizar_complementos(" ".join(palavras[i:])).split()
    return resto[_ler_complemento(e, resto, 0) :]


def _lugar(e: Entendido, palavras: list[str]) -> None:
    """A place segment: bairro, município and UF names, in any order; a final two-letter
    word is also looked up alone (a UF's sigla: "Campo Grande MS")."""
    if not palavras or len(e.lugares) >= MAX_SEGMENTOS:
        return
    palavras, inicio = text.ordinais(text.sem_capital(palavras[-MAX_PALAVRAS:])), len(e.lugares)
    e.lugares.append(_padrao(enderecobr.padronizar_bairros, palavras))
    e._no_texto.append(e.lugares[-1])
    if len(palavras) > 1 and _SIGLA.fullmatch(palavras[-1]):
        e.lugares.append(palavras[-1])
    if e._atado:
        e.lugares_atados.update(range(inicio, len(e.lugares)))


def _referencia(e: Entendido, resto: str) -> str | None:
    """What follows "em frente ao", "próximo à": a number of a street (→ the street and
    its number), a number alone or before places (→ the address's number), a street (→
    the street, or the crossing one), or a POI. Returns a segment to read."""
    achado = _NUMERO_DA_RUA.fullmatch(resto)
    if achado is not None:
        e.numero = e.numero or _numero(achado.group(1))
        return achado.group(2)
    palavras = resto.split()
    if not palavras:
        return None
    if _numero_sozinho(palavras):
        # "perto do número 132", "em frente ao 132": a segment of its own, read as the
        # number of the address's street (when the street gives none).
        return resto
    if tipo_de(palavras[0]) is not None:
        return resto
    if len(palavras) > 1 and len(palavras[0]) > 2 and palavras[0].isdigit():
        e.numero = e.numero or palavras[0]  # "altura do 1500 Campo Grande": places after it
        return " ".join(palavras[1:])
    poi, sigla = _sem_sigla(palavras)
    e.referencia = e.referencia or " ".join(poi[:MAX_PALAVRAS])
    return sigla


def _sem_sigla(palavras: list[str]) -> tuple[list[str], str | None]:
    """The words of a POI or a crossing street, and the UF's sigla that closes them if one
    does: the address's, not the name's ("perto do Shopping Campo Grande MS", "esquina
    com a Rua Y MS")."""
    if len(palavras) > 1 and gazetteer.sigla_de_uf(palavras[-1]):
        return palavras[:-1], palavras[-1]
    return palavras, None


def _segmentos(bruto: str, e: Entendido) -> list[tuple[str, bool]]:
    """The text standardised, its CEP taken out, cut into segments at separators, at
    reference phrases and at the prose around them (text.trechos), each with whether it
    is tied to an anchor."""
    texto = enderecobr.normalizar(_TRACOS.sub("-", bruto))
    cep = _CEP.search(texto)
    if cep is not None:
        e.cep = e.cep or "".join(cep.groups())
        texto = _CEP.sub(" ", texto)
    texto = _SN.sub(" SN ", _PALAVRA_CEP.sub(" ", _DATA.sub(" ", texto)))
    segmentos: list[tuple[str, bool]] = []
    partes = [(p, atado) for t, atado in text.trechos(texto) for p in _SEPARADOR.split(t)]
    for parte, atado in partes:
        parte = parte.strip(" .-'")
        if not parte:
            continue
        esquina = text.esquina(parte)
        if esquina is not None:
            cruzada, sigla = _sem_sigla(esquina.cruzada)
            segmentos += [(p, atado) for p in (*esquina.lugares, sigla) if p]
            e.esquina = e.esquina or " ".join(cruzada[:MAX_PALAVRAS])
            parte = esquina.rua
        referencia = _REFERENCIA.search(parte)
        if referencia is not None:
            rua = _referencia(e, parte[referencia.end() :].strip())
            antes = parte[: referencia.start()].strip()
            parte = " ".join(p for p in (antes, rua or "") if p)
        if parte:
            segmentos.append((parte, atado))
        if len(segmentos) >= MAX_SEGMENTOS:
            break
    return segmentos


def entender(endereco: question.Endereco) -> Entendido:
    """The fields of an address (its payload's endereco, nomeRua and cep)."""
    e = Entendido()
    if endereco.cep:
        e.cep = endereco.cep.replace("-", "")
    rua_explicita = endereco.rua and _segmentos(endereco.rua, Entendido())
    segmentos = _segmentos(endereco.texto or "", e) if endereco.texto else []
    if rua_explicita:
        # nomeRua is the street: read first, the text's own street then only fills in
        # the number it may carry.
        resto = _ler_rua(e, _sem_preposicao(_palavras(rua_explicita[0][0])), com_tipo=True)
        _lugar(e, resto)
    for n, (segmento, e._atado) in enumerate(segmentos):
        palavras = _sem_preposicao(_palavras(segmento))
        if not palavras:
            continue
        if e.numero is None and not e.sem_numero and _numero_sozinho(palavras):
            _ler_numero(e, palavras, 0)
            continue
        if palavras == ["SN"] or _numero_sozinho(palavras):
            continue
        bairro = _BAIRRO.fullmatch(" ".join(palavras))
        if bairro is not None and len(palavras) > 1:
            nome, onde = text.bairro_e_lugar(bairro.group(1).split())
            e.bairro = e.bairro or _padrao(enderecobr.padronizar_bairros, nome)
            if len(e.lugares) < MAX_SEGMENTOS:
                e.lugares_bairro.add(len(e.lugares))
            _lugar(e, nome)
            _lugar(e, onde)
            continue
        padrao = enderecobr.padronizar_complementos(" ".join(palavras)).split()
        if padrao and padrao[0] in COMPLEMENTOS:
            _lugar(e, _complemento(e, padrao))
            continue
        seguinte = _sem_preposicao(_palavras(segmentos[n + 1][0] if n + 1 < len(segmentos) else ""))
        rua_na_prosa = e.logradouro is None and tipo_de(palavras[0]) is None
        if rua_na_prosa and (corte := text.rua_depois(palavras)):
            _lugar(e, palavras[: corte[0]])  # the prose before it, a place segment as any
            palavras = palavras[corte[1] :]
        de_rua = tipo_de(palavras[0]) is not None and len(palavras) > 1
        sem_tipo = n == 0 and (
            any(_inicio_de_numero(palavras, i) for i in range(1, len(palavras)))
            or _numero_sozinho(seguinte)
        )
        if e.logradouro is None and (de_rua or sem_tipo):
            # "Rua X em Campo Grande": no street's name holds "em".
            rua, depois = text.ate_em(palavras, 2) if de_rua else (palavras, [])
            _lugar(e, _rua_do_segmento(e, rua, de_rua, _numero_sozinho(seguinte)))
            _lugar(e, depois)
        elif rua_explicita and de_rua:
            # The text repeats the street nomeRua gave: only its number is new.
            for i in range(1, len(palavras)):
                if _inicio_de_numero(palavras, i):
                    _ler_numero(e, palavras, i)
                    break
        else:
            _lugar(e, palavras)
    partes = (e.rua, e.numero, *e._no_texto, cep_formatado(e.cep))
    e.texto = " ".join(p for p in partes if p)[: question.LIMITE]
    return e


def _rua_do_segmento(e: Entendido, palavras: list[str], com_tipo: bool, numero: bool) -> list[str]:
    """A street segment read into e; returns the places after it. When its number follows
    (numero), the whole segment was the street, a last word like a sigla included
    ("Avenida José da Silva Sé, 556")."""
    resto = _ler_rua(e, palavras, com_tipo=com_tipo)
    if e.rua_sem_fim and numero:
        e.rua_sem_fim = False
        if resto and e.logradouro:
            nome = [*e.logradouro.split(), *resto]
            e.logradouro = _padrao(enderecobr.padronizar_logradouros, nome)
            resto = []
    return resto


def _numero_sozinho(palavras: list[str]) -> bool:
    """A segment that is only a house number ("1500", "nº 1500", "S/N", "km 12")."""
    if not palavras or len(palavras) > 2 or not _inicio_de_numero(palavras, 0):
        return False
    return len(palavras) == 1 or palavras[0] in ("KM", "N", "NO", "NRO", "NUM", "NUMERO")


def cep_formatado(cep: str | None) -> str | None:
    return f"{cep[:5]}-{cep[5:]}" if cep and len(cep) == 8 else None
