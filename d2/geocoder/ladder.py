"""The address ladder (D2_GEOCODER_LADDER=on): each address understood (fields), placed
(places), then asked down a ladder of named steps, most precise first, stopping at the
first credible answer. A round's addresses climb it together: each rung is one batch of
Nominatim searches (cache first, each query once) and one SQL statement that places every
point found; the SQL steps are one statement for the round.

The steps, in order (a step runs only where it can succeed; docs/geocoding.md):

    rua_numero    Nominatim by fields: street and house number, city = the município
    rua           the street without its number (a number Nominatim cannot read)
    rua_sem_tipo  the street's name without its tipo ("Av." where OSM says "Rua")
    rua_bairro    the street, city = the bairro named (OSM files it under the bairro)
    rua_corrigida a misspelt street: the one CEP street of the município it most resembles
    esquina       the crossing street of "esquina com"
    referencia    the POI of "próximo à Escola Y" (Nominatim's amenity)
    cep_rua       the CEP's street (d2.ceps), city = the CEP's município
    cep           the CEP itself, where d2.ceps does not know it (Nominatim's postcodes)
    bairro        SQL: the bairro named (or the CEP's), inside its município
    municipio     SQL: the município
    uf            SQL: the UF, where nothing finer is named
    texto_livre   Nominatim free text, for a município name shared by several places
                  that nothing above told apart

A Nominatim answer is credible only inside the place known (the município, or exactly
one of the homonyms, or one município of the UF named), or — when the text names no
place — inside the município of the CEP that was asked. Its precision: numero (a house
with the number asked, or a POI), logradouro (the street), cep (the CEP's street or code).
SQL answers are inferences: bairro, municipio, uf.
"""

from __future__ import annotations

import enum
import logging
from collections import Counter
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any, Protocol

import enderecobr
from psycopg.rows import dict_row

from d2 import db
from d2.geocoder import fields, nominatim, nominatim_search, places, text
from d2.geocoder.inference import Candidate, Reason
from d2.importers.cep import busca
from d2.territorio import resolver


class Passo(enum.StrEnum):
    RUA_NUMERO = "rua_numero"
    RUA = "rua"
    RUA_SEM_TIPO = "rua_sem_tipo"
    RUA_BAIRRO = "rua_bairro"
    RUA_CORRIGIDA = "rua_corrigida"
    ESQUINA = "esquina"
    REFERENCIA = "referencia"
    CEP_RUA = "cep_rua"
    CEP = "cep"
    BAIRRO = "bairro"
    MUNICIPIO = "municipio"
    UF = "uf"
    TEXTO_LIVRE = "texto_livre"


log = logging.getLogger(__name__)

_SQL = {Passo.BAIRRO: "bairro", Passo.MUNICIPIO: "municipio", Passo.UF: "uf"}
# Matches wanted per search: enough to see a street's homonyms in other places.
_LIMITE = 5
_LIMITE_SEM_CIDADE = 10
# A misspelt street is corrected to a CEP street of its município only when that one is
# this similar (pg_trgm) and clearly more than the next.
_SEMELHANCA = 0.6
_MARGEM = 0.1


class Cache(Protocol):
    def obter_chave(self, chave: str) -> tuple[bool, Any]: ...

    def definir_chave(self, chave: str, valor: Any) -> None: ...


@dataclass(frozen=True)
class Tentativa:
    """One rung for one address: a search; or, with no consulta, an SQL inference (uc)
    or the SQL correction of a misspelt street (corrigir)."""

    passo: Passo
    consulta: nominatim_search.Consulta | None = None
    com_numero: bool = False
    uc: Candidate | None = None  # the SQL step's UC
    corrigir: str | None = None  # the street to correct, in ctx.municipio


@dataclass(frozen=True)
class Avaliacao:
    """What a rung gave one address."""

    vazio: bool = False  # nothing at all: another form of the question may find it
    ambiguo: bool = False  # credible matches in several places
    rua: str | None = None  # the correction found for a misspelt street


@dataclass
class Desfecho:
    """The ladder's answer for one address."""

    contexto: places.Contexto | None = None
    resolucao: resolver.Resolucao | None = None
    lat: float | None = None
    lng: float | None = None
    metodo: str | None = None  # endereco | inferencia
    confianca: str | None = None  # media | baixa
    precisao: str | None = None
    passo: str | None = None
    nome: str | None = None  # Nominatim's display name (endereco_geocodificado)
    motivo: str | None = None  # why discarded
    indisponivel: str | None = None  # the geocoder did not answer: try again later
    consultas: int = 0
    por_passo: Counter[str] = field(default_factory=Counter)  # searches made, by step

    @property
    def entendido(self) -> dict[str, Any] | None:
        return self.contexto.como_json() if self.contexto is not None else None


