"""The address ladder: each address understood (parser), placed
(places.lookup), then asked down a ladder of named steps (ladder_steps), most precise first,
stopping at the first credible answer (ladder_rules). A round's addresses climb it
together: each rung is one batch of Nominatim searches (cache first, each query once) and
one SQL statement that places every point found; the SQL steps are one statement for the
round.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from d2 import db
from d2.geocoder import fields, ladder_rules, parser, question
from d2.geocoder.answer import Geocoding
from d2.geocoder.ladder_steps import Avaliacao, Ladder, Tentativa, ladder_for
from d2.geocoder.nominatim import client, search
from d2.geocoder.places import decision, lookup
from d2.geocoder.places.inference import BAIRRO, MUNICIPIO, UF, Reason
from d2.nome_busca import nome_busca
from d2.territorio import resolver

log = logging.getLogger(__name__)

# The precision of an SQL step's answer: the level of its UC.
_PRECISAO = {BAIRRO: "bairro", MUNICIPIO: "municipio", UF: "uf"}
# A misspelt street is corrected to a CEP street of its município only when that one is
# this similar (pg_trgm) and clearly more than the next.
_SEMELHANCA = 0.6
_MARGEM = 0.1


class Cache(Protocol):
    def obter_chave(self, chave: str) -> tuple[bool, Any]: ...

    def definir_chave(self, chave: str, valor: Any) -> None: ...


def geocodificar(
    conn: db.Connection,
    geocodificador: client.Geocoder,
    cache: Cache,
    enderecos: list[question.Endereco],
    *,
    bloco: int,
    parar: Callable[[], bool] = lambda: False,
) -> list[Geocoding]:
    """One Geocoding per address, in order: climbs the ladder for all of them together."""
    entendidos = [_entender(e) for e in enderecos]
    contextos = lookup.contextos(conn, entendidos)
    geocodings = [Geocoding() for _ in contextos]
    buscar = geocodificador.modo != client.NENHUM
    ladders: dict[int, Ladder] = {}
    atuais: dict[int, Tentativa] = {}
    ambiguos: set[int] = set()  # some search found the street in several places
    for i, ctx in enumerate(contextos):
        ladders[i] = ladder_for(ctx, buscar=buscar)
        try:
            atuais[i] = next(ladders[i])
        except StopIteration:  # homonyms with nothing to ask: a name several places share
            padrao = Reason.AMBIGUO if ctx.homonimos else Reason.NAO_ENCONTRADO
            geocodings[i].motivo = str(ctx.motivo or padrao)
    while atuais:
        buscas = {i: t for i, t in atuais.items() if t.consulta is not None}
        respostas = _perguntar(geocodificador, cache, buscas, geocodings, bloco, parar)
        inferencias = _inferir(conn, {i: t for i, t in atuais.items() if t.uc is not None})
        correcoes = _corrigir(
            conn, {i: t for i, t in atuais.items() if t.corrigir is not None}, contextos
        )
        # Every match of the rung placed in one statement, in the order read below.
        achados = {i: r for i, r in respostas.items() if not isinstance(r, search.Unavailable)}
        lugares = iter(
            ladder_rules.lugares(conn, [m for i in buscas if i in achados for m in achados[i]])
        )
        proximos: dict[int, Tentativa] = {}
        for i, tentativa in atuais.items():
            geocoding, ctx = geocodings[i], contextos[i]
            if tentativa.corrigir is not None:
                avaliacao = Avaliacao(vazio=True, rua=correcoes.get(i))
            elif tentativa.consulta is None:
                ponto = inferencias.get(i)
                if ponto is not None and tentativa.uc is not None:
                    geocoding.resolucao = resolver.Resolucao(
                        tentativa.uc.unidade_civica_id, tentativa.uc.nivel, tentativa.uc.cadeia_ucs
                    )
                    geocoding.lat, geocoding.lng = ponto
                    geocoding.metodo, geocoding.confianca = "inferencia", "baixa"
                    geocoding.precisao = _PRECISAO[tentativa.uc.nivel]
                    geocoding.passo = str(tentativa.passo)
                    continue
                avaliacao = Avaliacao()  # a UC without a polygon: the next rung
            elif i not in achados:
                geocoding.indisponivel = str(respostas[i])
                continue
            else:
                resposta = achados[i]
                avaliacao = ladder_rules.avaliar(
                    ctx, tentativa, resposta, [next(lugares) for _ in resposta], geocoding
                )
                if geocoding.resolucao is not None:
                    continue
                if avaliacao.ambiguo:
                    ambiguos.add(i)
            try:
                proximos[i] = ladders[i].send(avaliacao)
            except StopIteration:
                ambiguo = i in ambiguos or bool(ctx.homonimos)
                padrao = Reason.AMBIGUO if ambiguo else Reason.NAO_ENCONTRADO
                geocoding.motivo = str(ctx.motivo or padrao)
        atuais = proximos
    # What the answer says of the reading, once it is over (the places cut a street's tail
    # from its name while they read it).
    for geocoding, ctx in zip(geocodings, contextos, strict=True):
        geocoding.entendido = ctx.como_json()
        geocoding.cep_contraditorio = ctx.cep_contraditorio
    return geocodings


def _entender(endereco: question.Endereco) -> fields.Entendido:
    """The address's fields; a parser failure (a bug) leaves this one address not
    understood (then discarded) instead of failing its whole round again and again."""
    try:
        return parser.entender(endereco)
    except Exception as exc:
        log.error("Endereço não entendido: falha do parser", extra={"erro": type(exc).__name__})
        return fields.Entendido()


def _perguntar(
    geocodificador: client.Geocoder,
    cache: Cache,
    buscas: dict[int, Tentativa],
    geocodings: list[Geocoding],
    bloco: int,
    parar: Callable[[], bool],
) -> dict[int, search.Resultados]:
    """Each address's matches for its search: from the cache, else asked (each distinct
    query once; the search is counted for the first address that needed it)."""
    respostas: dict[int, search.Resultados] = {}
    faltam: dict[str, list[int]] = {}
    consultas: dict[str, search.Consulta] = {}
    for i, tentativa in buscas.items():
        assert tentativa.consulta is not None
        chave = tentativa.consulta.chave
        hit, valor = cache.obter_chave(chave)
        if hit and isinstance(valor, tuple):
            respostas[i] = valor
            continue
        if chave not in faltam:
            consultas[chave] = tentativa.consulta
            geocodings[i].consultas += 1
            geocodings[i].por_passo[str(tentativa.passo)] += 1
        faltam.setdefault(chave, []).append(i)
    chaves = list(consultas)
    for inicio in range(0, len(chaves), max(1, bloco)):
        parte = chaves[inicio : inicio + bloco]
        if parar():
            resultados: list[search.Resultados] = [search.Unavailable("worker parando")] * len(
                parte
            )
        else:
            resultados = geocodificador.pesquisar([consultas[c] for c in parte])
        for chave, resultado in zip(parte, resultados, strict=True):
            if not isinstance(resultado, search.Unavailable):
                cache.definir_chave(chave, resultado)
            for i in faltam[chave]:
                respostas[i] = resultado
    return respostas


def _corrigir(
    conn: db.Connection, pedidos: dict[int, Tentativa], contextos: list[decision.Contexto]
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
            ruas.append(nome_busca((tentativa.corrigir or "").split(",")[0]))
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
