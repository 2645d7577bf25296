"""The bad-input corpus (tests/support/corpus.py) and a property test: every event ends in its
documented outcome, the worker never dies, and each outcome has one clear log line.
"""

from __future__ import annotations

import json
import logging
import os
import uuid
from collections.abc import Iterator
from typing import Any

import hypothesis
import psycopg
import pytest
from hypothesis import strategies as st

from d2 import config
from d2.worker import loop
from tests.support import Conn, corpus, invariants, semear_cursor
from tests.support.events import JsonBruto, inserir_evento, payload_normalizada
from tests.support.territorio import Territorio

# What the handler logs (logger d2.handler) for each outcome: (level, message).
LINHA_DO_OUTCOME = {
    corpus.GEORREFERENCIADA: ("INFO", "Demanda georreferenciada"),
    corpus.SEM_COORDENADAS: ("WARNING", "Demanda sem coordenadas — descartando"),
    corpus.COORDENADAS_INVALIDAS: ("ERROR", "Coordenadas inválidas"),
    corpus.REVISAO_PENDENTE: (
        "WARNING",
        "Ponto fora de todos os polígonos — demanda marcada para revisão manual",
    ),
    corpus.CONFLITO: (
        "WARNING",
        "Demanda em conflito — mesmo demanda_id com outro conteúdo; aguardando decisão do operador",
    ),
    corpus.DEAD_LETTER: ("ERROR", "Evento enviado à DLQ"),
}
OUTCOME_DA_LINHA = {msg: outcome for outcome, (_, msg) in LINHA_DO_OUTCOME.items()}


