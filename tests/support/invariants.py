"""The invariant checker: after anything (kills, restarts, failures), every event of
demanda.normalizada ended exactly once and nothing was published that should not be."""

from __future__ import annotations

from collections import Counter
from typing import Any

import psycopg

from d2.eventlog import registry


def verificar(conn: psycopg.Connection[dict[str, Any]]) -> dict[str, int]:
    """Assert the invariants; returns counts (events, lost, duplicated, ...)."""
    eventos = {
        r["event_id"]: r
        for r in conn.execute(
            "SELECT event_id, sequence_number, correlacao_id FROM core.event_log "
            "WHERE tipo = 'demanda.normalizada'"
        )
    }
    resolvidos = Counter(
        r["event_id"] for r in conn.execute("SELECT event_id FROM d2.resolucoes_geo")
    )
    processados = {
        r["event_id"] for r in conn.execute("SELECT event_id FROM d2.eventos_processados")
    }
    pendentes = {
        r["event_id"] for r in conn.execute("SELECT event_id FROM d2.revisoes_geo_pendentes")
    }
    mortos = {
        r["event_id"]
        for r in conn.execute(
            "SELECT event_id FROM core.dead_letter_queue WHERE status = 'pendente'"
        )
    }
    # Address demands waiting for the geocoder: not terminal yet, but a state:
    # nothing else may have happened to them.
    estacionados = {
        r["event_id"] for r in conn.execute("SELECT event_id FROM d2.geocodificacoes_pendentes")
    }
    assert not estacionados & processados, "a parked address demand marked processed"
    # A demanda_id held by another event with other content (a conflict): the row is
    # the event's terminal state while it holds no resolution or review (an event the
    # operator decided against keeps its row, and its processed mark if it had one).
    conflitos = {r["event_id"] for r in conn.execute("SELECT event_id FROM d2.conflitos_demanda")}
    # Terminal: resolution (+ processed), processed discard, pending review (+ processed),
    # conflict, DLQ.
    perdidos = 0
    duplicados = 0
    for event_id in eventos:
        estados = 0
        if resolvidos[event_id]:
            estados += 1
        if event_id in pendentes:
            estados += 1
        detem = resolvidos[event_id] or event_id in pendentes
        if event_id in conflitos and not detem:
            estados += 1  # in conflict, or decided against
        if event_id in processados and not detem and event_id not in conflitos:
            estados += 1  # a discard
        if event_id in mortos:
            estados += 1
        if event_id in estacionados:
            estados += 1
        if estados == 0:
            perdidos += 1
        elif estados > 1:
            duplicados += 1
        if resolvidos[event_id] or event_id in pendentes:
            assert event_id in processados, f"{event_id} not marked processed"
    assert perdidos == 0, f"{perdidos} events in no terminal state"
    assert duplicados == 0, f"{duplicados} events in more than one terminal state"
    assert all(n == 1 for n in resolvidos.values()), "an event resolved twice"
    por_demanda = Counter(
        r["demanda_id"] for r in conn.execute("SELECT demanda_id FROM d2.resolucoes_geo")
    )
    assert all(n == 1 for n in por_demanda.values()), "a demanda_id with two resolutions"
    # An address resolution keeps its text; a GPS one has none (spec 2.2, Phase 2). A
    # GPS point no polygon held is gps/media, answered by the near rule or an operator
    # (its step recorded in d2.revisoes_tratadas).
    incoerentes = conn.execute(
        "SELECT count(*) AS n FROM d2.resolucoes_geo g WHERE (g.metodo_resolucao = 'gps') "
        "<> (g.endereco_original IS NULL) OR ((g.metodo_resolucao, g.confianca_geo) NOT IN "
        "(('gps', 'alta'), ('endereco', 'media'), ('inferencia', 'baixa')) AND NOT ("
        "(g.metodo_resolucao, g.confianca_geo) = ('gps', 'media') AND EXISTS (SELECT 1 "
        "FROM d2.revisoes_tratadas t WHERE t.event_id = g.event_id "
        "AND t.passo IN ('proximidade', 'operador'))))"
    ).fetchone()
    assert incoerentes == {"n": 0}, "a resolution whose method, confidence and text disagree"

    saidas: dict[str, list[dict[str, Any]]] = {}
    for r in conn.execute(
        "SELECT correlacao_id, versao_schema, payload FROM core.event_log "
        "WHERE tipo = 'demanda.georreferenciada' ORDER BY sequence_number"
    ):
        assert (
            registry.registry().erros("demanda.georreferenciada", r["payload"], r["versao_schema"])
            == []
        )
        saidas.setdefault(r["payload"]["demanda_id"], []).append(r)
    # A conflict decided for another event replaced what was published for the first.
    substituidas = {
        str(r["demanda_id"])
        for r in conn.execute(
            "SELECT demanda_id FROM d2.conflitos_demanda WHERE resolucao_anterior IS NOT NULL"
        )
    }
    for r in conn.execute("SELECT demanda_id, correlacao_id FROM d2.resolucoes_geo"):
        publicados = saidas.get(str(r["demanda_id"]), [])
        assert publicados, f"resolution of {r['demanda_id']} never published"
        if str(r["demanda_id"]) in substituidas:
            publicados = publicados[-1:]
        assert all(p["correlacao_id"] == r["correlacao_id"] for p in publicados)
    resolvidas = {
        str(r["demanda_id"]) for r in conn.execute("SELECT demanda_id FROM d2.resolucoes_geo")
    }
    assert set(saidas) <= resolvidas, "published for a demanda that has no resolution"
    em_revisao = {
        str(r["demanda_id"])
        for r in conn.execute("SELECT demanda_id FROM d2.revisoes_geo_pendentes")
    }
    assert not set(saidas) & em_revisao, "published for a demanda pending review"
    mortos_publicados = conn.execute(
        "SELECT count(*) AS n FROM core.dead_letter_queue d "
        "JOIN d2.resolucoes_geo r ON r.event_id = d.event_id WHERE d.status = 'pendente'"
    ).fetchone()
    assert mortos_publicados == {"n": 0}, "a dead letter whose event also has a resolution"
    for r in conn.execute("SELECT demanda_id, unidade_civica_id FROM d2.resolucoes_geo"):
        ultima = saidas[str(r["demanda_id"])][-1]["payload"]
        assert ultima["unidade_civica_id"] == str(r["unidade_civica_id"]), "stale publication"

    cursor = conn.execute(
        "SELECT last_sequence FROM d2.consumer_offset WHERE tipo_evento = 'demanda.normalizada'"
    ).fetchone()
    # The end in the readers' (transacao, sequence_number) order.
    ultimo = conn.execute(
        "SELECT sequence_number FROM core.event_log WHERE tipo = 'demanda.normalizada'"
        " ORDER BY coalesce(transacao, '0'::xid8) DESC, sequence_number DESC LIMIT 1"
    ).fetchone()
    maior = ultimo["sequence_number"] if ultimo else 0
    assert cursor is not None and cursor["last_sequence"] == maior, "cursor not at the end"
    return {
        "eventos": len(eventos),
        "perdidos": perdidos,
        "duplicados": duplicados,
        "resolvidos": len(resolvidos),
        "publicados": sum(len(v) for v in saidas.values()),
        "publicacoes_extra": sum(len(v) - 1 for v in saidas.values()),
        "pendentes": len(pendentes),
        "dead_letters": len(mortos),
        "geocodificacoes_pendentes": len(estacionados),
        "conflitos": len(conflitos),
    }