Escada = Generator[Tentativa, Avaliacao, None]


def _rua_da_consulta(rua: str, numero: str | None) -> str:
    return f"{rua} {numero}" if numero else rua


def _limite(ctx: places.Contexto) -> int:
    return _LIMITE if ctx.municipio or ctx.homonimos else _LIMITE_SEM_CIDADE


def _cidade(ctx: places.Contexto) -> str | None:
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


def escada(ctx: places.Contexto) -> Escada:
    """The rungs one address can climb, each asked only if the ones before failed."""
    if ctx.conflito:
        return  # the text contradicts itself, or names two places: no question helps
    r = yield from _da_rua(ctx)
    if r.ambiguo:
        return
    if r.vazio:  # nothing at all was found of the text's street (or it has none)
        r = yield from _das_referencias(ctx)
        if r.ambiguo:
            return
        yield from _do_cep(ctx)
    yield from _do_lugar(ctx)


def _da_rua(ctx: places.Contexto) -> Generator[Tentativa, Avaliacao, Avaliacao]:
    """The text's street: with its number, without it, without its tipo, in its bairro."""
    e = ctx.entendido
    r = Avaliacao(vazio=True)
    if not (e.rua and ctx.tem_lugar):
        return r
    cidade, limite = _cidade(ctx), _limite(ctx)
    if e.numero:
        r = yield Tentativa(
            Passo.RUA_NUMERO,
            nominatim_search.Consulta(
                rua=_rua_da_consulta(e.rua, e.numero), cidade=cidade, limite=limite
            ),
            com_numero=True,
        )
    if not e.numero or (r.vazio and not e.numero_simples):
        r = yield Tentativa(
            Passo.RUA, nominatim_search.Consulta(rua=e.rua, cidade=cidade, limite=limite)
        )
    if r.vazio and e.tipo and e.logradouro and _nome_de_rua_bom(e.logradouro):
        r = yield Tentativa(
            Passo.RUA_SEM_TIPO,
            nominatim_search.Consulta(
                rua=_rua_da_consulta(e.logradouro, e.numero), cidade=cidade, limite=limite
            ),
            com_numero=bool(e.numero),
        )
    bairro = ctx.bairro.nome if ctx.bairro is not None else e.bairro
    if r.vazio and bairro:
        r = yield Tentativa(
            Passo.RUA_BAIRRO,
            nominatim_search.Consulta(
                rua=_rua_da_consulta(e.rua, e.numero), cidade=bairro, limite=_LIMITE_SEM_CIDADE
            ),
            com_numero=bool(e.numero),
        )
    if r.vazio and ctx.municipio is not None and e.logradouro and _nome_de_rua_bom(e.logradouro):
        correcao = yield Tentativa(Passo.RUA_CORRIGIDA, corrigir=e.rua)
        if correcao.rua is not None:
            r = yield Tentativa(
                Passo.RUA_CORRIGIDA,
                nominatim_search.Consulta(
                    rua=_rua_da_consulta(correcao.rua, e.numero), cidade=cidade, limite=limite
                ),
                com_numero=bool(e.numero),
            )
    return r


def _das_referencias(ctx: places.Contexto) -> Generator[Tentativa, Avaliacao, Avaliacao]:
    """The crossing street of "esquina com", the POI of "próximo à"."""
    e = ctx.entendido
    r = Avaliacao(vazio=True)
    if not ctx.tem_lugar:
        return r
    cidade, limite = _cidade(ctx), _limite(ctx)
    if e.esquina:
        esquina = enderecobr.padronizar_logradouros(e.esquina)
        r = yield Tentativa(
            Passo.ESQUINA, nominatim_search.Consulta(rua=esquina, cidade=cidade, limite=limite)
        )
    if e.referencia and r.vazio:
        r = yield Tentativa(
            Passo.REFERENCIA,
            nominatim_search.Consulta(lugar=e.referencia, cidade=cidade, limite=limite),
        )
    return r


