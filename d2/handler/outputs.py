"""What steps 5-6 of the handler write, built and validated before the writing
transaction opens: the resolution row of each georeferenced event and the
demanda.georreferenciada it publishes (spec 3.2). The re-georeferencing (d2.ops.regeo) builds
its events with the same payload_saida."""

from __future__ import annotations

from typing import Any

from d2.eventlog import bus, wire
from d2.handler.classification import Outcome, Plan

TIPO_SAIDA = "demanda.georreferenciada"


def preparar(planos: list[Plan]) -> None:
    """The rows and events steps 5-6 will write, built and validated ahead, so that
    the writing holds the database for the statements only."""
    ids = iter(wire.uuids4_texto(len(planos)))
    for plano in planos:
        if plano.outcome == Outcome.GEORREFERENCIADA:
            plano.gravada = linha_resolucao(plano)
        elif plano.outcome != Outcome.REPUBLICADA or plano.gravada is None or plano.retida:
            continue
        plano.saida = bus.preparar(
            TIPO_SAIDA,
            payload_saida(plano.gravada),
            plano.correlacao_id_texto,
            event_id=next(ids),
        )


def linha_resolucao(plano: Plan) -> dict[str, Any]:
    assert plano.resolucao is not None and plano.demanda_id is not None
    return {
        "demanda_id": plano.demanda_id_texto,
        "unidade_civica_id": plano.resolucao.unidade_civica_id,
        "nivel_minimo_resolvido": plano.resolucao.nivel_minimo_resolvido,
        "cadeia_ucs": list(plano.resolucao.cadeia_ucs),
        "metodo_resolucao": plano.metodo,
        "confianca_geo": plano.confianca,
        "coordenadas_lat": plano.lat,
        "coordenadas_lng": plano.lng,
        "event_id": plano.event_id_texto,
        "correlacao_id": plano.correlacao_id_texto,
        "endereco_original": plano.endereco.original if plano.endereco else None,
        "endereco_geocodificado": plano.endereco_geocodificado,
    }


def colunas_resolucoes(linhas: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Resolution rows (linha_resolucao) as resolucoes_insert's column arrays."""
    colunas = {
        coluna: [linha[coluna] for linha in linhas]
        for coluna in (
            "demanda_id", "unidade_civica_id", "nivel_minimo_resolvido", "metodo_resolucao",
            "confianca_geo", "coordenadas_lat", "coordenadas_lng", "event_id", "correlacao_id",
            "endereco_original", "endereco_geocodificado",
        )
    }  # fmt: skip
    # An array literal per chain: its uuids hold neither commas, braces nor quotes.
    colunas["cadeia_ucs"] = ["{" + ",".join(linha["cadeia_ucs"]) + "}" for linha in linhas]
    return colunas


def payload_saida(resolucao: dict[str, Any]) -> dict[str, Any]:
    """demanda.georreferenciada exactly as spec 3.2, from a stored resolution."""
    return {
        "demanda_id": str(resolucao["demanda_id"]),
        "unidade_civica_id": str(resolucao["unidade_civica_id"]),
        "nivel_minimo_resolvido": resolucao["nivel_minimo_resolvido"],
        "cadeia_ucs": [str(uc) for uc in resolucao["cadeia_ucs"] or []],
        "metodo_resolucao": resolucao["metodo_resolucao"],
        "confianca_geo": resolucao["confianca_geo"],
        "coordenadas_lat": resolucao["coordenadas_lat"],
        "coordenadas_lng": resolucao["coordenadas_lng"],
    }
