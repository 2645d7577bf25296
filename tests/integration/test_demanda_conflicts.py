"""A real demand hijacked by a copy. A colony whose role may only
INSERT into core.event_log takes a transaction id early, waits for D-1b's event, then
inserts a copy with the same demanda_id and other coordinates: the copy sits first in
the readers' (transacao, sequence_number) order. First-wins stored and published the
copy and sent the real event to the dead letters as repeated. Now: an origem not
allowed to publish demanda.normalizada is a dead letter; a copy under D-1b's own origem
(which any producer can declare) still gets there first, but the real event sends the
demanda to a conflict review instead of the dead letters, nothing more is published for
it, and the operator's choice is published. The worker runs as a d2_worker login."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from d2 import cli, config, errors
from d2.ops import conflicts, status
from tests.support import Conn, drenar, invariants, semear_cursor
from tests.support.events import inserir_evento, payload_normalizada, saidas
from tests.support.territorio import Territorio, inserir_uc, poligono, quadrado

REAL = (-27.0, -49.0)  # bairro A1
COPIA = (-27.0, -42.0)  # município B, which has no bairro


def _sequestrar(conn: Conn, colonia: Conn, origem: str) -> tuple[uuid.UUID, uuid.UUID, uuid.UUID]:
    """The attack: (demanda_id, the real event, the copy). D-1b commits first; the copy's
    transaction started before, so readers reach it first."""
    demanda = uuid.uuid4()
    copia = uuid.uuid4()
    with colonia.transaction():
        colonia.execute("SELECT pg_current_xact_id()")
        real = inserir_evento(conn, payload_normalizada(*REAL, demanda_id=demanda))
        colonia.execute(
            "INSERT INTO core.event_log (event_id, tipo, versao_schema, origem, payload)"
            " VALUES (%(id)s, 'demanda.normalizada', '1.2.0', %(origem)s, %(payload)s::jsonb)",
            {
                "id": copia,
                "origem": origem,
                "payload": json.dumps(payload_normalizada(*COPIA, demanda_id=demanda)),
            },
        )
    ordem = conn.execute(
        "SELECT event_id FROM core.event_log WHERE tipo = 'demanda.normalizada'"
        " ORDER BY transacao, sequence_number"
    ).fetchall()
    assert [r["event_id"] for r in ordem] == [copia, real]
    return demanda, real, copia


def _publicado_para(conn: Conn, demanda: uuid.UUID) -> list[str]:
    return [
        s["payload"]["unidade_civica_id"]
        for s in saidas(conn)
        if s["payload"]["demanda_id"] == str(demanda)
    ]


def _mortos(conn: Conn) -> set[uuid.UUID]:
    return {
        r["event_id"]
        for r in conn.execute(
            "SELECT event_id FROM core.dead_letter_queue WHERE consumidor = 'D-2'"
        )
    }


def test_demanda__a_copy_from_an_origin_not_allowed_is_dead_lettered(
    conn: Conn, login_url: str, colonia: Conn
) -> None:
    t = Territorio(conn)
    semear_cursor(conn)
    demanda, real, copia = _sequestrar(conn, colonia, "D-4")
    drenar(login_url)
    assert _publicado_para(conn, demanda) == [str(t.bairro_a1)]
    assert conn.execute(
        "SELECT event_id FROM d2.resolucoes_geo WHERE demanda_id = %s", [demanda]
    ).fetchone() == {"event_id": real}
    assert _mortos(conn) == {copia}
    erro = conn.execute(
        "SELECT erro FROM core.dead_letter_queue WHERE event_id = %s", [copia]
    ).fetchone()
    assert (
        erro is not None and "origem 'D-4'" in erro["erro"] and "D2_DEMANDA_ORIGENS" in erro["erro"]
    )
    invariants.verificar(conn)


def test_demanda__a_copy_under_d1b_sends_the_demand_to_review_not_the_real_event_to_the_dlq(
    conn: Conn, login_url: str, colonia: Conn
) -> None:
    t = Territorio(conn)
    semear_cursor(conn)
    demanda, real, copia = _sequestrar(conn, colonia, "D-1b")
    drenar(login_url)
    # The copy came first and was published: nothing can take that back.
    assert _publicado_para(conn, demanda) == [str(t.mun_b)]
    # The real event is no dead letter: the demanda waits for an operator.
    assert _mortos(conn) == set()
    linhas = conflicts.listar(conn)
    assert {(r["event_id"], r["papel"]) for r in linhas} == {
        (copia, "titular"),
        (real, "conflitante"),
    }
    assert {r["demanda_id"] for r in linhas} == {demanda}
    assert status.status(conn)["conflitos"] == {"demandas": 1, "eventos": 1}
    assert "d2 conflicts list" in status.formatar_status(status.status(conn))
    invariants.verificar(conn)

    # Meanwhile nothing more is published for it: not when the territory changes under
    # the copy's point, not when the log is replayed.
    inserir_uc(conn, 2, "Bairro B1", poligono(quadrado(-43, -28, -41, -26)), t.mun_b)
    drenar(login_url)
    conn.execute(
        "UPDATE d2.consumer_offset SET last_sequence = 0 WHERE tipo_evento = 'demanda.normalizada'"
    )
    conn.execute(
        "DELETE FROM d2.consumer_offset_transacao WHERE tipo_evento = 'demanda.normalizada'"
    )
    drenar(login_url)
    assert _publicado_para(conn, demanda) == [str(t.mun_b)]
    assert _mortos(conn) == set()
    invariants.verificar(conn)


def test_demanda__the_operator_accepts_the_real_event_and_its_answer_is_published(
    conn: Conn, login_url: str, colonia: Conn, capsys: pytest.CaptureFixture[str]
) -> None:
    t = Territorio(conn)
    semear_cursor(conn)
    demanda, real, copia = _sequestrar(conn, colonia, "D-1b")
    drenar(login_url)
    capsys.readouterr()
    assert cli.main(["conflicts", "aceitar", str(real), "--by", "ana", "--json"]) == 0
    feito = json.loads(capsys.readouterr().out)
    assert feito["desfecho"] == "georreferenciada"
    assert _publicado_para(conn, demanda) == [str(t.mun_b), str(t.bairro_a1)]
    resposta = conn.execute(
        "SELECT event_id, unidade_civica_id FROM d2.resolucoes_geo WHERE demanda_id = %s",
        [demanda],
    ).fetchone()
    assert resposta == {"event_id": real, "unidade_civica_id": t.bairro_a1}
    decisoes = conn.execute(
        "SELECT event_id, decisao, decidido_por, resolucao_anterior IS NOT NULL AS tinha"
        " FROM d2.conflitos_demanda WHERE demanda_id = %s ORDER BY decisao",
        [demanda],
    ).fetchall()
    assert decisoes == [
        {"event_id": real, "decisao": "aceito", "decidido_por": "ana", "tinha": False},
        {"event_id": copia, "decisao": "recusado", "decidido_por": "ana", "tinha": True},
    ]
    assert conflicts.listar(conn) == []
    with pytest.raises(errors.InvalidInput, match="no open conflict"):
        conflicts.aceitar(conn, config.load(), real, "ana")
    invariants.verificar(conn)
    # Settled, a replay republishes the real answer only.
    conn.execute(
        "UPDATE d2.consumer_offset SET last_sequence = 0 WHERE tipo_evento = 'demanda.normalizada'"
    )
    conn.execute(
        "DELETE FROM d2.consumer_offset_transacao WHERE tipo_evento = 'demanda.normalizada'"
    )
    drenar(login_url)
    assert _publicado_para(conn, demanda)[-1] == str(t.bairro_a1)
    invariants.verificar(conn)


def test_demanda__accepting_the_first_event_keeps_its_answer_and_follows_the_territory(
    conn: Conn, login_url: str, colonia: Conn
) -> None:
    """The operator may find the first event was the real one: it keeps the demanda, and
    what the territory changed meanwhile reaches it."""
    t = Territorio(conn)
    semear_cursor(conn)
    demanda, _, copia = _sequestrar(conn, colonia, "D-1b")
    drenar(login_url)
    b1 = inserir_uc(conn, 2, "Bairro B1", poligono(quadrado(-43, -28, -41, -26)), t.mun_b)
    drenar(login_url)
    assert _publicado_para(conn, demanda) == [str(t.mun_b)]
    feito = conflicts.aceitar(conn, config.load(), copia, "ana")
    assert feito["desfecho"] == "mantida"
    drenar(login_url)
    assert _publicado_para(conn, demanda) == [str(t.mun_b), str(b1)]
    invariants.verificar(conn)


@pytest.mark.parametrize("mesmo_batch", [True, False], ids=["same_batch", "later_batch"])
def test_demanda__a_retry_with_identical_content_stays_a_repeated_dead_letter(
    conn: Conn, db_url: str, mesmo_batch: bool
) -> None:
    """A producer's retry (a new event_id, the same payload) is no conflict."""
    Territorio(conn)
    semear_cursor(conn)
    payload: dict[str, Any] = payload_normalizada(*REAL)
    primeiro = inserir_evento(conn, payload)
    if not mesmo_batch:
        drenar(db_url)
    repetido = inserir_evento(conn, payload)
    drenar(db_url)
    assert _mortos(conn) == {repetido}
    assert conflicts.listar(conn) == []
    assert conn.execute(
        "SELECT event_id FROM d2.resolucoes_geo WHERE demanda_id = %s", [payload["demanda_id"]]
    ).fetchone() == {"event_id": primeiro}
    invariants.verificar(conn)
