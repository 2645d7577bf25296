"""Where a reader reads a place: a name found in an address's text names that place only
where it stands as a place stands (docs/geocoding.md, "Where a place is read"). A name's
strength where it stands, from the words around it in its segment:

* FORTE: a place said as such — after "município de", "cidade de", "prefeitura de",
  "zona rural de", "interior de", "centro de"; after "em" closing its segment ("… em
  Natal"); the value of a form's "Cidade:" or "Município:"; followed by a UF's sigla or
  name ("Natal RN", "Natal - RN", "Natal, Rio Grande do Norte"); closing the words that
  follow a street and its number ("rua X 100 centro natal"), or cut from the end of a
  street's name.
* MEDIA: alone in its segment but for a preposition or an article before it ("…, Natal,
  …", "no Crato"); after "de" closing its segment ("no Taguatinga Norte de Brasília").
* FRACA: at a segment's start or after "em"/"no"/"na", but with prose after it ("em
  Quixadá tem buraco"); after "de" with prose after it.
* NENHUMA: after any other word ("Farmácia São José", "sem luz", "Povoado Lagoa Nova",
  "desde março"): part of another name, or of prose.

What is read (lido): a name that is an ordinary word of the language (lexicon.nome_comum:
Natal, Luz, Esperança) only FORTE, or MEDIA where the text is an address (a street, a
house number, a CEP, a bairro marked or a corner); a month or weekday (lexicon.temporal:
"em março") only FORTE; any other name at least FRACA. A bairro is weighed inside the
município it lies in, but one named like an ordinary word ("Centro", a bairro "E") is a
bairro only where it stands alone (MEDIA) or the text marks it ("Bairro X").
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Mapping

from d2.geocoder import fields
from d2.geocoder.places import gazetteer, lexicon
from d2.geocoder.places.inference import BAIRRO, UF, Candidate

_LOCATIVAS = frozenset({"EM", "NO", "NA", "NOS", "NAS", "AQUI"})
_ARTIGOS = frozenset({"A", "O", "AS", "OS"})
_DE = frozenset({"DE", "DO", "DA", "DOS", "DAS", "D"})
# The nouns after which "de X" names the município itself: the two a form or a letter
# uses ("município de", "cidade de"), the city hall a complaint writes to ("prefeitura
# de"), the parts of a município a rural text names it by ("zona rural de", "interior
# de", "centro de"): the grammar of places, which no library lists. Not "distrito de",
# "povoado de": they name the district.
_INTRODUTORES = (
    ("MUNICIPIO",), ("CIDADE",), ("PREFEITURA",), ("PREFEITURA", "MUNICIPAL"),
    ("ZONA", "RURAL"), ("INTERIOR",), ("CENTRO",), ("COMARCA",), ("ESTADO",),
)  # fmt: skip
# The kinds of a place inside a município (IBGE's kinds of locality, and enderecobr's
# rural area words): "distrito de X", "povoado de X" name that place, not a município X.
RURAIS = frozenset(
    "POVOADO SITIO FAZENDA CHACARA COLONIA COMUNIDADE ASSENTAMENTO RAMAL SERINGAL LINHA "
    "DISTRITO VILA ALDEIA AGROVILA GLEBA LOCALIDADE LUGAREJO NUCLEO GRANJA ACAMPAMENTO "
    "QUILOMBO BAIRRO LOTEAMENTO CONJUNTO SETOR".split()
)


# Words that end the phrase a place closes ("em Cariacica e o lixo não passa", "em Natal
# que tem buraco"): a conjunction or a verb of the complaint.
_FIM_DE_FRASE = frozenset(
    "E QUE MAS POREM PORQUE POIS ONDE QUANDO HA TEM TA TAH ESTA ESTAO FICA JA NAO NUNCA "
    "PRECISA PRECISAM PODE PODEM "
    # and as chat writes them ("em Porto Belo pq ninguém resolve", "vcs podem")
    "PQ Q VC VCS KD TB TBM N NAUM".split()
)


class Forca(enum.IntEnum):
    NENHUMA = 0
    FRACA = 1
    MEDIA = 2
    FORTE = 3


def forca(
    e: fields.Entendido, palavras: list[str], c: Candidate, siglas: Mapping[str, str] = {}
) -> Forca:
    """How strongly words inicio..fim of a segment (palavras) stand as a place (siglas:
    each UF's sigla, to know a name followed by its own UF's)."""
    if c.segmento in gazetteer.CAUDAS or c.segmento in e.lugares_cidade:
        return Forca.FORTE
    antes = palavras[: c.inicio - 1]
    depois = palavras[c.fim :]
    if depois and gazetteer.sigla_de_uf(depois[0]):
        # "… Centro Paulo Jacinto AL manda o pessoal": a name its own UF's sigla follows.
        if len(depois) == 1 or depois[0] in {siglas.get(u) for u in c.cadeia_ucs}:
            return Forca.FORTE
    fim = not depois or depois[0] in _FIM_DE_FRASE
    if c.segmento in e.lugares_cauda and fim:
        # After a street and its number, the name that ends the words is the place.
        return Forca.FORTE
    while antes and antes[-1] in _ARTIGOS:
        antes = antes[:-1]
    if _introduzido(antes):
        return Forca.FORTE
    anterior = antes[-1] if antes else ("EM" if c.segmento in e.lugares_em else None)
    # After "de", a município closing a place's name ("no Taguatinga Norte de Brasília"),
    # not a district's ("distrito de X") nor a UF inside a name ("São Sebastião do Paraíba").
    de = anterior in _DE and c.nivel != UF and not (len(antes) > 1 and antes[-2] in RURAIS)
    if anterior is not None and anterior not in _LOCATIVAS and not de:
        return Forca.NENHUMA
    if not depois and _uf_segue(e, c):
        return Forca.FORTE
    if de and _de_prosa(antes[:-1]):
        # "desde o feriado de Tiradentes", "um monte de areia": "de" after a noun of
        # the language is prose; after a place's name ("Taguatinga Norte de") it is not.
        return Forca.NENHUMA
    if anterior == "EM":
        return Forca.FORTE if fim else Forca.MEDIA
    if de and not fim:
        return Forca.NENHUMA  # "boca do Jari laranjal…", "recanto das Emas brasília"
    return Forca.MEDIA if fim else Forca.FRACA


def _antes(palavras: list[str], c: Candidate) -> str | None:
    """The word before a name, its articles skipped."""
    antes = palavras[: c.inicio - 1]
    while antes and antes[-1] in _ARTIGOS:
        antes = antes[:-1]
    return antes[-1] if antes else None


# Words that end, looking back, the name a "de" may close: articles, prepositions,
# conjunctions and the numerals used as articles.
_ANTES_DO_NOME = (
    _ARTIGOS
    | _DE
    | _LOCATIVAS
    | frozenset(
        "UM UMA UNS UMAS COM PARA PRA POR PELO PELA PELOS PELAS DESDE ATE ENTRE SOBRE E OU".split()
    )
)


def _de_prosa(antes: list[str]) -> bool:
    """Whether the words a "de" follows are ordinary words of the language back to an
    article or a preposition: a noun of prose ("o feriado de", "um monte de"), not a
    place's name ("no Taguatinga Norte de"); words that open the segment are left alone
    ("Escrevo de Agudo, Rio Grande do Sul")."""
    trecho: list[str] = []
    for palavra in reversed(antes):
        if palavra in _ANTES_DO_NOME:
            return lexicon.trecho_comum(trecho)
        trecho.append(palavra.lower())
    return False


def _introduzido(antes: list[str]) -> bool:
    if len(antes) < 2 or antes[-1] not in _DE:
        return False
    return any(tuple(antes[-1 - len(i) : -1]) == i for i in _INTRODUTORES)


def _uf_segue(e: fields.Entendido, c: Candidate) -> bool:
    """Whether the next segment is a UF alone: its sigla or its name ("Natal/RN", "Natal
    - RN", "Natal, Rio Grande do Norte")."""
    if not 0 <= c.segmento < len(e.lugares) - 1:
        return False
    seguinte = e.lugares[c.segmento + 1].strip()
    return gazetteer.sigla_de_uf(seguinte) or gazetteer.nome_de_uf(seguinte)


def endereco(e: fields.Entendido) -> bool:
    """Whether the text is an address, not only prose: a street, a house number, a CEP, a
    bairro marked as such, a corner."""
    return bool(
        (e.logradouro and e.tipo and not _prosa(e.logradouro))
        or e.numero
        or e.sem_numero
        or e.cep
        or e.lugares_bairro
        or e.esquina
    )


def _prosa(nome: str) -> bool:
    """Whether a street's name, as read after its type, is prose: ordinary words with a
    conjunction or a verb of the complaint ("a luz da rua apaga toda vez que chove")."""
    palavras = nome.split()
    return (
        len(palavras) >= 3
        and any(p in _FIM_DE_FRASE for p in palavras[1:])
        and lexicon.trecho_comum([p.lower() for p in palavras])
    )


def so_lugares(e: fields.Entendido, c: Candidate) -> bool:
    """Whether a text is only a few short segments, as a place is written ("Jardim X,
    Cidade"; "Cidade"), not prose; a very common word (Natal, Glória) closing it only
    after words that are not all ordinary ones ("Passaré, Fortaleza", not "Obrigada,
    Glória")."""
    if not (0 < len(e.lugares) <= 4 and all(len(s.split()) <= 4 for s in e.lugares)):
        return False
    if not lexicon.nome_muito_comum(c.nome):
        return True
    antes = [gazetteer.palavras(s) for s in e.lugares[: c.segmento]]
    return c.segmento == len(e.lugares) - 1 and any(not lexicon.trecho_comum(w) for w in antes if w)


def lido(
    e: fields.Entendido,
    palavras: list[str],
    c: Candidate,
    g: gazetteer.Gazetteer | None = None,
) -> bool:
    """Whether a name is read where it stands (the module's rules; g: what d2.cep_nomes
    says of the address, whose bairro or street named in a município makes it read)."""
    if c.nivel == UF and len(palavras) == 1 and len(palavras[0]) == 2:
        return True  # a UF's sigla alone
    f = forca(e, palavras, c, g.siglas if g is not None else {})
    if c.nivel == UF:
        return f >= Forca.MEDIA  # "Goiás" alone names the UF; "Casas Bahia" does not
    if c.nivel == BAIRRO:
        comum = lexicon.nome_comum(c.nome) or len(c.nome) <= 2
        return not comum or f >= Forca.MEDIA or c.segmento in e.lugares_bairro
    if _temporal(c.nome):
        # "em março" is a month: a place only said as one ("Marco - CE", "Cidade: Marco").
        return f == Forca.FORTE and _antes(palavras, c) != "EM"
    if lexicon.nome_comum(c.nome):
        # Alone in its segment, in an address, or with a bairro or street of it named, or
        # in a short text of places alone ("Timirim, Timóteo", "Laguna"; "Obrigada,
        # Glória" names nobody's town).
        if f != Forca.MEDIA:
            return f == Forca.FORTE
        provado = g is not None and bool(g.provas(c, []))
        return endereco(e) or provado or so_lugares(e, c)
    if not c.exato or lexicon.frase_comum(c.nome):
        # A misspelling, or words of the language ("Feliz Natal a todos", "a paróquia de
        # Santo Antônio pede"): only where it stands alone, or as a place as such.
        return f >= Forca.MEDIA
    return f >= Forca.FRACA


@functools.lru_cache(maxsize=16384)
def _temporal(nome: str) -> bool:
    return lexicon.temporal(" ".join(gazetteer.palavras(nome)))


def forte(
    e: fields.Entendido, palavras: list[str], c: Candidate, siglas: Mapping[str, str] = {}
) -> bool:
    """Whether a name is said as a place as such (FORTE)."""
    return forca(e, palavras, c, siglas) == Forca.FORTE


def nomeado(
    e: fields.Entendido, palavras: list[str], c: Candidate, siglas: Mapping[str, str] = {}
) -> bool:
    """Whether a name stands where a place could (FRACA at least), ordinary word or not:
    "Escrevo de Itatiaia, Rio de Janeiro" names a town before its UF."""
    return forca(e, palavras, c, siglas) >= Forca.FRACA
