"""Where an address says it is, before any geocoder is asked: the bairros, municípios and
UFs its place segments name (d2.candidatos_territorio), the bairros and streets d2.ceps
gives the municípios named (d2.cep_nomes; weighed in d2.geocoder.gazetteer), in one SQL
statement for a whole round, and what its CEP says (d2.ceps, loaded by `d2 cep import`).

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
from typing import Any

from psycopg.rows import dict_row

from d2 import db
from d2.geocoder import fields, gazetteer, names, question, reading
from d2.geocoder.inference import BAIRRO, MUNICIPIO, UF, Candidate, Reason
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


def contextos(conn: db.Connection, entendidos: list[fields.Entendido]) -> list[Contexto]:
    """One Contexto per address, in order, in one round trip: the names' version, one
    SQL statement for the names (each distinct text once: a round's addresses share
    their municípios) and what d2.ceps gives the municípios named, one for the CEPs.
    The misspellings are proposed from the names held in the process before the version
    is read; when it has moved, the names are read again and the names' statement with
    them (a round after each change of the territory)."""
    onde: dict[str, list[tuple[int, int]]] = {}  # text → (address, segment) that hold it
    for i, e in enumerate(entendidos):
        for j, lugar in enumerate(e.lugares):
            onde.setdefault(lugar, []).append((i, j))
        if e.rua_sem_fim and e.logradouro and len(e.logradouro.split()) > 1:
            onde.setdefault(e.logradouro, []).append((i, CAUDA))
        if (cruzada := _nome_da_esquina(e)[1]) and len(cruzada.split()) > 1:
            onde.setdefault(cruzada, []).append((i, CAUDA_ESQUINA))
    textos = list(onde)
    mapa = [(i, j, k) for k, t in enumerate(textos) for i, j in onde[t]]
    com_cep = [(i, e.cep) for i, e in enumerate(entendidos) if e.cep]
    com_rua = [(i, e.logradouro) for i, e in enumerate(entendidos) if e.logradouro]
    pedidos = sorted({e.cep for e in entendidos if e.cep})
    ler_lugares = bool(textos or com_cep)

    def parametros(aproximados: list[tuple[int, str, str]]) -> dict[str, object]:
        return {
            "ordens": list(range(len(textos))),
            "textos": textos,
            "enderecos": [m[0] for m in mapa],
            "lugares": [m[1] for m in mapa],
            "indices": [m[2] for m in mapa],
            "cep_enderecos": [c[0] for c in com_cep],
            "ceps": [c[1] for c in com_cep],
            "rua_enderecos": [r[0] for r in com_rua],
            "ruas": [r[1] for r in com_rua],
            "aproximados_enderecos": [a[0] for a in aproximados],
            "aproximados": [a[1] for a in aproximados],
            "aproximados_nomes": [a[2] for a in aproximados],
        }

    with (
        db.mapped_errors(),
        conn.cursor(row_factory=dict_row) as versao,
        conn.cursor(row_factory=dict_row) as lugares,
        conn.cursor(row_factory=dict_row) as cep_lidos,
    ):
        nomes = names.guardados(conn) or names.carregar(conn)
        candidatos, aproximados = _propostos(nomes, entendidos)
        with conn.pipeline():
            versao.execute(db.q("geocoder_names_version"))
            if ler_lugares:
                lugares.execute(db.q("geocoder_places"), parametros(aproximados))
            if pedidos:
                cep_lidos.execute(db.q("cep_lookup"), {"ceps": pedidos})
        linha_versao = versao.fetchone()
        assert linha_versao is not None
        if nomes.chave != names.chave(conn, linha_versao):
            nomes = names.carregar(conn, linha_versao)
            candidatos, aproximados = _propostos(nomes, entendidos)
            if ler_lugares:
                lugares.execute(db.q("geocoder_places"), parametros(aproximados))
        linhas = lugares.fetchall() if ler_lugares else []
        ceps = {c["cep"]: _cep(c) for c in cep_lidos.fetchall()} if pedidos else {}
    lidos = [gazetteer.Gazetteer([], set()) for _ in entendidos]
    dados = _distribuir(linhas, [onde[t] for t in textos], candidatos, lidos)
    saida = []
    for e, achados, g in zip(entendidos, candidatos, lidos, strict=True):
        g.dados = dados
        contexto = decidir(e, achados, ceps.get(e.cep) if e.cep else None, g)
        if contexto.municipio is not None and contexto.bairro is None:
            contexto.bairro = nomes.bairro_aproximado(contexto.municipio, achados, e.lugares)
        if e.cep and (e.cep not in ceps or ceps[e.cep].faixa):
            contexto.cep_desconhecido = e.cep
        saida.append(contexto)
    return saida


def _distribuir(
    linhas: list[dict[str, Any]],
    onde: list[list[tuple[int, int]]],
    candidatos: list[list[Candidate]],
    lidos: list[gazetteer.Gazetteer],
) -> set[tuple[str, str]]:
    """The names' statement's rows to the addresses they belong to (onde: per distinct
    text, the (address, segment) pairs that hold it); the (município, tipo) pairs
    d2.ceps has data for."""
    dados: set[tuple[str, str]] = set()
    for linha in linhas:
        if linha["fonte"] == "dados":
            dados.add((linha["unidade_civica_id"], linha["tipo"]))
        elif linha["fonte"] == "cep":
            lidos[linha["ordem"]].nomes.append(
                gazetteer.NomeCep(
                    linha["lugar"],
                    linha["inicio"],
                    linha["fim"],
                    linha["tipo"],
                    linha["unidade_civica_id"],
                    linha["ceps"],
                )
            )
        else:
            for i, j in onde[linha["ordem"]]:
                candidatos[i].append(gazetteer.candidato(linha, j))
    return dados


def _propostos(
    nomes: names.Nomes, entendidos: list[fields.Entendido]
) -> tuple[list[list[Candidate]], list[tuple[int, str, str]]]:
    """The misspelt municípios and UFs each address may name (none of a level it writes
    exactly), ranked; and the municípios among them, whose names in d2.cep_nomes the
    names' statement reads too."""
    candidatos = [gazetteer.aproximados(nomes.propostos(e.lugares), e.lugares) for e in entendidos]
    aproximados = [
        (i, c.unidade_civica_id, c.nome)
        for i, achados in enumerate(candidatos)
        for c in {c.unidade_civica_id: c for c in achados if c.nivel == MUNICIPIO}.values()
    ]
    return candidatos, aproximados


