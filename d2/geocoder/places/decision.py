"""Where an address is, decided (Contexto): its município (or the homonyms the street must
tell apart), UF and bairro, from the names its text names (read for the round by
d2.geocoder.places.lookup, each read as the rest of the text makes it by
d2.geocoder.places.interpretation), what d2.ceps knows of the municípios named (weighed
in d2.geocoder.places.gazetteer) and what its CEP says.

The rules, with worked examples, are written once, in docs/geocoding.md ("Reading a place
as a whole"): a word inside a longer name the gazetteer knows is not a place of its own;
the município named last, in the UF named, is the reader's when the street or bairro
named supports it at least as much as any other; homonyms are told apart by the UF, the
CEP, or the bairro or street d2.ceps has in only one of them; a CEP that contradicts the
place named is set aside (the text wins); a bairro counts only inside the município
decided. Where two readings stay equally supported there is no guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from d2.geocoder import fields, question
from d2.geocoder.places import gazetteer, interpretation, position
from d2.geocoder.places.inference import BAIRRO, MUNICIPIO, UF, Candidate, Reason
from d2.geocoder.vocabulary import CONECTORES

# The segment index of a street's name read as a possible place ("Rua X Centro Campo
# Grande" with no separator): only names at its very end count, and they are cut from it.
CAUDA = gazetteer.CAUDA
# The same for the crossing street's name ("esquina com Rua Y Natal").
CAUDA_ESQUINA = gazetteer.CAUDA_ESQUINA


@dataclass(frozen=True)
class Cep:
    """A CEP as d2.ceps knows it."""

    cep: str
    uf: str
    localidade: str
    bairro: str
    logradouro: str
    municipio: Candidate | None  # the linked município UC
    bairro_uc: Candidate | None  # the linked bairro UC
    # A CEP CEP Aberto lacks, read by its 5-digit range: every CEP known there lies in
    # this município (and bairro UC, when given); it names no street (sql/queries/cep.sql).
    faixa: bool = False


@dataclass
class Contexto:
    """What is known of an address's place before the geocoder is asked."""

    entendido: fields.Entendido
    municipio: Candidate | None = None  # decided
    homonimos: list[Candidate] = field(default_factory=list)  # one name, several places
    uf: Candidate | None = None  # the one UF named (or the CEP's) when no município is
    bairro: Candidate | None = None  # inside the município decided
    cep: Cep | None = None  # usable: known and not contradicted
    cep_desconhecido: str | None = None  # a CEP d2.ceps does not hold
    cep_contraditorio: bool = False
    motivo: Reason | None = None  # why no place is known
    conflito: bool = False  # the places named contradict each other, or are two

    @property
    def tem_lugar(self) -> bool:
        """A place a geocoded point must fall in is known."""
        return self.municipio is not None or bool(self.homonimos) or self.uf is not None

    def como_json(self) -> dict[str, object]:
        saida: dict[str, object] = self.entendido.como_json()
        if self.municipio is not None:
            saida["municipio"] = self.municipio.nome
        elif self.homonimos:
            saida["municipio"] = self.homonimos[0].nome
        if self.bairro is not None:
            saida["bairro"] = self.bairro.nome
        if self.uf is not None:
            saida["uf"] = self.uf.nome
        if self.cep_contraditorio:
            saida["cep_contraditorio"] = True
        return saida


def _cortar_cauda(
    e: fields.Entendido,
    candidatos: list[Candidate],
    g: gazetteer.Gazetteer,
    cep: Cep | None = None,
) -> list[Candidate]:
    """Names found at the very end of a street's name (or of the crossing street's) are
    places, cut from it; other names inside a street's name are the street's ("Rua
    Bahia", "Avenida Campo Grande"), and so are those a CEP d2.ceps places elsewhere
    contradicts ("Rua Vitor Viana, CEP 79280-000": a person's name, not Viana, ES). The
    street left is the address's street in g too: d2.cep_nomes matched the whole name,
    and the cut one among the runs of the tail's words ("rua pedro celestino centro
    campo grande" tells the two Campo Grandes apart as "Rua Pedro Celestino, Campo
    Grande" does)."""
    if cep is not None and cep.municipio is not None and not cep.faixa:
        dele, cadeia = cep.municipio.unidade_civica_id, cep.municipio.cadeia_ucs

        def do_cep(c: Candidate) -> bool:
            if c.segmento not in gazetteer.CAUDAS:
                return True
            return c.unidade_civica_id in cadeia if c.nivel == UF else dele in c.cadeia_ucs

        candidatos = [c for c in candidatos if do_cep(c)]
    fim, lugares = _cauda(e.logradouro, [c for c in candidatos if c.segmento == CAUDA])
    if lugares and e.logradouro:
        e.logradouro = " ".join(e.logradouro.split()[:fim])
        g.nomes += [
            replace(n, segmento=gazetteer.RUA, fim=1)
            for n in g.nomes
            if n.segmento == CAUDA and n.tipo == "logradouro" and (n.inicio, n.fim) == (1, fim)
        ]
    tipo, nome = nome_da_esquina(e)
    fim, cruzada = _cauda(nome, [c for c in candidatos if c.segmento == CAUDA_ESQUINA])
    if cruzada and nome:
        e.esquina = " ".join([*tipo, *nome.split()[:fim]])
    return [c for c in candidatos if c.segmento not in gazetteer.CAUDAS] + lugares + cruzada


