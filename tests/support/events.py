"""Upstream events for tests: demanda.normalizada written the way D-1b does (plain INSERT)."""

from __future__ import annotations

import json
import uuid
from typing import Any

import psycopg

from d2.eventlog import registry
from d2.territorio import comunitario

TIPO = "demanda.normalizada"


class JsonBruto(str):
    """JSON text sent as is (numbers Python cannot write, such as 1e400)."""


def payload_normalizada(
    lat: Any = -27.0, lng: Any = -49.0, *, demanda_id: Any = None, **extra: Any
) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "demanda_id": str(demanda_id or uuid.uuid4()),
        "titulo": "Buraco na rua",
        "descricao_limpa": "Há um buraco grande na rua principal",
        "tipo_midia_processada": "texto",
        "coordenadas_validadas": {"lat": lat, "lng": lng},
        "confianca_normalizacao": 0.9,
        "origem_normalizacao": "automatico",
        "conteudo_suspeito": False,
    }
    payload.update(extra)
    return payload


def payload_georreferenciada(**changes: Any) -> dict[str, Any]:
    """A valid demanda.georreferenciada payload (spec 3.2), a bairro with its município."""
    uc = str(uuid.uuid4())
    payload: dict[str, Any] = {
        "demanda_id": str(uuid.uuid4()),
        "unidade_civica_id": uc,
        "nivel_minimo_resolvido": 2,
        "cadeia_ucs": [uc, str(uuid.uuid4())],
        "metodo_resolucao": "gps",
        "confianca_geo": "alta",
        "coordenadas_lat": -27.5,
        "coordenadas_lng": -48.5,
    }
    payload.update(changes)
    return payload


def inserir_evento(
    conn: psycopg.Connection[Any],
    payload: Any,
    *,
    event_id: uuid.UUID | None = None,
    correlacao_id: uuid.UUID | None = None,
    versao: str = "1.2.0",
    tipo: str = TIPO,
    origem: str = "D-1b",
) -> uuid.UUID:
    """Publish like an upstream producer (D-1b by default): a plain INSERT, autocommitted."""
    event_id = event_id or uuid.uuid4()
    conn.execute(
        """
        INSERT INTO core.event_log (event_id, tipo, versao_schema, origem, correlacao_id, payload)
        VALUES (%(event_id)s, %(tipo)s, %(versao)s, %(origem)s, %(correlacao_id)s,
                %(payload)s::jsonb)
        """,
        {
            "event_id": event_id,
            "tipo": tipo,
            "versao": versao,
            "origem": origem,
            "correlacao_id": correlacao_id,
            "payload": payload if isinstance(payload, JsonBruto) else json.dumps(payload),
        },
    )
    return event_id


def inserir_evento_importador(
    conn: psycopg.Connection[Any], payload: Any, *, tipo: str, versao: str = "1.0.0"
) -> uuid.UUID:
    """Publish a uc.poligono_* event as D-2's importers do: origem 'D-2' and recorded in
    d2.poligonos_eventos with its payload's md5 (d2.poligonos_publicar_estado), which only
    the owner writes: the replica applies it as official territory. (An event without a
    polygon id is published unrecorded, as the importers never publish one.)"""
    event_id = inserir_evento(conn, payload, tipo=tipo, versao=versao, origem="D-2")
    conn.execute(
        "INSERT INTO d2.poligonos_eventos (event_id, uc_polygon_id, hash)"
        " SELECT e.event_id, (e.payload ->> 'uc_polygon_id')::uuid, md5(e.payload::text)"
        " FROM core.event_log e WHERE e.event_id = %(id)s AND (e.payload ->> 'uc_polygon_id')"
        " ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'",
        {"id": event_id},
    )
    return event_id


def saidas(conn: psycopg.Connection[Any]) -> list[dict[str, Any]]:
    """Every demanda.georreferenciada published, in order."""
    return conn.execute(
        """
        SELECT event_id, correlacao_id, versao_schema, origem, payload, sequence_number
        FROM core.event_log WHERE tipo = 'demanda.georreferenciada' ORDER BY sequence_number
        """
    ).fetchall()


def submeter_drawing(
    conn: psycopg.Connection[Any],
    geometria: Any,
    *,
    nivel: int = 2,
    nome: str = "Vila Nova",
    tipo_lugar: str = "poligono_uc",
    autor_id: uuid.UUID | None = None,
) -> uuid.UUID:
    """Publish one lugar.cadastrado (a citizen's drawing) as L-1 would; returns its event_id.
    Each drawing has an author of its own unless autor_id is given."""
    payload: dict[str, Any] = {
        "lugar_id": str(uuid.uuid4()),
        "tipo_lugar": tipo_lugar,
        "geometria": geometria,
        "nivel": nivel,
        "nome": nome,
        "autor_id": str(autor_id or uuid.uuid4()),
    }
    if geometria is None:  # another kind of place: L-1 sends no drawing
        payload = {k: payload[k] for k in ("lugar_id", "tipo_lugar", "nome")}
    registry.validar(comunitario.TIPO_ENTRADA, payload)  # what L-1 publishes is valid
    return inserir_evento(
        conn, payload, tipo=comunitario.TIPO_ENTRADA, versao="1.0.0", correlacao_id=uuid.uuid4()
    )
