"""The territory's names held in the process, for the misspelt ones: every município and
UF name (and each município's bairro UCs), loaded once per database and again when the
mirror's version moves (the worker applies the mirror at every poll).

d2.candidatos_territorio finds in SQL the names written exactly. A run of a place
segment's words that is no name, and overlaps none, may be a misspelt one: it is
compared here with every município and UF name by rapidfuzz (an Indel ratio first, a
bound no name within the Damerau-Levenshtein threshold can miss, then the ranking of
d2.geocoder.places.gazetteer.aproximados: Damerau-Levenshtein similarity, Jaro-Winkler's check
and a margin over the next name). A level (município, UF) the text writes exactly gets
no proposal: a fuzzy match never stands against an exact one. A bairro is proposed only
among the bairro UCs of the município read, when no bairro of it was written exactly.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from rapidfuzz import process
from rapidfuzz.distance import Indel

from d2 import db
from d2.geocoder import fields
from d2.geocoder.places import gazetteer, interpretation, lexicon, position
from d2.geocoder.places.inference import BAIRRO, MUNICIPIO, UF, Candidate
from d2.nome_busca import nome_busca

# Runs of up to 6 words, as d2.candidatos_territorio compares them.
_RUN = 6
# The runs of a text compared with the names, at most (the last ones).
_PEDIDOS = 24
# Of those, the runs around a name written exactly compared with every name, at most.
_EM_VOLTA = 4
# A run this short (letters and spaces) is not read as a misspelling: one edit in three
# or four letters makes another word too often.
_MINIMO = 5
# Indel similarity (1 - (insertions + deletions) / total length) that every name within
# the Damerau-Levenshtein threshold reaches: d edits cost at most 2d insertions and
# deletions, d <= (1 - threshold) * the longer length, and the shorter is at least
# threshold * the longer, so 1 - 2 * (1 - t) / (1 + t); a little under it, for rounding.
_INDEL = 1 - 2 * (1 - gazetteer.SEMELHANCA) / (1 + gazetteer.SEMELHANCA) - 0.01


@dataclass(frozen=True)
class Lugar:
    unidade_civica_id: str
    nivel: int
    nome: str
    cadeia_ucs: tuple[str, ...]


@dataclass
class Nomes:
    """The names of one database's territory at one mirror version."""

    chave: tuple[object, ...]
    por_nome: dict[str, list[Lugar]] = field(default_factory=dict)  # nome_busca → places
    escolhas: list[str] = field(default_factory=list)  # município and UF names
    por_nivel: dict[int, list[str]] = field(default_factory=dict)  # município, UF → names
    bairros: dict[str, list[str]] = field(default_factory=dict)  # município → bairro names
    siglas: dict[str, str] = field(default_factory=dict)  # UF → its sigla
    # Other ways to write a name with an apostrophe or a hyphen → its nome_busca
    # ("santa clara do oeste", "olho d agua" for Santa Clara d'Oeste, Olho d'Água).
    variantes: dict[str, str] = field(default_factory=dict)
    # The UCs drawn by citizens: no name of theirs chooses a município.
    comunitarios: set[str] = field(default_factory=set)

    @classmethod
    def de_linhas(cls, chave: tuple[object, ...], linhas: Iterable[dict[str, object]]) -> Nomes:
        nomes = cls(chave)
        for linha in linhas:
            cadeia = linha["cadeia_ucs"]
            lugar = Lugar(
                str(linha["unidade_civica_id"]),
                int(str(linha["nivel"])),
                str(linha["nome"]),
                tuple(str(c) for c in cadeia) if isinstance(cadeia, list) else (),
            )
            nomes.por_nome.setdefault(str(linha["nome_busca"]), []).append(lugar)
            if linha.get("comunitario"):
                nomes.comunitarios.add(lugar.unidade_civica_id)
        for nome, lugares in nomes.por_nome.items():
            if any(lg.nivel in (MUNICIPIO, UF) for lg in lugares):
                nomes.escolhas.append(nome)
            for nivel in {lg.nivel for lg in lugares} & {MUNICIPIO, UF}:
                nomes.por_nivel.setdefault(nivel, []).append(nome)
            for lg in lugares:
                if lg.nivel in (MUNICIPIO, UF):
                    for variante in _variantes(lg.nome):
                        nomes.variantes.setdefault(variante, nome)
                if lg.nivel == UF:
                    nomes.siglas[lg.unidade_civica_id] = gazetteer.sigla_do_nome(lg.nome)
                if lg.nivel == BAIRRO:
                    for uc in lg.cadeia_ucs[1:]:
                        nomes.bairros.setdefault(uc, []).append(nome)
        return nomes

    def bytes(self) -> int:
        """What the names take in memory (the containers, their strings and places)."""
        vistos: set[int] = set()

        def tamanho(o: object) -> int:
            if id(o) in vistos:
                return 0
            vistos.add(id(o))
            n = sys.getsizeof(o)
            if isinstance(o, dict):
                n += sum(tamanho(k) + tamanho(v) for k, v in o.items())
            elif isinstance(o, list | tuple):
                n += sum(tamanho(x) for x in o)
            elif isinstance(o, Lugar):
                n += sum(tamanho(getattr(o, a)) for a in ("unidade_civica_id", "nome"))
                n += tamanho(o.cadeia_ucs)
            return n

        partes = (self.por_nome, self.escolhas, self.por_nivel, self.bairros)
        return sum(tamanho(x) for x in partes)

    def exato(self, termo: str) -> bool:
        """Whether words are a bairro's, município's or UF's name as written."""
        return termo in self.por_nome

    def exato_maior(self, termo: str) -> bool:
        """Whether words are a município's or UF's name as written (not only a bairro's:
        "O", "A" and "E" are bairros of somewhere)."""
        return any(lg.nivel in (MUNICIPIO, UF) for lg in self.por_nome.get(termo, ()))

    def propostos(self, segmentos: list[str], e: fields.Entendido | None = None) -> list[Candidate]:
        """The municípios and UFs (not exact) a text's place segments may misspell: per
        run of words that is no name and overlaps none but inside it ("pedra branca do
        amaapari" holds Pedra Branca), every name as near as the ranking could take; of a
        level the text writes exactly where a reader reads it (e's positions), only the
        longer names around that one. Which of them a reader reads is decided with the
        names written exactly (gazetteer.aproximados, position)."""
        lidos = [gazetteer.palavras(s) for s in segmentos]
        pedidos: list[tuple[int, int, int, int, str]] = []
        escrito: list[Candidate] = []  # names written another way (variantes)
        ao_redor: set[tuple[int, int, int]] = set()  # runs around a município's or UF's name
        for j, w in enumerate(lidos):
            if len(w) == 1 and len(w[0]) == 2:
                continue  # a UF's sigla, or no name
            maiores = [(a, b) for a, b, termo in _runs(w) if self.exato_maior(termo)]
            for i, f, termo in _livres(w, self.exato):
                dentro = any(i <= a and b <= f and (a, b) != (i, f) for a, b in maiores)
                if dentro:
                    ao_redor.add((j, i, f))
                if termo in self.variantes:
                    escrito += self._variante(termo, j, i, f)
                # Words of the language are no misspelt place ("calcada" is not Calçado,
                # "o cara" not Ocara), but around a name written exactly, rarer ones may
                # misspell a longer name that holds it ("Vera Mendez": Vera Mendes).
                elif len(termo.replace(" ", "")) >= _MINIMO and (
                    not lexicon.trecho_comum(w[i - 1 : f])
                    or (dentro and not lexicon.trecho_frequente(w[i - 1 : f]))
                ):
                    pedidos.append((_prioridade(w, i, f), j, i, f, termo))
        if not pedidos:
            return escrito
        escritos = self._niveis_lidos(lidos, e) if e is not None else set()
        saida = []
        # A hostile text's many runs cost a bounded pass: first the runs where a place
        # stands ("prefeitura de X", "em X", a segment's start or end), the last
        # segments' first (the município is named last).
        for (_, j, i, f, _), nomes in self._comparar(
            sorted(pedidos, key=lambda p: (p[0], -p[1], -p[3], p[2]))[:_PEDIDOS], ao_redor, escritos
        ):
            saida += [
                Candidate(
                    lg.unidade_civica_id, lg.nivel, lg.nome, lg.cadeia_ucs, j, i, f, exato=False
                )
                for nome in nomes
                for lg in self.por_nome[nome]
                if lg.nivel in (MUNICIPIO, UF) and (lg.nivel not in escritos or _longo(lg, i, f))
            ]
        return escrito + saida

    def _comparar(
        self,
        pedidos: list[tuple[int, int, int, int, str]],
        ao_redor: set[tuple[int, int, int]],
        escritos: set[int],
    ) -> list[tuple[tuple[int, int, int, int, str], list[str]]]:
        """Each run asked, with the names as near as the ranking could take: one pass over
        the names of the levels asked (a call costs ~0.1 ms before any comparison; a text
        that names its município where a reader reads it asks the municípios only for the
        runs around that name, the 27 UFs for the others)."""
        if not pedidos:
            return []
        todos_em_volta = [p for p in pedidos if (p[1], p[2], p[3]) in ao_redor]
        outros = [p for p in pedidos if p not in todos_em_volta]
        # Around names written exactly, the first few runs only: a text of town names has
        # one around every name.
        em_volta = todos_em_volta[:_EM_VOLTA]
        grupos: list[tuple[list[tuple[int, int, int, int, str]], list[str]]] = [
            (em_volta, self.escolhas)
        ]
        if MUNICIPIO in escritos:
            grupos.append((outros, [] if UF in escritos else self.por_nivel.get(UF, [])))
        else:
            grupos.append((outros, self.escolhas))
        saida = []
        for grupo, escolhas in grupos:
            if not grupo or not escolhas:
                continue
            notas = process.cdist(
                [p[4] for p in grupo],
                escolhas,
                scorer=Indel.normalized_similarity,
                score_cutoff=_INDEL,
                workers=1,
            )
            for p, linha in zip(grupo, notas, strict=True):
                saida.append((p, [escolhas[int(k)] for k in linha.nonzero()[0]]))
        return saida

    def _niveis_lidos(self, lidos: list[list[str]], e: fields.Entendido) -> set[int]:
        """The levels (município, UF) of the names the text writes exactly where a reader
        reads them."""
        niveis: set[int] = set()
        for j, w in enumerate(lidos):
            for i, f, termo in _runs(w):
                for lg in self.por_nome.get(termo, ()):
                    if lg.nivel in (MUNICIPIO, UF) and lg.nivel not in niveis:
                        c = Candidate(
                            lg.unidade_civica_id, lg.nivel, lg.nome, lg.cadeia_ucs, j, i, f
                        )
                        palavras = interpretation.palavras_do_segmento(e, c)
                        if position.lido(e, palavras, c):
                            niveis.add(lg.nivel)
        return niveis

    def _variante(self, termo: str, j: int, i: int, f: int) -> list[Candidate]:
        """The places a name written another way names, as if written as the territory
        spells it (exato)."""
        return [
            Candidate(lg.unidade_civica_id, lg.nivel, lg.nome, lg.cadeia_ucs, j, i, f)
            for lg in self.por_nome[self.variantes[termo]]
            if lg.nivel in (MUNICIPIO, UF)
        ]

    def bairros_propostos(self, municipio: str, segmentos: list[str]) -> list[Candidate]:
        """The bairro UCs of a município a text's place segments may misspell: a whole
        segment of up to 6 words that is no name itself (a word of it may be one:
        Jardim, Vila, Mata). Not a part of a segment: "Núcleo Habitacional
        Universitárias" is not the bairro Universitário."""
        nomes = self.bairros.get(municipio)
        if not nomes:
            return []
        saida = []
        for j, s in enumerate(segmentos):
            w = gazetteer.palavras(s)
            termo = " ".join(w)
            if not w or len(w) > _RUN or len(termo.replace(" ", "")) < _MINIMO:
                continue
            if termo in self.por_nome:
                continue
            achados = process.extract(
                termo, nomes, scorer=Indel.normalized_similarity, score_cutoff=_INDEL, limit=None
            )
            saida += [
                Candidate(lg.unidade_civica_id, BAIRRO, lg.nome, lg.cadeia_ucs, j, 1, len(w), False)
                for nome, _, _ in achados
                for lg in self.por_nome[nome]
                if lg.nivel == BAIRRO and municipio in lg.cadeia_ucs
            ]
        return saida

    def bairro_aproximado(
        self, m: Candidate, achados: list[Candidate], lugares: list[str]
    ) -> Candidate | None:
        """The bairro UC of the município read that the text misspells, ranked as any
        misspelling (gazetteer.aproximados), when one is clearly the nearest and no
        bairro of it is written exactly."""
        uc = m.unidade_civica_id
        if any(c.nivel == BAIRRO and c.exato and uc in c.cadeia_ucs for c in achados):
            return None
        # The words that name the município read, or its UF, are not the bairro's (a
        # bairro's name may hold another município's: Mata do Jacinto, and Mata, RS).
        maiores = [
            c
            for c in achados
            if c.unidade_civica_id == uc or (c.nivel == UF and c.unidade_civica_id in m.cadeia_ucs)
        ]
        propostos = [
            b
            for b in self.bairros_propostos(uc, lugares)
            if not any(_sobrepoe(b, c) for c in maiores)
        ]
        escolhidos = gazetteer.aproximados(propostos, lugares)
        return escolhidos[0] if len(escolhidos) == 1 else None