def _cauda(nome: str | None, cauda: list[Candidate]) -> tuple[int, list[Candidate]]:
    """Where a street's name ends once the names at its very end are cut (its words
    counted from 1), and those names."""
    palavras = nome.split() if nome else []
    fim = len(palavras)
    lugares: list[Candidate] = []
    while cauda:
        # The longest name ending where the street's name now ends; one word of the
        # name is left to the street, and not a connector ("Rua das | Palmeiras").
        ali = [
            c
            for c in cauda
            if c.fim == fim and c.inicio >= 2 and palavras[c.inicio - 2] not in CONECTORES
        ]
        if not ali:
            break
        maior = min(ali, key=lambda c: c.inicio)
        lugares += [c for c in ali if c.inicio == maior.inicio]
        fim = maior.inicio - 1
    return fim, lugares


def nome_da_esquina(e: fields.Entendido) -> tuple[list[str], str | None]:
    """The crossing street's type (its first word, when it is one) and name."""
    palavras = (e.esquina or "").split()
    tipo = palavras[:1] if palavras and fields.tipo_de(palavras[0]) is not None else []
    return tipo, " ".join(palavras[len(tipo) :]) or None


def decidir(
    e: fields.Entendido,
    candidatos: list[Candidate],
    cep: Cep | None,
    g: gazetteer.Gazetteer | None = None,
) -> Contexto:
    """The rules of the module's docstring, over the names found, what d2.ceps knows of
    the municípios named (g) and the CEP."""
    g = g if g is not None else gazetteer.Gazetteer([], set())
    # A citizen's drawing names at most a bairro inside the município the official names
    # and d2.ceps decide: its name takes no part in choosing one.
    desenhados = [c for c in candidatos if c.unidade_civica_id in g.comunitarios]
    candidatos = [c for c in candidatos if c.unidade_civica_id not in g.comunitarios]
    cep_municipio = cep.municipio if cep is not None else None
    # A misspelling is weighed against the names written exactly where a reader reads
    # them, once the street has kept the names inside it (misspellings are proposed for
    # the place segments only, never inside a street).
    candidatos = _cortar_cauda(e, candidatos, g, cep)
    exatos = {
        c.nivel
        for c in candidatos
        if c.exato and position.lido(e, interpretation.palavras_do_segmento(e, c), c, g)
    }
    candidatos = gazetteer.aproximados(candidatos, e.lugares, exatos)
    nomes = interpretation.lidos(
        e, candidatos, g, cep_municipio.unidade_civica_id if cep_municipio else None
    )
    nomes = interpretation.atados(e, nomes)
    ufs = {c.unidade_civica_id: c for c in nomes if c.nivel == UF}
    municipios = {c.unidade_civica_id: c for c in nomes if c.nivel == MUNICIPIO}
    bairros = {c.unidade_civica_id: c for c in nomes if c.nivel == BAIRRO}
    ctx = Contexto(e)
    if cep is not None and cep_municipio is None:
        cep = None  # a CEP of a locality the territory lacks says nothing here
    cep = _municipio_e_cep(ctx, list(municipios.values()), ufs, cep, g, nomes)
    if ctx.motivo == Reason.CONTRADITORIO:
        return ctx
    if ctx.municipio is None and not ctx.homonimos and ctx.motivo is None:
        if len(ufs) == 1:
            ctx.uf = next(iter(ufs.values()))
        elif ufs:
            ctx.motivo, ctx.conflito = Reason.AMBIGUO, True
        else:
            ctx.motivo = Reason.AMBIGUO if bairros or e.logradouro else Reason.NAO_ENCONTRADO
    ctx.cep = cep
    if ctx.municipio is not None:
        ctx.motivo = None
        uc = ctx.municipio.unidade_civica_id
        dentro = [b for b in bairros.values() if uc in b.cadeia_ucs]
        if not dentro:
            dentro = list(
                {
                    b.unidade_civica_id: b
                    for b in desenhados
                    if b.nivel == BAIRRO and uc in b.cadeia_ucs
                }.values()
            )
        if len(dentro) == 1:
            ctx.bairro = dentro[0]
        elif not dentro and cep is not None and cep.bairro_uc is not None:
            ctx.bairro = cep.bairro_uc
    return ctx