def _cep(linha: dict[str, object]) -> Cep:
    def uc(chave: str, nivel: int) -> Candidate | None:
        ident = linha[f"{chave}_uc_id"]
        if ident is None:
            return None
        cadeia = linha[f"{chave}_cadeia"]
        assert isinstance(cadeia, list)
        return Candidate(str(ident), nivel, str(linha[f"{chave}_nome"]), tuple(cadeia), -1, 0, 0)

    return Cep(
        str(linha["cep"]),
        str(linha["uf"]),
        str(linha["localidade"]),
        str(linha["bairro"] or ""),
        str(linha["logradouro"] or ""),
        uc("municipio", MUNICIPIO),
        uc("bairro", BAIRRO),
        bool(linha.get("faixa")),
    )


def _cortar_cauda(
    e: fields.Entendido, candidatos: list[Candidate], g: gazetteer.Gazetteer
) -> list[Candidate]:
    """Names found at the very end of a street's name (or of the crossing street's) are
    places, cut from it; other names inside a street's name are the street's ("Rua
    Bahia", "Avenida Campo Grande"). The street left is the address's street in g too:
    d2.cep_nomes matched the whole name, and the cut one among the runs of the tail's
    words ("rua pedro celestino centro campo grande" tells the two Campo Grandes apart as
    "Rua Pedro Celestino, Campo Grande" does)."""
    fim, lugares = _cauda(e.logradouro, [c for c in candidatos if c.segmento == CAUDA])
    if lugares and e.logradouro:
        e.logradouro = " ".join(e.logradouro.split()[:fim])
        g.nomes += [
            replace(n, segmento=gazetteer.RUA, fim=1)
            for n in g.nomes
            if n.segmento == CAUDA and n.tipo == "logradouro" and (n.inicio, n.fim) == (1, fim)
        ]
    tipo, nome = _nome_da_esquina(e)
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


def _nome_da_esquina(e: fields.Entendido) -> tuple[list[str], str | None]:
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
    cep_municipio = cep.municipio if cep is not None else None
    candidatos = _cortar_cauda(e, gazetteer.aproximados(candidatos, e.lugares), g)
    nomes = reading.lidos(
        e, candidatos, g, cep_municipio.unidade_civica_id if cep_municipio else None
    )
    nomes = reading.atados(e, nomes)
    ufs = {c.unidade_civica_id: c for c in nomes if c.nivel == UF}
    municipios = {c.unidade_civica_id: c for c in nomes if c.nivel == MUNICIPIO}
    bairros = {c.unidade_civica_id: c for c in nomes if c.nivel == BAIRRO}
    ctx = Contexto(e)
    if cep is not None and cep_municipio is None:
        cep = None  # a CEP of a locality the territory lacks says nothing here

    def contradiz(m: Candidate | None) -> bool:
        return m is not None and bool(ufs) and not set(ufs) <= set(m.cadeia_ucs)

    if municipios:
        coerentes = [m for m in municipios.values() if not contradiz(m)]
        if not coerentes:
            ctx.motivo, ctx.conflito = Reason.CONTRADITORIO, True
            return ctx
        nomeado = _municipio_nomeado(ctx, coerentes, cep_municipio, g, nomes)
        if not nomeado and cep is not None:
            ctx.cep_contraditorio, cep = True, None
    elif cep is not None and cep_municipio is not None:
        if contradiz(cep_municipio):
            ctx.cep_contraditorio, cep = True, None
        else:
            ctx.municipio = cep_municipio
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
        dentro = [b for b in bairros.values() if ctx.municipio.unidade_civica_id in b.cadeia_ucs]
        if len(dentro) == 1:
            ctx.bairro = dentro[0]
        elif not dentro and cep is not None and cep.bairro_uc is not None:
            ctx.bairro = cep.bairro_uc
    return ctx


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
    if provado is not None and depois:
        forca = len(g.provas(provado, nomes))
        if forca > 0 and all(len(g.provas(m, nomes)) <= forca for m in antes):
            # Named last, and what the text says of its bairro or street is there at
            # least as much as anywhere else the text names: the reader's município.
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