# How an apostrophe's contraction is written out ("d'Oeste": d Oeste, do Oeste, de Oeste).
_APOSTROFO = re.compile(r"\b([A-Za-zÀ-ÿ])['`\u00b4\u2019](?=\w)")


def _variantes(nome: str) -> set[str]:
    """Other ways people write a name with an apostrophe or a hyphen, as the runs of a
    text are compared (gazetteer.palavras): the apostrophe as a space, "d'" as "do", "de"
    or "da"; a hyphen dropped ("Xique-Xique", "xiquexique")."""
    formas = set()
    if _APOSTROFO.search(nome):
        formas.add(_APOSTROFO.sub(r"\1 ", nome))
        if re.search(r"\b[dD]['`\u00b4\u2019]", nome):
            for artigo in ("do ", "de ", "da "):
                formas.add(re.sub(r"\b[dD]['`\u00b4\u2019]", artigo, nome))
    if "-" in nome:
        formas.add(nome.replace("-", ""))
    busca = nome_busca(nome)
    return {v for f in formas if (v := " ".join(gazetteer.palavras(f))) != busca}


def _sobrepoe(a: Candidate, b: Candidate) -> bool:
    return a.segmento == b.segmento and a.inicio <= b.fim and b.inicio <= a.fim


def _runs(w: list[str]) -> Iterator[tuple[int, int, str]]:
    """Every run of 1..6 consecutive words: (first, last (1-based), its text)."""
    for i in range(len(w)):
        for f in range(i, min(len(w), i + _RUN)):
            yield i + 1, f + 1, " ".join(w[i : f + 1])


