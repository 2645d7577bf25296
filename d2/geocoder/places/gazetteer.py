"""An address read as a whole against the places it could name: the territory's names
(d2.candidatos_territorio) and the bairros and streets d2.ceps gives each município
(d2.cep_nomes), weighed together (d2.geocoder.places.decision decides with them).

* A word inside a longer name the text's município has is not a place of its own:
  "Barra" in "Barra da Tijuca, Rio de Janeiro" (a bairro of Rio de Janeiro in d2.ceps) is
  not Barra, BA; "Bertioga" in "Vila Bertioga, São Paulo" is not Bertioga. When two
  municípios each hold the other's words, neither is dropped.
* Evidence for a município is what the rest of the text says that d2.ceps knows there:
  the street named is one of its streets, a place named is one of its bairros (or a
  bairro UC of it). Between homonyms (Rio Branco, AC and MT), the one that has the
  bairro or street named is taken only when the others have bairros or streets in
  d2.ceps at all (a town CEP Aberto knows by one general CEP says nothing by lacking it).
* A misspelt name (a run of words that is no name, proposed in the process by
  d2.geocoder.places.names) is ranked by the Damerau-Levenshtein similarity of those words
  (transpositions are one edit) with Jaro-Winkler's check, and kept only when clearly
  ahead of the next name; it never stands against a name written exactly.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

import enderecobr
from rapidfuzz.distance import DamerauLevenshtein, JaroWinkler

from d2.geocoder.places import lexicon
from d2.geocoder.places.inference import BAIRRO, MUNICIPIO, UF, Candidate

# The segment index of the address's street in d2.cep_nomes's matches, and that of a
# street's name read as a possible place (d2.geocoder.places.decision.CAUDA: no separator
# between the street and the places after it).
RUA = -1
CAUDA = 1000
CAUDA_ESQUINA = 1001  # the crossing street's name, read the same way
CAUDAS = (CAUDA, CAUDA_ESQUINA)
# A misspelt name is read only this similar (1 - edits / length) and this far ahead of
# the next different name; Jaro-Winkler must agree it is close.
SEMELHANCA = 0.75
_MARGEM = 0.1
_JARO_WINKLER = 0.85
# Edits by which the nearest name must beat every other, where the similarity's margin
# (a share of the length) is not met.
_FOLGA = 2
# The apostrophes d2.nome_busca drops (straight, grave, acute, right quotation mark).
_APOSTROFOS = re.compile("['`\u00b4\u2019]")
_OUTROS = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class NomeCep:
    """A run of the text's words that d2.ceps knows as a bairro or street of a município
    (segmento RUA: the address's street)."""

    segmento: int
    inicio: int
    fim: int
    tipo: str  # bairro | logradouro
    municipio: str
    ceps: int


@dataclass
class Gazetteer:
    """What d2.cep_nomes says of one address: its matches, and which of the municípios
    involved have bairros and streets there at all."""

    nomes: list[NomeCep]
    dados: set[tuple[str, str]]  # (município, tipo) with names in d2.cep_nomes
    siglas: dict[str, str] = field(default_factory=dict)  # UF → its sigla
    comunitarios: set[str] = field(default_factory=set)  # UCs drawn by citizens

    def provas(self, m: Candidate, lidos: Iterable[Candidate]) -> set[str]:
        """What the rest of the text says is in m: 'rua' (its street is one of m's
        streets), 'bairro' (a place named, not within m's name, is one of m's
        bairros)."""
        lidos = list(lidos)
        meus = [c for c in lidos if c.unidade_civica_id == m.unidade_civica_id]
        saida: set[str] = set()
        for n in self.nomes:
            if n.municipio != m.unidade_civica_id:
                continue
            if n.segmento == RUA:
                saida.add("rua")
            elif n.tipo == "bairro" and not any(_dentro(n, c) for c in meus):
                # A bairro holding m's own name ("Nova Cachoeirinha, Cachoeirinha") counts;
                # m's name read as a bairro of its own does not.
                saida.add("bairro")
        vaos = {(c.segmento, c.inicio, c.fim) for c in meus}
        if any(
            c.nivel == BAIRRO
            and m.unidade_civica_id in c.cadeia_ucs
            and (c.segmento, c.inicio, c.fim) not in vaos
            for c in lidos
        ):
            saida.add("bairro")  # a bairro UC of m, at other words than m's own name
        return saida

    def tem(self, municipio: str, prova: str) -> bool:
        """Whether d2.ceps knows any bairro ('bairro') or street ('rua') of a município."""
        return (municipio, "bairro" if prova == "bairro" else "logradouro") in self.dados


def candidato(linha: dict[str, object], segmento: int) -> Candidate:
    """A territory's name found in a place text (a row of d2.candidatos_territorio), in
    one address's segment."""
    cadeia = linha["cadeia_ucs"]
    return Candidate(
        str(linha["unidade_civica_id"]),
        int(str(linha["nivel"])),
        str(linha["nome"]),
        tuple(cadeia) if isinstance(cadeia, list) else (),
        segmento,
        int(str(linha["inicio"])),
        int(str(linha["fim"])),
        bool(linha["exato"]),
    )


def _cruza(n: NomeCep, c: Candidate) -> bool:
    return n.segmento == c.segmento and n.inicio <= c.fim and c.inicio <= n.fim


def _dentro(n: NomeCep, c: Candidate) -> bool:
    return n.segmento == c.segmento and c.inicio <= n.inicio and n.fim <= c.fim


def _contem(c: Candidate, n: NomeCep) -> bool:
    """A name that holds a longer stretch than the CEP name it shares words with."""
    return c.inicio <= n.inicio and n.fim <= c.fim and c.fim - c.inicio > n.fim - n.inicio


def _cobre(n: NomeCep) -> bool:
    """A bairro's name holds the words it spans; a street's only in the street's own
    words (a place segment named like a street is common: every city has a Rua Recife)."""
    return n.tipo == "bairro" or n.segmento in CAUDAS


def cobertos(
    candidatos: list[Candidate], g: Gazetteer, cep_municipio: str | None
) -> list[Candidate]:
    """The candidates left once every município or UF name whose words lie inside (or
    run into) a bairro name (or, in a street's own words, a street name) of another
    município of the text (named at other words, or the
    CEP's) is dropped; a município whose own names all lie inside the other's names does
    not drop it (each holds the other: nothing is decided here)."""
    municipios = [c for c in candidatos if c.nivel == MUNICIPIO]

    def cobridores(c: Candidate) -> set[str]:
        if c.nivel not in (MUNICIPIO, UF):
            return set()
        saida = set()
        for n in g.nomes:
            if not _cruza(n, c) or _contem(c, n):
                continue
            if n.municipio == c.unidade_civica_id or not _cobre(n):
                continue
            nomeado_fora = any(
                m.unidade_civica_id == n.municipio and not _cruza(n, m) for m in municipios
            )
            if nomeado_fora or n.municipio == cep_municipio:
                saida.add(n.municipio)
        return saida

    por_candidato = {id(c): cobridores(c) for c in candidatos}

    def livre(municipio: str) -> bool:
        """A município named at some words no other município's name holds."""
        return municipio == cep_municipio or any(
            m.unidade_civica_id == municipio and not por_candidato[id(m)] for m in municipios
        )

    return [c for c in candidatos if not any(livre(m) for m in por_candidato[id(c)])]


def homonimo_provado(
    mesmos: list[Candidate], g: Gazetteer, lidos: list[Candidate]
) -> Candidate | None:
    """The one of several homonyms (or the one name) the text's bairro or street puts it
    in: the only one with the most evidence, where each other lacks a kind of it that
    d2.ceps would know there (it has bairros, or streets, at all)."""
    if len(mesmos) == 1:
        return mesmos[0]
    provas = {m.unidade_civica_id: g.provas(m, lidos) for m in mesmos}
    maior = max(len(p) for p in provas.values())
    primeiros = [m for m in mesmos if len(provas[m.unidade_civica_id]) == maior]
    if maior == 0 or len(primeiros) != 1:
        return None
    escolhido = primeiros[0]
    for outro in mesmos:
        if outro is escolhido:
            continue
        falta = provas[escolhido.unidade_civica_id] - provas[outro.unidade_civica_id]
        if not any(g.tem(outro.unidade_civica_id, p) for p in falta):
            return None
    return escolhido


def palavras(texto: str) -> list[str]:
    """A text's words as core.uc_polygons.nome_busca and d2.candidatos_territorio write
    them (lower case, no accents, apostrophes dropped, anything else not a letter or a
    digit a space), the first 24."""
    sem_acento = unicodedata.normalize("NFKD", texto[:300].lower())
    sem_acento = "".join(c for c in sem_acento if not unicodedata.combining(c))
    return _OUTROS.sub(" ", _APOSTROFOS.sub("", sem_acento)).split()[:24]


def aproximados(
    candidatos: list[Candidate], segmentos: list[str], exatos: set[int] | None = None
) -> list[Candidate]:
    """The candidates with the misspelt ones ranked: none of a level written exactly (of
    the levels exatos: those read where they stand; all levels written when None) but
    around such a name, longer than it ("Pedra Branca do Amaapari"); per segment, only the
    name clearly most similar to the words it was proposed for (and its homonyms, proposed
    for the same words), ahead of any name proposed for other words than inside its own."""
    exatos_nivel = {c.nivel for c in candidatos if c.exato} if exatos is None else exatos
    escritos = [c for c in candidatos if c.exato and c.nivel in exatos_nivel]
    saida = [c for c in candidatos if c.exato]
    por_segmento: dict[int, list[Candidate]] = {}
    for c in candidatos:
        if not c.exato and not any(
            o.nivel == c.nivel and not (_contem_vao(c, o) and _mais_longo(c, o)) for o in escritos
        ):
            # Around a name written exactly, a longer name misspelt by an edit or two
            # (it takes that name's words: "Santo Antônnio do Caiuá" holds Caiuá); a
            # farther one would take them on a guess.
            if any(_contem_vao(c, o) for o in escritos) and _edicoes(c, segmentos) > _FOLGA:
                continue
            por_segmento.setdefault(c.segmento, []).append(c)
    for seg, grupo in por_segmento.items():
        w = palavras(segmentos[seg]) if 0 <= seg < len(segmentos) else []
        notas: dict[int, float] = {}  # id(candidate) → its similarity
        edicoes: dict[int, int] = {}  # id(candidate) → its edits
        for c in grupo:
            escrito = " ".join(w[c.inicio - 1 : c.fim])
            nome = " ".join(palavras(c.nome))
            if JaroWinkler.normalized_similarity(escrito, nome) >= _JARO_WINKLER and not (
                # Ordinary words around a name written exactly ("rocha boa vista"): a
                # longer name only one edit away (names.propostos).
                lexicon.trecho_comum(escrito.split())
                and DamerauLevenshtein.distance(escrito, nome) > 1
            ):
                notas[id(c)] = DamerauLevenshtein.normalized_similarity(escrito, nome)
                edicoes[id(c)] = DamerauLevenshtein.distance(escrito, nome)
        if not notas:
            continue
        melhor = max(notas.values())
        primeiros = [c for c in grupo if notas.get(id(c)) == melhor]
        nomes = {" ".join(palavras(c.nome)) for c in primeiros}
        rivais = [
            c
            for c in grupo
            if id(c) in notas
            and " ".join(palavras(c.nome)) not in nomes
            and not any(_contem_vao(p, c) for p in primeiros)
        ]
        margem = melhor - max((notas[id(c)] for c in rivais), default=0.0)
        # A long name one edit away beside another three away ("santo antonnio do caiua":
        # Santo Antônio do Caiuá, not do Tauá) is as clear as a short one a tenth nearer.
        folga = min((edicoes[id(c)] for c in rivais), default=99) - edicoes[id(primeiros[0])]
        if melhor >= SEMELHANCA and (margem >= _MARGEM or folga >= _FOLGA):
            saida += primeiros
    return saida


def _edicoes(c: Candidate, segmentos: list[str]) -> int:
    """Edits between a candidate's name and the words it was proposed for."""
    w = palavras(segmentos[c.segmento]) if 0 <= c.segmento < len(segmentos) else []
    return DamerauLevenshtein.distance(
        " ".join(w[c.inicio - 1 : c.fim]), " ".join(palavras(c.nome))
    )


def _mais_longo(a: Candidate, b: Candidate) -> bool:
    """Whether a's name is another, longer name than b's (Pedra Branca do Amapari, not
    Pedra Branca again)."""
    return len(palavras(a.nome)) > len(palavras(b.nome))


def _contem_vao(a: Candidate, b: Candidate) -> bool:
    """Whether a's words hold b's, and more of them."""
    return (
        a.segmento == b.segmento
        and a.inicio <= b.inicio
        and b.fim <= a.fim
        and (a.fim - a.inicio) > (b.fim - b.inicio)
    )


def nome_de_uf(texto: str) -> bool:
    """Whether a place's name is a UF's name written out ("Paraná", "Mato Grosso do
    Sul"; not its sigla), by enderecobr's list of the UFs: whatever the territory holds."""
    sigla = enderecobr.padronizar_estados_para_sigla(texto)
    return bool(sigla) and sigla != " ".join(texto.upper().split())


def sigla_do_nome(nome: str) -> str:
    """A UF's sigla from its name, by enderecobr's list of the UFs ("" where none)."""
    sigla = enderecobr.padronizar_estados_para_sigla(nome)
    return sigla if sigla_de_uf(sigla) else ""


def sigla_de_uf(palavra: str) -> bool:
    """Whether a word is a UF's sigla ("MS"), by enderecobr's list of the UFs."""
    return len(palavra) == 2 and enderecobr.padronizar_estados_para_sigla(palavra) == palavra
