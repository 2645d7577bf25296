"""The ladder's named steps, most precise first: for one address, a generator of rungs
(Tentativa), each told what it gave (Avaliacao) before the next is asked;
d2.geocoder.ladder climbs them for a round's addresses together, d2.geocoder.ladder_rules
judges each answer.

The steps, in order (a step runs only where it can succeed; docs/geocoding.md):

    rua_numero    Nominatim by fields: street and house number, city = the município
    rua           the street without its number (a number Nominatim cannot read)
    rua_sem_tipo  the street's name without its tipo ("Av." where OSM says "Rua")
    rua_bairro    the street, city = the bairro named (OSM files it under the bairro)
    rua_corrigida a misspelt street: the one CEP street of the município it most resembles
    esquina       the crossing street of "esquina com"
    referencia    the POI of "próximo à Escola Y" (Nominatim's amenity)
    poi           a POI named as the address itself ("Hospital Regional, Campo Grande")
    cep_rua       the CEP's street (d2.ceps), city = the CEP's município
    cep           the CEP itself, where d2.ceps does not know it (Nominatim's postcodes)
    bairro        SQL: the bairro named (or the CEP's), inside its município
    cep_faixa     SQL: the bairro or município of a CEP d2.ceps lacks, by its 5-digit
                  range (every CEP known there in that one place), the text naming none
    municipio     SQL: the município
    uf            SQL: the UF, where nothing finer is named
    texto_livre   Nominatim free text, for a município name shared by several places
                  that nothing above told apart
"""

from __future__ import annotations

import enum
from collections.abc import Generator
from dataclasses import dataclass

import enderecobr

from d2.geocoder import fields, question
from d2.geocoder.nominatim import search
from d2.geocoder.places import decision
from d2.geocoder.places.inference import Candidate


class Passo(enum.StrEnum):
    RUA_NUMERO = "rua_numero"
    RUA = "rua"
    RUA_SEM_TIPO = "rua_sem_tipo"
    RUA_BAIRRO = "rua_bairro"
    RUA_CORRIGIDA = "rua_corrigida"
    ESQUINA = "esquina"
    REFERENCIA = "referencia"
    POI = "poi"
    CEP_RUA = "cep_rua"
    CEP = "cep"
    BAIRRO = "bairro"
    CEP_FAIXA = "cep_faixa"
    MUNICIPIO = "municipio"
    UF = "uf"
    TEXTO_LIVRE = "texto_livre"