def _do_cep(ctx: places.Contexto) -> Generator[Tentativa, Avaliacao, None]:
    """The CEP's street (d2.ceps), or the CEP itself where d2.ceps does not know it."""
    e, cep = ctx.entendido, ctx.cep
    if cep is not None and cep.municipio is not None and cep.logradouro:
        rua_cep, numero_cep = _rua_do_cep(cep.logradouro)
        if rua_cep is None or (e.rua and text.normalizar(rua_cep) == text.normalizar(e.rua)):
            return  # the text's street, already asked
        numero = (e.numero if not e.rua else None) or numero_cep
        yield Tentativa(
            Passo.CEP_RUA,
            nominatim_search.Consulta(
                rua=_rua_da_consulta(rua_cep, numero), cidade=cep.municipio.nome, limite=_LIMITE
            ),
            com_numero=bool(numero),
        )
    elif e.cep and cep is None and not ctx.cep_contraditorio:
        yield Tentativa(
            Passo.CEP, nominatim_search.Consulta(cep=fields.cep_formatado(e.cep), limite=_LIMITE)
        )


def _do_lugar(ctx: places.Contexto) -> Generator[Tentativa, Avaliacao, None]:
    """The place named, in SQL; Nominatim's free text for a name shared by several."""
    e = ctx.entendido
    if ctx.municipio is not None:
        if ctx.bairro is not None:
            yield Tentativa(Passo.BAIRRO, uc=ctx.bairro)
        yield Tentativa(Passo.MUNICIPIO, uc=ctx.municipio)
    elif ctx.uf is not None:
        yield Tentativa(Passo.UF, uc=ctx.uf)
    elif ctx.homonimos and e.texto:
        palavras = e.texto.split()[: 2 * fields.MAX_PALAVRAS]
        yield Tentativa(
            Passo.TEXTO_LIVRE,
            nominatim_search.Consulta(texto=" ".join(palavras), limite=_LIMITE_SEM_CIDADE),
            com_numero=bool(e.numero),
        )


def _nome_de_rua_bom(nome: str) -> bool:
    """A name that says which street it is without its tipo: not "A", "10", "B-2"
    (IPEA's geocodebr makes the same exception for its fuzzy matching)."""
    palavras = nome.split()
    return not (len(palavras) == 1 and (len(nome) <= 3 or nome.replace("-", "").isdigit()))


@dataclass
class _Lugar:
    resolucao: resolver.Resolucao
    municipio: str | None


def _lugares(conn: db.Connection, matches: list[nominatim_search.Match]) -> list[_Lugar | None]:
    if not matches:
        return []
    saida: list[_Lugar | None] = [None] * len(matches)
    with db.mapped_errors(), conn.cursor(row_factory=dict_row) as cur:
        for row in cur.execute(
            db.q("geocoder_points_places"),
            {"lats": [float(m.lat) for m in matches], "lngs": [float(m.lng) for m in matches]},
        ):
            saida[row["ordem"] - 1] = _Lugar(
                resolver.Resolucao(
                    row["unidade_civica_id"],
                    row["nivel_minimo_resolvido"],
                    tuple(row["cadeia_ucs"] or ()),
                ),
                row["municipio"],
            )
    return saida


def _recipiente(ctx: places.Contexto, passo: Passo, lugar: _Lugar) -> str | None:
    """Which of the places allowed holds this point (None: none)."""
    cadeia = lugar.resolucao.cadeia_ucs
    if ctx.municipio is not None:
        return (
            ctx.municipio.unidade_civica_id if ctx.municipio.unidade_civica_id in cadeia else None
        )
    for homonimo in ctx.homonimos:
        if homonimo.unidade_civica_id in cadeia:
            return homonimo.unidade_civica_id
    if ctx.homonimos:
        return None
    if ctx.uf is not None:
        return lugar.municipio if ctx.uf.unidade_civica_id in cadeia else None
    if passo == Passo.CEP:  # no place named: the CEP asked vouches for where it is
        return lugar.municipio or lugar.resolucao.unidade_civica_id
    return None


def _precisao(tentativa: Tentativa, m: nominatim_search.Match) -> str | None:
    """The precision of a match for the step that asked, or None when it is not an
    answer to that question (a city where a street was asked)."""
    if tentativa.passo == Passo.CEP:
        return "cep" if m.tipo == "postcode" or m.rank >= nominatim_search.RANK_RUA else None
    if tentativa.passo == Passo.TEXTO_LIVRE and m.tipo == "postcode":
        return "cep"
    if m.rank < nominatim_search.RANK_RUA:
        return None
    if tentativa.passo == Passo.REFERENCIA:
        return "numero" if m.rank >= 30 else "logradouro"
    if tentativa.com_numero and m.de_numero:
        return "numero"
    return "cep" if tentativa.passo == Passo.CEP_RUA else "logradouro"