class Coletor(logging.Handler):
    """Keeps every record of the d2 loggers (caplog misses them once d2.logs.configure has
    turned propagation off in this process)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.registros: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.registros.append(record)

    def do_handler(self, event_id: uuid.UUID) -> list[logging.LogRecord]:
        return [
            r
            for r in self.registros
            if r.name == "d2.handler" and str(getattr(r, "event_id", "")) == str(event_id)
        ]


@pytest.fixture
def logs() -> Iterator[Coletor]:
    coletor = Coletor()
    raiz = logging.getLogger("d2")
    nivel = raiz.level
    raiz.addHandler(coletor)
    raiz.setLevel(logging.DEBUG)
    try:
        yield coletor
    finally:
        raiz.removeHandler(coletor)
        raiz.setLevel(nivel)


def _publicar(conn: Conn, caso: corpus.Caso) -> uuid.UUID:
    return inserir_evento(
        conn,
        caso.payload,
        event_id=caso.event_id,
        correlacao_id=caso.correlacao_id,
        versao=caso.versao,
        origem=caso.origem,
    )


def _outcome_no_banco(conn: Conn, event_id: uuid.UUID) -> str | None:
    """resolution / review / dead letter from the tables; a discard is only 'processed'."""
    row = conn.execute(
        """
        SELECT EXISTS (SELECT 1 FROM d2.resolucoes_geo WHERE event_id = %(id)s) AS resolvido,
               EXISTS (SELECT 1 FROM d2.revisoes_geo_pendentes WHERE event_id = %(id)s)
                   AS revisao,
               EXISTS (SELECT 1 FROM core.dead_letter_queue WHERE event_id = %(id)s) AS morto,
               EXISTS (SELECT 1 FROM d2.conflitos_demanda WHERE event_id = %(id)s)
                   AS conflito,
               EXISTS (SELECT 1 FROM d2.eventos_processados WHERE event_id = %(id)s)
                   AS processado
        """,
        {"id": event_id},
    ).fetchone()
    assert row is not None
    if row["resolvido"]:
        return corpus.GEORREFERENCIADA
    if row["revisao"]:
        return corpus.REVISAO_PENDENTE
    if row["morto"]:
        return corpus.DEAD_LETTER
    if row["conflito"]:
        return corpus.CONFLITO
    return "descartado" if row["processado"] else None


def _outcome(conn: Conn, logs: Coletor, event_id: uuid.UUID) -> str:
    """The outcome as the tables and the single log line of the handler both tell it."""
    linhas = logs.do_handler(event_id)
    assert len(linhas) == 1, [r.getMessage() for r in linhas]
    pela_linha = OUTCOME_DA_LINHA[linhas[0].getMessage()]
    no_banco = _outcome_no_banco(conn, event_id)
    discarded = (corpus.SEM_COORDENADAS, corpus.COORDENADAS_INVALIDAS)
    assert no_banco == pela_linha or (no_banco == "descartado" and pela_linha in discarded)
    return pela_linha


def _motivo(registro: logging.LogRecord) -> str:
    return str(getattr(registro, "motivo", ""))


@pytest.mark.parametrize("batch", [1, 16], ids=["event_by_event", "batches_of_16"])
def test_corpus__every_case_ends_in_its_documented_outcome_with_a_clear_log_line(
    conn: Conn, db_url: str, logs: Coletor, batch: int
) -> None:
    Territorio(conn)
    semear_cursor(conn)
    publicados: dict[str, uuid.UUID] = {}
    recusados: dict[str, str] = {}
    for caso in corpus.CASOS:
        try:
            publicados[caso.nome] = _publicar(conn, caso)
        except psycopg.Error as exc:
            recusados[caso.nome] = type(exc).__name__
    esperados_recusados = {
        c.nome for c in corpus.CASOS if c.esperado == corpus.REFUSED_BY_EVENT_LOG
    }
    assert set(recusados) == esperados_recusados, recusados

    loop.Worker(config.load(), url=db_url, batch_size=batch).executar(drain=True)

    obtidos = {nome: _outcome(conn, logs, event_id) for nome, event_id in publicados.items()}
    esperados = {c.nome: c.esperado for c in corpus.CASOS if c.nome in publicados}
    assert obtidos == esperados
    for caso in corpus.CASOS:
        if caso.motivo:
            [linha] = logs.do_handler(publicados[caso.nome])
            assert linha.levelname == LINHA_DO_OUTCOME[caso.esperado][0]
            assert any(m in _motivo(linha) for m in caso.motivo), (caso.nome, _motivo(linha))
            assert len(_motivo(linha)) < 300, "a log reason is one short line"
    contagens = invariants.verificar(conn)
    assert contagens["perdidos"] == 0 and contagens["duplicados"] == 0

    # The worker is still fine: one more valid event goes through.
    depois = inserir_evento(conn, payload_normalizada(-27.0, -49.0))
    loop.Worker(config.load(), url=db_url, batch_size=batch).executar(drain=True)
    assert _outcome(conn, logs, depois) == corpus.GEORREFERENCIADA
    invariants.verificar(conn)


@pytest.mark.parametrize(
    "texto",
    [
        '{"lat": NaN}',
        '{"lat": Infinity}',
        '{"lat": -Infinity}',
        '{"titulo": "\\u0000"}',
        '{"titulo": "\\ud800"}',
        '{"titulo": "\\udc00x"}',
    ],
)
def test_event_log__refuses_at_insert_what_jsonb_cannot_hold(conn: Conn, texto: str) -> None:
    with pytest.raises(psycopg.errors.DataError):
        inserir_evento(conn, JsonBruto(texto))
    assert conn.execute("SELECT count(*) AS n FROM core.event_log").fetchone() == {"n": 0}


def test_corpus__duplicate_demanda_with_a_discard_has_the_same_outcome_in_a_batch(
    conn: Conn, db_url: str
) -> None:
    """The service promises a batch gives every event its per-event outcome. Event by
    event, a discard (no coordinates) never meets the duplicate check: a demanda first
    discarded and then published with coordinates is resolved, and one resolved and then
    published without coordinates is discarded. In one batch it must be the same."""
    Territorio(conn)
    outcomes: dict[int, dict[str, int]] = {}
    for batch in (1, 16):
        conn.execute("TRUNCATE core.event_log, d2.eventos_processados, d2.resolucoes_geo")
        conn.execute("TRUNCATE d2.consumer_offset, d2.revisoes_geo_pendentes")
        conn.execute("TRUNCATE core.dead_letter_queue")
        semear_cursor(conn)
        primeiro_descartado, depois_descartado = uuid.uuid4(), uuid.uuid4()
        for payload in (
            payload_normalizada(demanda_id=primeiro_descartado, coordenadas_validadas=None),
            payload_normalizada(-27.0, -49.0, demanda_id=primeiro_descartado),
            payload_normalizada(-27.0, -49.0, demanda_id=depois_descartado),
            payload_normalizada(demanda_id=depois_descartado, coordenadas_validadas=None),
        ):
            inserir_evento(conn, payload)
        resultado = loop.Worker(config.load(), url=db_url, batch_size=batch).executar(drain=True)
        outcomes[batch] = dict(resultado.contagem)
        invariants.verificar(conn)
    assert outcomes[1] == {"sem_coordenadas": 2, "georreferenciada": 2}
    assert outcomes[16] == outcomes[1]


# --- property: random payloads -------------------------------------------------------------

_escalares = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
)
_json = st.recursive(
    _escalares,
    lambda filhos: st.lists(filhos, max_size=4) | st.dictionaries(st.text(max_size=8), filhos),
    max_leaves=12,
)
_coordenada = (
    st.floats(allow_nan=True, allow_infinity=True)
    | st.floats(min_value=-35, max_value=-5)
    | st.floats(min_value=-55, max_value=-25)
    | st.integers(min_value=-200, max_value=200)
    | _json
)
_demanda_id = st.uuids().map(str) | st.sampled_from([str(uuid.UUID(int=1))]) | _json
_payload_normalizada = st.fixed_dictionaries(
    {"demanda_id": _demanda_id},
    optional={
        "coordenadas_validadas": st.fixed_dictionaries(
            {}, optional={"lat": _coordenada, "lng": _coordenada}
        )
        | _json,
        "titulo": _json,
    },
)
_payload = _payload_normalizada | _json
EXEMPLOS = int(
    os.environ.get("D2_CORPUS_EXAMPLES", "300" if os.environ.get("D2_CHAOS_FULL") else "40")
)


@hypothesis.settings(
    max_examples=EXEMPLOS,
    deadline=None,
    suppress_health_check=[hypothesis.HealthCheck.function_scoped_fixture],
    database=None,
)
@hypothesis.given(
    payloads=st.lists(_payload, min_size=1, max_size=6),
    batch=st.sampled_from([1, 4, 500]),
    versao=st.sampled_from(["1.2.0", "1.0.0", "2.0.0"]),
)
def test_corpus__random_payloads_end_exactly_once_and_the_worker_keeps_going(
    conn: Conn, db_url: str, payloads: list[Any], batch: int, versao: str
) -> None:
    """The database accumulates across examples: the invariants hold for all so far."""
    if _sem_territorio(conn):
        Territorio(conn)
    semear_cursor(conn)
    for payload in payloads:
        texto = json.dumps(payload)  # NaN/Infinity tokens, \u0000: refused by jsonb
        try:
            inserir_evento(conn, JsonBruto(texto), versao=versao)
        except psycopg.errors.DataError:
            assert any(t in texto for t in ("NaN", "Infinity", "\\u0000")), texto
    loop.Worker(config.load(), url=db_url, batch_size=batch).executar(drain=True)
    contagens = invariants.verificar(conn)
    assert contagens["perdidos"] == 0 and contagens["duplicados"] == 0
    processados = conn.execute(
        "SELECT count(*) AS n FROM core.event_log e WHERE tipo = 'demanda.normalizada' AND "
        "(EXISTS (SELECT 1 FROM d2.eventos_processados p WHERE p.event_id = e.event_id) OR "
        " EXISTS (SELECT 1 FROM d2.conflitos_demanda c WHERE c.event_id = e.event_id) OR "
        " EXISTS (SELECT 1 FROM core.dead_letter_queue d WHERE d.event_id = e.event_id))"
    ).fetchone()
    assert processados == {"n": contagens["eventos"]}


def _sem_territorio(conn: Conn) -> bool:
    return conn.execute("SELECT count(*) AS n FROM core.uc_polygons").fetchone() == {"n": 0}
