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

import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from rapidfuzz import process
from rapidfuzz.distance import Indel

from d2 import db
from d2.geocoder.places import gazetteer
from d2.geocoder.places.inference import BAIRRO, MUNICIPIO, UF, Candidate

# Runs of up to 6 words, as d2.candidatos_territorio compares them.
_RUN = 6
# The runs of a text compared with the names, at most (the last ones).
_PEDIDOS = 24
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
        for nome, lugares in nomes.por_nome.items():
            if any(lg.nivel in (MUNICIPIO, UF) for lg in lugares):
                nomes.escolhas.append(nome)
            for nivel in {lg.nivel for lg in lugares} & {MUNICIPIO, UF}:
                nomes.por_nivel.setdefault(nivel, []).append(nome)
            for lg in lugares:
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

    def propostos(self, segmentos: list[str]) -> list[Candidate]:
        """The municípios and UFs (not exact) a text's place segments may misspell: per
        run of words that is no name and overlaps none, every name as near as the
        ranking could take; none of a level the text writes exactly."""
        lidos = [gazetteer.palavras(s) for s in segmentos]
        exatos_nivel = {
            lg.nivel
            for w in lidos
            for _, _, termo in _runs(w)
            for lg in self.por_nome.get(termo, ())
        }
        if any(len(w) == 1 and gazetteer.sigla_de_uf(w[0].upper()) for w in lidos):
            exatos_nivel.add(UF)
        niveis = {MUNICIPIO, UF} - exatos_nivel
        if not niveis:
            return []
        pedidos: list[tuple[int, int, int, str]] = []
        for j, w in enumerate(lidos):
            if len(w) == 1 and len(w[0]) == 2:
                continue  # a UF's sigla, or no name
            for i, f, termo in _livres(w, self.exato):
                if len(termo.replace(" ", "")) >= _MINIMO:
                    pedidos.append((j, i, f, termo))
        if not pedidos:
            return []
        # A hostile text's many runs cost a bounded pass: the município is named last.
        pedidos = sorted(pedidos, key=lambda p: (-p[0], -p[2], p[1]))[:_PEDIDOS]
        # One pass over the names of the levels asked (a call costs ~0.1 ms before any
        # comparison; a text that names its município exactly asks only the 27 UFs).
        escolhas = self.escolhas if len(niveis) > 1 else self.por_nivel.get(next(iter(niveis)), [])
        notas = process.cdist(
            [p[3] for p in pedidos],
            escolhas,
            scorer=Indel.normalized_similarity,
            score_cutoff=_INDEL,
            workers=1,
        )
        saida = []
        for (j, i, f, _), linha in zip(pedidos, notas, strict=True):
            saida += [
                Candidate(
                    lg.unidade_civica_id, lg.nivel, lg.nome, lg.cadeia_ucs, j, i, f, exato=False
                )
                for k in linha.nonzero()[0]
                for lg in self.por_nome[escolhas[int(k)]]
                if lg.nivel in niveis
            ]
        return saida

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


def _sobrepoe(a: Candidate, b: Candidate) -> bool:
    return a.segmento == b.segmento and a.inicio <= b.fim and b.inicio <= a.fim


def _runs(w: list[str]) -> Iterator[tuple[int, int, str]]:
    """Every run of 1..6 consecutive words: (first, last (1-based), its text)."""
    for i in range(len(w)):
        for f in range(i, min(len(w), i + _RUN)):
            yield i + 1, f + 1, " ".join(w[i : f + 1])


def _livres(w: list[str], exato: Callable[[str], bool]) -> list[tuple[int, int, str]]:
    """The runs that are no name and overlap none written exactly."""
    tomadas = {p for i, f, termo in _runs(w) if exato(termo) for p in range(i, f + 1)}
    return [
        (i, f, termo) for i, f, termo in _runs(w) if not any(p in tomadas for p in range(i, f + 1))
    ]


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