# The kinds of place a citizen names as the address itself ("Hospital Regional", "UBS
# Tiradentes", "Parque das Nações Indígenas"), as the first word of a place segment the
# territory does not hold. A list because neither enderecobr (no POI vocabulary) nor
# Nominatim (its special phrases come from the OSM wiki at import, not with it) gives
# one; kept small because each hit costs a search, and a segment that is only a bairro
# the territory lacks must not wait for Nominatim. Nominatim's class of the match then
# decides (ladder_rules: an amenity, a park..., never a place or a boundary).
POI_TIPOS = frozenset(
    "HOSPITAL UBS UPA CLINICA POLICLINICA POSTO ESCOLA COLEGIO CRECHE UNIVERSIDADE "
    "FACULDADE PARQUE IGREJA PAROQUIA CAPELA CATEDRAL SANTUARIO MERCADO SUPERMERCADO "
    "SHOPPING ESTADIO GINASIO CEMITERIO DELEGACIA BIBLIOTECA MUSEU TEATRO "
    # Acronyms that are kinds of place and how OSM names them ("EMEI Pequeno Príncipe"):
    # schools (municipal, infantil, técnica), family-health units, social assistance.
    "EMEI EMEF EMEB CMEI CEI CEINF ETEC UBSF USF PSF CRAS CREAS CAPS".split()
)
# POIs whose name alone says which one (one per município, as a rule): the name, or its
# first words ("Santa Casa de Misericórdia").
POI_NOMES = (("SANTA", "CASA"), ("RODOVIARIA",), ("AEROPORTO",), ("PREFEITURA",))
# The kinds of place citizens abbreviate ("Hosp. Regional", "E.E. Maria Constança",
# "Esc. Mun. Padre Tomaz"), dots read as spaces, with the words they stand for; Nominatim
# is asked the words. enderecobr expands "Sta." SANTA, "Pq." PARQUE, "Pça" PRACA (a
# street type), "N. Sra." NOSSA SENHORA and "Cond." CONDOMINIO (a complement: a
# condomínio is a landuse in OSM, no POI) before this is read, and has no POI
# vocabulary; no Python library of POI abbreviations was found (br-address-normalize
# expands street and bairro words; libpostal needs its C library and 2 GB model).
POI_ABREVIACOES = {
    ("HOSP",): "HOSPITAL", ("ESC",): "ESCOLA", ("EE",): "ESCOLA ESTADUAL",
    ("E", "E"): "ESCOLA ESTADUAL", ("E", "M"): "ESCOLA MUNICIPAL", ("COL",): "COLEGIO",
    ("FAC",): "FACULDADE", ("UNIV",): "UNIVERSIDADE", ("IGR",): "IGREJA",
    ("CLIN",): "CLINICA", ("POLICLIN",): "POLICLINICA", ("MERC",): "MERCADO",
    ("SUPERM",): "SUPERMERCADO", ("SUPERMERC",): "SUPERMERCADO", ("DELEG",): "DELEGACIA",
    ("CEMIT",): "CEMITERIO", ("BIBL",): "BIBLIOTECA", ("BIBLIOT",): "BIBLIOTECA",
    ("UNID", "BASICA"): "UNIDADE BASICA", ("UNIDADE", "BASICA"): "UNIDADE BASICA",
    ("PRONTO", "SOCORRO"): "PRONTO SOCORRO", ("PRONTO", "ATENDIMENTO"): "PRONTO ATENDIMENTO",
}  # fmt: skip
# What follows a kind abbreviated: "Esc. Est.", "Esc. Mun.", "Hosp. Univ.".
_POI_QUALIFICADORES = {
    "EST": "ESTADUAL", "MUN": "MUNICIPAL", "MUNIC": "MUNICIPAL", "FED": "FEDERAL",
    "REG": "REGIONAL", "UNIV": "UNIVERSITARIO", "INF": "INFANTIL",
}  # fmt: skip

# Matches wanted per search: enough to see a street's homonyms in other places.
_LIMITE = 5
_LIMITE_SEM_CIDADE = 10


@dataclass(frozen=True)
class Tentativa:
    """One rung for one address: a search; or, with no consulta, an SQL inference (uc)
    or the SQL correction of a misspelt street (corrigir)."""

    passo: Passo
    consulta: search.Consulta | None = None
    com_numero: bool = False
    uc: Candidate | None = None  # the SQL step's UC
    corrigir: str | None = None  # the street to correct, in ctx.municipio


@dataclass(frozen=True)
class Avaliacao:
    """What a rung gave one address."""

    vazio: bool = False  # nothing at all: another form of the question may find it
    ambiguo: bool = False  # credible matches in several places
    rua: str | None = None  # the correction found for a misspelt street


Ladder = Generator[Tentativa, Avaliacao, None]


def _rua_da_consulta(rua: str, numero: str | None) -> str:
    return f"{rua} {numero}" if numero else rua


def _limite(ctx: decision.Contexto) -> int:
    return _LIMITE if ctx.municipio or ctx.homonimos else _LIMITE_SEM_CIDADE


def _cidade(ctx: decision.Contexto) -> str | None:
    if ctx.municipio is not None:
        return ctx.municipio.nome
    if ctx.homonimos:
        return ctx.homonimos[0].nome
    return None


def _rua_do_cep(logradouro: str) -> tuple[str | None, str | None]:
    """CEP Aberto's street, standardised, and the number some carry ("Rua X 2317", a
    large user's CEP); ", s/n" and what follows a comma are not the street."""
    nome = logradouro.split(",")[0].strip()
    if not nome:
        return None, None
    palavras = enderecobr.padronizar_logradouros(nome).split()
    numero = None
    if len(palavras) > 2 and palavras[-1].isdigit():
        numero = palavras.pop()
    return " ".join(palavras) or None, numero


