"""A name's search form (`nome_busca`, spec §2.6) as d2.nome_busca writes it in SQL, for
the names Python writes or compares: the streets `d2 cep import` stores in
d2.ceps.logradouro_busca, the misspelt street the address ladder corrects against them,
and the national corpus's links of localities. One definition for all three, so a street
written by the importer and one read from a demanda meet on the same text."""

from __future__ import annotations

import functools
import re
import unicodedata

_APOSTROFOS = re.compile("['`\u00b4\u2019]")
_NAO_ALFANUMERICO = re.compile(r"[^a-z0-9]+")


@functools.lru_cache(maxsize=65536)
def nome_busca(nome: str) -> str:
    """Lower case, no accents, apostrophes dropped, other punctuation a space, at most 255
    characters."""
    sem_acento = unicodedata.normalize("NFKD", nome.lower())
    texto = "".join(c for c in sem_acento if not unicodedata.combining(c))
    return _NAO_ALFANUMERICO.sub(" ", _APOSTROFOS.sub("", texto)).strip()[:255]
