"""Ordinary Portuguese, from the field's libraries: which words a reader reads as words of
the language before reading them as places. Two uses (docs/geocoding.md, "Where a place
is read"):

* A run of ordinary words is never a misspelt place: "calçada" is not Calçado (PE),
  "passou" is not Passos (MG), "faz nada" no Fazenda Nova. An ordinary word is one whose
  frequency in Portuguese text (wordfreq's Portuguese list, Zipf scale) reaches COMUM: as
  written, accents or not ("calcada" is frequent in what people type too).
* A territory name that is itself an ordinary word (Natal, Luz, Saúde, Esperança,
  Vitória, Socorro; Zipf at least NOME_COMUM) names a place only where a reader reads one
  (d2.geocoder.places.position): "sem luz desde março" names none, "Rua X, 100, Centro,
  Natal" names Natal. Months and weekdays (CLDR's Brazilian names, through Babel) are
  time, never a place, but where nothing else can be meant ("Marco - CE").

Loaded on first use (a worker that reads no address never pays for it): wordfreq's list
is ~0.7 s and ~40 MB, read from the package itself; nothing is downloaded.
"""

from __future__ import annotations

import functools
import unicodedata

# Zipf frequency (log10 of occurrences per billion words) from which a word typed in a
# text is a word of the language: "calcada" 2.2, "alagou" 2.1, "corrego" 1.8; a misspelt
# name is ~0 ("duorados", "curitba"). Below this, typos and rare words alike may be
# corrected.
COMUM = 1.5
# From which a place's own name reads as a word before it reads as a place: Luz 5.2,
# Natal 5.1, Esperança 4.9, Formosa 3.4, Timóteo 3.3; not Aracruz 2.6, Quixeramobim 2.5.
# From MUITO_COMUM it is a word first even where a short text names nothing else: Glória
# 4.5, Socorro 4.7, Porto 5.3; not Dourados 3.8, Laguna 3.4.
NOME_COMUM = 3.0
MUITO_COMUM = 4.0


@functools.lru_cache(maxsize=1)
def _zipf() -> object:
    from wordfreq import zipf_frequency

    return zipf_frequency


@functools.lru_cache(maxsize=65536)
def frequencia(palavra: str) -> float:
    """A word's Zipf frequency in Portuguese (0 for a word wordfreq does not know)."""
    zipf = _zipf()
    assert callable(zipf)
    return float(zipf(palavra.lower(), "pt"))


def palavra_comum(palavra: str) -> bool:
    return frequencia(palavra) >= COMUM


def trecho_comum(palavras: list[str]) -> bool:
    """Whether a run of words (as written, lower case) is all ordinary Portuguese."""
    return bool(palavras) and all(palavra_comum(p) for p in palavras)


def trecho_frequente(palavras: list[str]) -> bool:
    """Whether a run of words (as written, lower case) is all words as frequent as a place
    named like a word (NOME_COMUM: "centro natal", "rocha boa vista"; not "vera mendez")."""
    return bool(palavras) and all(frequencia(p) >= NOME_COMUM for p in palavras)


def _sem_acento(texto: str) -> str:
    sem = unicodedata.normalize("NFKD", texto.lower())
    return "".join(c for c in sem if not unicodedata.combining(c))


@functools.lru_cache(maxsize=1)
def _tempo() -> frozenset[str]:
    from babel.dates import get_day_names, get_month_names

    nomes = [*get_month_names("wide", locale="pt_BR").values()]
    for dia in get_day_names("wide", locale="pt_BR").values():
        nomes += [dia, dia.split("-")[0]]  # "segunda-feira", and "segunda"
    return frozenset(_sem_acento(n) for n in nomes)


@functools.lru_cache(maxsize=16384)
def nome_comum(nome: str) -> bool:
    """Whether a territory name of one word reads as an ordinary word of the language
    (Natal, Luz, Saúde); a name of several words is a name (Campo Grande)."""
    palavras = nome.split()
    return len(palavras) == 1 and frequencia(nome) >= NOME_COMUM


def nome_muito_comum(nome: str) -> bool:
    """Whether a territory name of one word is a very common word (Glória, Socorro)."""
    return nome_comum(nome) and frequencia(nome) >= MUITO_COMUM


def temporal(termo: str) -> bool:
    """Whether words (as d2.nome_busca writes them) name a month or a weekday."""
    return termo in _tempo()


_LIGACOES = frozenset({"de", "da", "do", "das", "dos", "d", "e"})


@functools.lru_cache(maxsize=16384)
def frase_comum(nome: str) -> bool:
    """Whether a territory name of several words is made of ordinary words only (Feliz
    Natal, Santo Antônio, Nova Esperança; not Quixeramobim, São José dos Campos)."""
    palavras = [p for p in nome.lower().replace("'", " ").split() if p not in _LIGACOES]
    return len(palavras) > 1 and all(frequencia(p) >= NOME_COMUM for p in palavras)