def ladder_for(ctx: decision.Contexto, *, buscar: bool = True) -> Ladder:
    """The rungs one address can climb, each asked only if the ones before failed;
    without a Nominatim (buscar False), only the SQL steps: the place named or the CEP's."""
    if ctx.conflito:
        return  # the text contradicts itself, or names two places: no question helps
    if not buscar:
        yield from _do_lugar(ctx, buscar=False)
        return
    r = yield from _da_rua(ctx)
    if r.ambiguo:
        return
    if r.vazio:  # nothing at all was found of the text's street (or it has none)
        r = yield from _das_referencias(ctx)
        if r.ambiguo:
            return
        yield from _do_cep(ctx)
    yield from _do_lugar(ctx)


def _da_rua(ctx: decision.Contexto) -> Generator[Tentativa, Avaliacao, Avaliacao]:
    """The text's street: with its number, without it, without its tipo, in its bairro."""
    e = ctx.entendido
    r = Avaliacao(vazio=True)
    if not (e.rua and ctx.tem_lugar):
        return r
    cidade, limite = _cidade(ctx), _limite(ctx)
    if e.numero:
        r = yield Tentativa(
            Passo.RUA_NUMERO,
            search.Consulta(rua=_rua_da_consulta(e.rua, e.numero), cidade=cidade, limite=limite),
            com_numero=True,
        )
    if not e.numero or (r.vazio and not e.numero_simples):
        r = yield Tentativa(Passo.RUA, search.Consulta(rua=e.rua, cidade=cidade, limite=limite))
    if r.vazio and e.tipo and e.logradouro and _nome_de_rua_bom(e.logradouro):
        r = yield Tentativa(
            Passo.RUA_SEM_TIPO,
            search.Consulta(
                rua=_rua_da_consulta(e.logradouro, e.numero), cidade=cidade, limite=limite
            ),
            com_numero=bool(e.numero),
        )
    bairro = ctx.bairro.nome if ctx.bairro is not None else e.bairro
    if r.vazio and bairro:
        r = yield Tentativa(
            Passo.RUA_BAIRRO,
            search.Consulta(
                rua=_rua_da_consulta(e.rua, e.numero), cidade=bairro, limite=_LIMITE_SEM_CIDADE
            ),
            com_numero=bool(e.numero),
        )
    if r.vazio and ctx.municipio is not None and e.logradouro and _nome_de_rua_bom(e.logradouro):
        correcao = yield Tentativa(Passo.RUA_CORRIGIDA, corrigir=e.rua)
        if correcao.rua is not None:
            r = yield Tentativa(
                Passo.RUA_CORRIGIDA,
                search.Consulta(
                    rua=_rua_da_consulta(correcao.rua, e.numero), cidade=cidade, limite=limite
                ),
                com_numero=bool(e.numero),
            )
    return r


def _das_referencias(ctx: decision.Contexto) -> Generator[Tentativa, Avaliacao, Avaliacao]:
    """The crossing street of "esquina com", the POI of "próximo à"."""
    e = ctx.entendido
    r = Avaliacao(vazio=True)
    if not ctx.tem_lugar:
        return r
    cidade, limite = _cidade(ctx), _limite(ctx)
    if e.esquina:
        esquina = enderecobr.padronizar_logradouros(e.esquina)
        r = yield Tentativa(
            Passo.ESQUINA, search.Consulta(rua=esquina, cidade=cidade, limite=limite)
        )
    if e.referencia and r.vazio:
        lugar = _poi_por_extenso(e.referencia.split())[0]
        r = yield Tentativa(
            Passo.REFERENCIA,
            search.Consulta(lugar=lugar, cidade=cidade, limite=limite),
        )
    nome = poi(ctx)
    if nome and r.vazio:
        # Free text, the município beside the name: Nominatim's structured search finds
        # only POIs of rank 30 by their name (buildings), never an area such as a park.
        pergunta = f"{nome}, {cidade}" if cidade else nome
        r = yield Tentativa(Passo.POI, search.Consulta(texto=pergunta, limite=limite))
    return r