def _avaliar(
    ctx: places.Contexto,
    tentativa: Tentativa,
    achados: tuple[nominatim_search.Match, ...],
    lugares: list[_Lugar | None],
    desfecho: Desfecho,
) -> Avaliacao:
    """Decide one search's matches for one address: an answer (filled into desfecho),
    or what the ladder should know to go on."""
    if not achados:
        return Avaliacao(vazio=True)
    crediveis: list[tuple[str, nominatim_search.Match, _Lugar, str]] = []
    for m, lugar in zip(achados, lugares, strict=True):
        if lugar is None or m.pais not in (None, "br"):
            continue
        precisao = _precisao(tentativa, m)
        recipiente = _recipiente(ctx, tentativa.passo, lugar)
        if precisao is not None and recipiente is not None:
            crediveis.append((recipiente, m, lugar, precisao))
    if not crediveis:
        return Avaliacao()
    # Where the place is not one município (homonyms, a UF), matches in one of them
    # decide only if Nominatim showed them all: a full page may hide the others.
    pagina_cheia = (
        ctx.municipio is None
        and tentativa.passo != Passo.CEP
        and tentativa.consulta is not None
        and len(achados) >= tentativa.consulta.limite
    )
    if len({c[0] for c in crediveis}) > 1 or pagina_cheia:
        return Avaliacao(ambiguo=True)
    _, m, lugar, precisao = crediveis[0]
    desfecho.resolucao = lugar.resolucao
    desfecho.lat, desfecho.lng = m.lat, m.lng
    desfecho.metodo, desfecho.confianca = "endereco", "media"
    desfecho.precisao, desfecho.passo = precisao, str(tentativa.passo)
    desfecho.nome = m.nome
    return Avaliacao()


def geocodificar(
    conn: db.Connection,
    geocodificador: nominatim.Geocoder,
    cache: Cache,
    enderecos: list[text.Endereco],
    *,
    bloco: int,
    parar: Callable[[], bool] = lambda: False,
) -> list[Desfecho]:
    """One Desfecho per address, in order: climbs the ladder for all of them together."""
    entendidos = [_entender(e) for e in enderecos]
    contextos = places.contextos(conn, entendidos)
    desfechos = [Desfecho(c) for c in contextos]
    escadas: dict[int, Escada] = {}
    atuais: dict[int, Tentativa] = {}
    ambiguos: set[int] = set()  # some search found the street in several places
    for i, ctx in enumerate(contextos):
        escadas[i] = escada(ctx)
        try:
            atuais[i] = next(escadas[i])
        except StopIteration:
            desfechos[i].motivo = str(ctx.motivo or Reason.NAO_ENCONTRADO)
    while atuais:
        buscas = {i: t for i, t in atuais.items() if t.consulta is not None}
        respostas = _perguntar(geocodificador, cache, buscas, desfechos, bloco, parar)
        inferencias = _inferir(conn, {i: t for i, t in atuais.items() if t.uc is not None})
        correcoes = _corrigir(
            conn, {i: t for i, t in atuais.items() if t.corrigir is not None}, contextos
        )
        # Every match of the rung placed in one statement, in the order read below.
        achados = {
            i: r for i, r in respostas.items() if not isinstance(r, nominatim_search.Unavailable)
        }
        lugares = iter(_lugares(conn, [m for i in buscas if i in achados for m in achados[i]]))
        proximos: dict[int, Tentativa] = {}
        for i, tentativa in atuais.items():
            desfecho, ctx = desfechos[i], contextos[i]
            if tentativa.corrigir is not None:
                avaliacao = Avaliacao(vazio=True, rua=correcoes.get(i))
            elif tentativa.consulta is None:
                ponto = inferencias.get(i)
                if ponto is not None and tentativa.uc is not None:
                    desfecho.resolucao = resolver.Resolucao(
                        tentativa.uc.unidade_civica_id, tentativa.uc.nivel, tentativa.uc.cadeia_ucs
                    )
                    desfecho.lat, desfecho.lng = ponto
                    desfecho.metodo, desfecho.confianca = "inferencia", "baixa"
                    desfecho.precisao = desfecho.passo = _SQL[tentativa.passo]
                    continue
                avaliacao = Avaliacao()  # a UC without a polygon: the next rung
            elif i not in achados:
                desfecho.indisponivel = str(respostas[i])
                continue
            else:
                resposta = achados[i]
                avaliacao = _avaliar(
                    ctx, tentativa, resposta, [next(lugares) for _ in resposta], desfecho
                )
                if desfecho.resolucao is not None:
                    continue
                if avaliacao.ambiguo:
                    ambiguos.add(i)
            try:
                proximos[i] = escadas[i].send(avaliacao)
            except StopIteration:
                ambiguo = i in ambiguos or bool(ctx.homonimos)
                padrao = Reason.AMBIGUO if ambiguo else Reason.NAO_ENCONTRADO
                desfecho.motivo = str(ctx.motivo or padrao)
        atuais = proximos
    return desfechos


