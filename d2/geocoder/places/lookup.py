"""Where an address says it is, read for a whole round in one round trip: the bairros,
municípios and UFs its place segments name (d2.candidatos_territorio), the bairros and
streets d2.ceps gives the municípios named (d2.cep_nomes; weighed in
d2.geocoder.places.gazetteer), the misspelt names proposed from those the process holds
(d2.geocoder.places.names), and what its CEP says (d2.ceps, loaded by `d2 cep import`);
then each address's place decided (d2.geocoder.places.decision), before any geocoder is
asked."""

from __future__ import annotations

from typing import Any

from psycopg.rows import dict_row

from d2 import db
from d2.geocoder import fields
from d2.geocoder.places import gazetteer, names
from d2.geocoder.places.decision import (
    CAUDA,
    CAUDA_ESQUINA,
    Cep,
    Contexto,
    decidir,
    nome_da_esquina,
)
from d2.geocoder.places.inference import BAIRRO, MUNICIPIO, Candidate


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
        if (cruzada := nome_da_esquina(e)[1]) and len(cruzada.split()) > 1:
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