def _livres(w: list[str], exato: Callable[[str], bool]) -> list[tuple[int, int, str]]:
    """The runs that are no name and overlap none written exactly, but those that hold
    such names whole inside them (a longer name misspelt around a shorter one)."""
    runs = list(_runs(w))
    exatos = {(i, f) for i, f, termo in runs if exato(termo)}
    return [
        (i, f, termo)
        for i, f, termo in runs
        if (i, f) not in exatos and all(i <= a and b <= f for a, b in exatos if a <= f and i <= b)
    ]


# The words after which a place stands (d2.geocoder.places.position): its misspelling is
# asked first.
_ANTES_DE_LUGAR = frozenset({"em", "no", "na", "municipio", "cidade", "prefeitura", "rural"})


def _longo(lg: Lugar, inicio: int, fim: int) -> bool:
    """Whether a name proposed for a run of words is long enough to hold another name
    (two words or more)."""
    return fim > inicio and len(gazetteer.palavras(lg.nome)) > 1


def _prioridade(w: list[str], inicio: int, fim: int) -> int:
    """0 for a run after "em", "município de", "prefeitura de"…; 1 for one that starts or
    ends its segment; 2 for the others."""
    anterior = w[inicio - 2] if inicio > 1 else ""
    if anterior in ("de", "do", "da") and inicio > 2:
        anterior = w[inicio - 3]
    if anterior in _ANTES_DE_LUGAR:
        return 0
    return 1 if inicio == 1 or fim == len(w) else 2