def _municipio_e_cep(
    ctx: Contexto,
    municipios: list[Candidate],
    ufs: dict[str, Candidate],
    cep: Cep | None,
    g: gazetteer.Gazetteer,
    nomes: list[Candidate],
) -> Cep | None:
    """The município the names read and the CEP say, in the evidence's order: a CEP that
    d2.ceps places decides over the names inside the text's street and bairro (they are
    its own: gazetteer.cobertos, position); a município a reader reads where the CEP
    places another is a disagreement, and no guess, unless the street or bairro named
    is the named one's and not the CEP's (a CEP d2.ceps reads only by its range gives
    way to the text); a CEP of another UF than the one named is set aside.
    The CEP still usable."""
    cep_municipio = cep.municipio if cep is not None else None

    def contradiz(m: Candidate | None) -> bool:
        return m is not None and bool(ufs) and not set(ufs) <= set(m.cadeia_ucs)

    if not municipios:
        if cep_municipio is not None and contradiz(cep_municipio):
            ctx.cep_contraditorio = True
            return None
        ctx.municipio = cep_municipio
        return cep
    coerentes = [m for m in municipios if not contradiz(m)]
    if not coerentes:
        ctx.motivo, ctx.conflito = Reason.CONTRADITORIO, True
        return cep
    ids = {m.unidade_civica_id for m in coerentes}
    if (
        cep_municipio is not None
        and cep_municipio.unidade_civica_id not in ids
        and not contradiz(cep_municipio)
    ):
        # A name a reader reads where the CEP places another município (not a bairro
        # or street of the CEP's município: those were covered, gazetteer.cobertos):
        # the two disagree, and nothing is guessed unless the street or bairro named is
        # the named município's and not the CEP's (then the CEP is the slip); a CEP read
        # only by its range gives way to the text.
        provado = any(g.provas(m, nomes) for m in coerentes)
        if cep is not None and not cep.faixa and (not provado or g.provas(cep_municipio, nomes)):
            ctx.motivo, ctx.conflito = Reason.CONTRADITORIO, True
            ctx.cep_contraditorio = True
            return cep
    if not _municipio_nomeado(ctx, coerentes, cep_municipio, g, nomes) and cep is not None:
        ctx.cep_contraditorio = True
        return None
    return cep


def _municipio_nomeado(
    ctx: Contexto,
    coerentes: list[Candidate],
    cep_municipio: Candidate | None,
    g: gazetteer.Gazetteer,
    nomes: list[Candidate],
) -> bool:
    """The município among those named (in the UF named): the only one, the CEP's, the
    one homonym the bairro or street named puts it in, the one named last when the text
    supports it at least as much as any other; else the one name (homonyms, or the name
    named last) the street must be found in; two different names in one segment with no
    support are no guess. Whether the CEP's município is among them."""
    pelo_cep = [
        m
        for m in coerentes
        if cep_municipio and m.unidade_civica_id == cep_municipio.unidade_civica_id
    ]
    # Said as a place more strongly ("zona rural de X" over "distrito de Y"): those.
    forcas = {
        id(m): position.forca(
            ctx.entendido, interpretation.palavras_do_segmento(ctx.entendido, m), m, g.siglas
        )
        for m in coerentes
    }
    maior = max(forcas.values())
    coerentes = [m for m in coerentes if forcas[id(m)] == maior]
    if len(coerentes) == 1 or pelo_cep:
        ctx.municipio = (pelo_cep or coerentes)[0]
        return bool(pelo_cep)
    ultimo = max(coerentes, key=_position)
    nome = question.normalizar(ultimo.nome)
    mesmos = sorted(
        (m for m in coerentes if question.normalizar(m.nome) == nome),
        key=lambda m: m.unidade_civica_id,
    )
    antes = [m for m in coerentes if question.normalizar(m.nome) != nome]
    provado = gazetteer.homonimo_provado(mesmos, g, nomes)
    if provado is not None and not antes:
        ctx.municipio = provado
        return False
    depois = all(m.segmento < ultimo.segmento or m.fim < ultimo.inicio for m in antes)
    # Places a lead-in speaks of ("moro em X e trabalho em Y") are not told apart by
    # their order: only the street, or the bairro named, decides among them.
    falados = any(m.segmento in ctx.entendido.lugares_falados for m in [ultimo, *antes])
    if provado is not None and depois:
        forca = len(g.provas(provado, nomes))
        if (forca > 0 or not falados) and all(len(g.provas(m, nomes)) <= forca for m in antes):
            # Named last, and what the text says of its bairro or street is not more at
            # home anywhere else the text names: the reader's município (those before it
            # are a bairro, a district, a rural place named after another town).
            ctx.municipio = provado
            return False
    if all(_position(m)[0] < _position(ultimo)[0] for m in antes):
        # One name (homonyms), or the name of the last segment that names one (those
        # before it are bairros or districts sharing a município's name): the street
        # decides, and nothing is inferred from the names.
        ctx.homonimos = mesmos
    else:
        ctx.motivo, ctx.conflito = Reason.AMBIGUO, True  # two names in one segment
    return False


def _position(c: Candidate) -> tuple[int, int]:
    """Where a name stands in the text: the street's own tail comes first."""
    return (-1 if c.segmento in gazetteer.CAUDAS else c.segmento, c.fim)