def poi(ctx: decision.Contexto) -> str | None:
    """The POI an address names as itself, written out ("HOSP REGIONAL" → "HOSPITAL
    REGIONAL"): its first place segment that begins with a kind of place and goes on with
    a name, or begins with a name that says which one ("SANTA CASA"); not a segment
    marked "Bairro", nor the bairro decided."""
    e = ctx.entendido
    bairro = question.normalizar(ctx.bairro.nome) if ctx.bairro is not None else None
    for j, lugar in enumerate(e.lugares):
        if j in e.lugares_bairro or not lugar or question.normalizar(lugar) == bairro:
            continue
        por_extenso, tipo, nome = _poi_por_extenso(lugar.split())
        palavras = por_extenso.split()
        if (tipo and nome) or any(tuple(palavras[: len(n)]) == n for n in POI_NOMES):
            return por_extenso
    return None


def _poi_por_extenso(palavras: list[str]) -> tuple[str, bool, bool]:
    """A POI's words with its abbreviated kind written out ("ESC. EST. MARIA" → "ESCOLA
    ESTADUAL MARIA"); whether they begin with a kind of place, and a name follows it."""
    palavras = " ".join(palavras).replace(".", " ").split()
    for abreviacao, extenso in POI_ABREVIACOES.items():
        if tuple(palavras[: len(abreviacao)]) == abreviacao:
            resto = palavras[len(abreviacao) :]
            if resto and resto[0] in _POI_QUALIFICADORES:
                extenso, resto = f"{extenso} {_POI_QUALIFICADORES[resto[0]]}", resto[1:]
            return " ".join([extenso, *resto]), True, bool(resto)
    tipo = bool(palavras) and palavras[0] in POI_TIPOS
    return " ".join(palavras), tipo, len(palavras) > 1


def _do_cep(ctx: decision.Contexto) -> Generator[Tentativa, Avaliacao, None]:
    """The CEP's street (d2.ceps), or the CEP itself where d2.ceps does not know it."""
    e, cep = ctx.entendido, ctx.cep
    if cep is not None and cep.municipio is not None and cep.logradouro:
        rua_cep, numero_cep = _rua_do_cep(cep.logradouro)
        if rua_cep is None or (
            e.rua and question.normalizar(rua_cep) == question.normalizar(e.rua)
        ):
            return  # the text's street, already asked
        numero = (e.numero if not e.rua else None) or numero_cep
        yield Tentativa(
            Passo.CEP_RUA,
            search.Consulta(
                rua=_rua_da_consulta(rua_cep, numero), cidade=cep.municipio.nome, limite=_LIMITE
            ),
            com_numero=bool(numero),
        )
    elif e.cep and (cep is None or cep.faixa) and not ctx.cep_contraditorio:
        yield Tentativa(Passo.CEP, search.Consulta(cep=fields.cep_formatado(e.cep), limite=_LIMITE))


def _do_lugar(
    ctx: decision.Contexto, *, buscar: bool = True
) -> Generator[Tentativa, Avaliacao, None]:
    """The place named, in SQL; Nominatim's free text for a name shared by several."""
    e = ctx.entendido
    if ctx.municipio is not None:
        if ctx.bairro is not None:
            yield Tentativa(_passo_sql(ctx, Passo.BAIRRO, ctx.bairro), uc=ctx.bairro)
        yield Tentativa(_passo_sql(ctx, Passo.MUNICIPIO, ctx.municipio), uc=ctx.municipio)
    elif ctx.uf is not None:
        yield Tentativa(Passo.UF, uc=ctx.uf)
    elif ctx.homonimos and e.texto and buscar:
        palavras = e.texto.split()[: 2 * fields.MAX_PALAVRAS]
        yield Tentativa(
            Passo.TEXTO_LIVRE,
            search.Consulta(texto=" ".join(palavras), limite=_LIMITE_SEM_CIDADE),
            com_numero=bool(e.numero),
        )


def _passo_sql(ctx: decision.Contexto, passo: Passo, uc: Candidate) -> Passo:
    """cep_faixa where the UC is the one a CEP's range gave (the text named none: a UC
    read from the text has a segment, one from the CEP has none)."""
    if ctx.cep is not None and ctx.cep.faixa and uc.segmento < 0:
        return Passo.CEP_FAIXA
    return passo


def _nome_de_rua_bom(nome: str) -> bool:
    """A name that says which street it is without its tipo: not "A", "10", "B-2"
    (IPEA's geocodebr makes the same exception for its fuzzy matching)."""
    palavras = nome.split()
    return not (len(palavras) == 1 and (len(nome) <= 3 or nome.replace("-", "").isdigit()))
