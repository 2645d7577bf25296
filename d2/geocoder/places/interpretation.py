"""The names an address names, each read as the rest of its text makes it
(d2.geocoder.places.decision decides with them; the rules, with worked examples, are
docs/geocoding.md's "Reading a place as a whole"): a name inside a longer one is none;
"Bairro X" names only bairros; an area word alone at the start of a longer name is its
type; a município that is also a bairro of another município named is the bairro; a UF's
name is the UF or the município as the text says; and of the places a complaint speaks
of, the ones its anchors tie ("aqui", "em frente", "no bairro") are the address's."""

from __future__ import annotations

import re

from d2.geocoder import complaint, fields, vocabulary
from d2.geocoder.places import gazetteer, inference
from d2.geocoder.places.inference import BAIRRO, MUNICIPIO, UF, Candidate

# Words as d2.candidatos_territorio counts them (its inicio/fim): apostrophes dropped,
# anything else that is not a letter or a digit a space.
_NAO_ALFANUMERICO = re.compile(r"[^A-Z0-9]+")


def atados(e: fields.Entendido, nomes: list[Candidate]) -> list[Candidate]:
    """Where a clause with "aqui", "em frente", "no bairro" names a município or UF (or a
    bairro) as a place, not inside prose, those named elsewhere at that level are other
    places the text speaks of ("moro em Z"): not the address's (complaint.trechos)."""

    # A name cut from a street's end (gazetteer.CAUDA) is never tied: it may be the street's own
    # ("Rua Nova Esperança": Esperança, PB).
    def atado(c: Candidate) -> bool:
        return c.segmento in e.lugares_atados and complaint.so_o_nome(
            palavras_do_segmento(e, c), c.inicio, c.fim
        )

    niveis = {c.nivel for c in nomes if atado(c)}
    if niveis & {MUNICIPIO, UF}:
        niveis |= {MUNICIPIO, UF}
    return [c for c in nomes if atado(c) or c.nivel not in niveis]


def _vao(c: Candidate) -> tuple[int, int, int]:
    """The words a name spans: its segment, first and last word."""
    return (c.segmento, c.inicio, c.fim)


def palavras_do_segmento(e: fields.Entendido, c: Candidate) -> list[str]:
    """The words of the segment a name was found in, as the SQL counted them."""
    if c.segmento == gazetteer.CAUDA or not 0 <= c.segmento < len(e.lugares):
        return []
    return _NAO_ALFANUMERICO.sub(" ", e.lugares[c.segmento].replace("'", "")).split()


def lidos(
    e: fields.Entendido,
    candidatos: list[Candidate],
    g: gazetteer.Gazetteer,
    cep_municipio: str | None,
) -> list[Candidate]:
    """The names the text names, each read as the rest of the text makes it (the rules
    of the module's docstring): a name inside a longer one is not one (Boreal in Nova
    Boreal); a segment marked "Bairro X" names only bairros; an area word alone at the
    start of a longer name is its type; a município that is also a bairro of another
    município named is the bairro; a UF's name is the UF or the município as the text
    says."""
    # Words of a bairro's name first: a name they drop holds no shorter one inside it
    # ("cidade nova maringa": Nova Maringá runs into Maringá's bairro, Maringá stays).
    candidatos = gazetteer.cobertos(candidatos, g, cep_municipio)
    ufs = {c.unidade_civica_id for c in candidatos if c.nivel == UF}

    def cidade_no_fim(c: Candidate) -> bool:
        """In a segment marked "Bairro X", a município of the UF named that closes it
        before that UF's sigla ("Bairro Coophavila II Campo Grande MS"): the city, said
        with no comma."""
        palavras = palavras_do_segmento(e, c)
        return (
            c.nivel == MUNICIPIO
            and 1 < c.inicio
            and c.fim == len(palavras) - 1
            and gazetteer.sigla_de_uf(palavras[-1])
            and bool(ufs & set(c.cadeia_ucs))
        )

    nomes = [
        c
        for c in candidatos
        if not inference.dentro_de_outro(c, candidatos)
        and (c.nivel == BAIRRO or c.segmento not in e.lugares_bairro or cidade_no_fim(c))
    ]
    inicios = {(c.segmento, c.inicio) for c in candidatos}

    def tipo_de_area(c: Candidate) -> bool:
        palavras = palavras_do_segmento(e, c)
        if not (c.inicio == c.fim < len(palavras) and palavras[c.inicio - 1] in vocabulary.AREAS):
            return False
        # Unless a name follows it ("Jardim Dourados"), or only a UF's sigla ("Jardim MS").
        sigla = c.fim + 1 == len(palavras) and gazetteer.sigla_de_uf(palavras[-1])
        return (c.segmento, c.fim + 1) not in inicios and not sigla

    nomes = [c for c in nomes if not tipo_de_area(c)]
    vao = {_vao(c) for c in nomes}
    municipios = [c for c in nomes if c.nivel == MUNICIPIO]

    def bairro_de_outro(c: Candidate) -> bool:
        """A município that is also, at the same words, a bairro of another município
        named elsewhere: the bairro."""
        outros = {m.unidade_civica_id for m in municipios if _vao(m) != _vao(c)}
        return c.nivel == MUNICIPIO and any(
            b.nivel == BAIRRO and _vao(b) == _vao(c) and outros & set(b.cadeia_ucs) for b in nomes
        )

    nomes = [c for c in nomes if not bairro_de_outro(c)]
    municipios = [c for c in nomes if c.nivel == MUNICIPIO]
    sozinho = len(vao) == 1 and not (
        e.logradouro or e.numero or e.sem_numero or e.cep or e.referencia or e.esquina
    )
    fora: set[tuple[int, int, int]] = set()  # words read as neither UF nor município
    lidos = []
    for c in nomes:
        palavras = palavras_do_segmento(e, c)
        if c.nivel == MUNICIPIO and gazetteer.nome_de_uf(" ".join(palavras[c.inicio - 1 : c.fim])):
            if any(_vao(m) != _vao(c) for m in municipios):
                continue  # "Goiânia, Goiás": the UF
            if sozinho and c.fim - c.inicio + 1 == len(palavras) and not g.provas(c, nomes):
                # "Paraná" alone: the UF, where it holds the município; else no guess.
                uf = [u for u in nomes if u.nivel == UF and _vao(u) == _vao(c)]
                if not any(u.unidade_civica_id in c.cadeia_ucs for u in uf):
                    fora.add(_vao(c))
                continue
        lidos.append(c)
    return [c for c in lidos if _vao(c) not in fora]