def _entender(endereco: text.Endereco) -> fields.Entendido:
    """The address's fields; a parser failure (a bug) leaves this one address not
    understood (then discarded) instead of failing its whole round again and again."""
    try:
        return fields.entender(endereco)
    except Exception as exc:
        log.error("Endereço não entendido: falha do parser", extra={"erro": type(exc).__name__})
        return fields.Entendido()


def _perguntar(
    geocodificador: nominatim.Geocoder,
    cache: Cache,
    buscas: dict[int, Tentativa],
    desfechos: list[Desfecho],
    bloco: int,
    parar: Callable[[], bool],
) -> dict[int, nominatim_search.Resultados]:
    """Each address's matches for its search: from the cache, else asked (each distinct
    query once; the search is counted for the first address that needed it)."""
    respostas: dict[int, nominatim_search.Resultados] = {}
    faltam: dict[str, list[int]] = {}
    consultas: dict[str, nominatim_search.Consulta] = {}
    for i, tentativa in buscas.items():
        assert tentativa.consulta is not None
        chave = tentativa.consulta.chave
        hit, valor = cache.obter_chave(chave)
        if hit and isinstance(valor, tuple):
            respostas[i] = valor
            continue
        if chave not in faltam:
            consultas[chave] = tentativa.consulta
            desfechos[i].consultas += 1
            desfechos[i].por_passo[str(tentativa.passo)] += 1
        faltam.setdefault(chave, []).append(i)
    chaves = list(consultas)
    for inicio in range(0, len(chaves), max(1, bloco)):
        parte = chaves[inicio : inicio + bloco]
        if parar():
            resultados: list[nominatim_search.Resultados] = [
                nominatim_search.Unavailable("worker parando")
            ] * len(parte)
        else:
            resultados = geocodificador.pesquisar([consultas[c] for c in parte])
        for chave, resultado in zip(parte, resultados, strict=True):
            if not isinstance(resultado, nominatim_search.Unavailable):
                cache.definir_chave(chave, resultado)
            for i in faltam[chave]:
                respostas[i] = resultado
    return respostas


def _corrigir(
    conn: db.Connection, pedidos: dict[int, Tentativa], contextos: list[places.Contexto]
) -> dict[int, str]:
    """The CEP street each misspelt street most resembles in its município, where one is
    similar enough and clearly ahead of the next (one statement)."""
    ordens: list[int] = []
    municipios: list[str] = []
    ruas: list[str] = []
    for i, tentativa in pedidos.items():
        municipio = contextos[i].municipio
        if municipio is not None:
            ordens.append(i)
            municipios.append(municipio.unidade_civica_id)
            ruas.append(busca(tentativa.corrigir or ""))
    if not ordens:
        return {}
    saida: dict[int, str] = {}
    with db.mapped_errors():
        for row in conn.execute(
            db.q("geocoder_street_fix"), {"ordens": ordens, "municipios": municipios, "ruas": ruas}
        ):
            nota, segunda = float(row["nota"]), row["segunda"]
            if nota >= _SEMELHANCA and (segunda is None or nota - float(segunda) >= _MARGEM):
                saida[row["ordem"]] = str(row["logradouro"]).split(",")[0]
    return saida


def _inferir(conn: db.Connection, sql: dict[int, Tentativa]) -> dict[int, tuple[float, float]]:
    """The published point of each SQL step: a point on its UC's surface (one statement)."""
    ids = sorted({t.uc.unidade_civica_id for t in sql.values() if t.uc is not None})
    if not ids:
        return {}
    with db.mapped_errors():
        pontos = {
            row["unidade_civica_id"]: (float(row["lat"]), float(row["lng"]))
            for row in conn.execute(db.q("geocoder_points_on_surface"), {"ids": ids})
        }
    return {
        i: pontos[t.uc.unidade_civica_id]
        for i, t in sql.items()
        if t.uc is not None and t.uc.unidade_civica_id in pontos
    }