# Per database (a worker has one; the tests' process many, hence the bound).
_CACHE: dict[tuple[object, ...], Nomes] = {}
_BASES = 4


def _base(conn: db.Connection) -> tuple[object, ...]:
    return (conn.info.host, conn.info.port, conn.info.dbname)


def chave(conn: db.Connection, versao: dict[str, object]) -> tuple[object, ...]:
    """What names read from conn are keyed by, given the row of the query
    geocoder_names_version: the database (its oid too: one dropped and created again
    under the same name is another) and the mirror's version."""
    return (*_base(conn), versao["base"], versao["versao"])


def guardados(conn: db.Connection) -> Nomes | None:
    """The names held for conn's database, at whatever version they were read (a caller
    checks chave against the version it reads with its own statements), or None."""
    return _CACHE.get(_base(conn))


def carregar(conn: db.Connection, versao: dict[str, object] | None = None) -> Nomes:
    """The names of conn's database at its mirror's version: held from an earlier call,
    or read now (one query; the version's is one more, unless its row is given)."""
    if versao is None:
        versao = conn.execute(db.q("geocoder_names_version")).fetchone()
        assert versao is not None
    base, atual = _base(conn), chave(conn, versao)
    nomes = _CACHE.get(base)
    if nomes is None or nomes.chave != atual:
        nomes = Nomes.de_linhas(atual, conn.execute(db.q("geocoder_names")).fetchall())
        _CACHE.pop(base, None)
        while len(_CACHE) >= _BASES:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[base] = nomes
    return nomes
