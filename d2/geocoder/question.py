"""The address path's question: the address a demanda.normalizada's payload gives
(Endereco) — its fields cleaned and bounded, and in a long text the part that holds the
address (what follows its label "Endereço:", or the sentence that names its street). The
handler reads it when it classifies a demand (do_payload) and hands it to the door
(d2.geocoder.address.AddressPath); d2.geocoder.fields reads its fields."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

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
