"""The gap test (docs/design.md, decision 6): a reader following core.event_log never skips.

Several producers, each on its own connection, insert events (plain INSERTs, and
bus.publicar of one or many rows, the worker's way), all numbered at INSERT by the table's
default, and wait a random few milliseconds between insert and commit, so transactions
commit in a different order than they inserted; some roll back. Meanwhile a reader
follows the log with ler_desde from its cursor, as the worker does. At the end the
reader's list must be exactly the committed events, in the readers' (transacao,
sequence_number) order, each once. Reading "sequence_number > cursor" alone would skip events here.

Run it many times by hand: D2_GAP_REPEAT=20 pytest tests/integration/test_event_log_gaps.py
"""

from __future__ import annotations

import itertools
import os
import random
import threading
import time
import uuid
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row

from d2.eventlog import bus
from tests.support import Conn

TIPO = "demanda.georreferenciada"
PRODUTORES = 6
TRANSACOES_POR_PRODUTOR = 220
REPETICOES = int(os.environ.get("D2_GAP_REPEAT", "1"))


def payload(rng: random.Random) -> dict[str, Any]:
    uc = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    return {
        "demanda_id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        "unidade_civica_id": uc,
        "nivel_minimo_resolvido": rng.randint(1, 7),
        "cadeia_ucs": [uc],
        "metodo_resolucao": "gps",
        "confianca_geo": "alta",
    }


def produzir(url: str, semente: int, confirmados: set[uuid.UUID], lock: threading.Lock) -> None:
    rng = random.Random(semente)
    with psycopg.connect(url, row_factory=dict_row) as conn:
        for _ in range(TRANSACOES_POR_PRODUTOR):
            ids: list[uuid.UUID] = []
            forma = rng.random()
            if forma < 0.5:
                ids.extend(bus.publicar(conn, [bus.preparar(TIPO, payload(rng))], origem="gap"))
            elif forma < 0.7:
                # An upstream producer's plain INSERT (DESIGN "Event log").
                event_id = uuid.uuid4()
                conn.execute(
                    "INSERT INTO core.event_log (event_id, tipo, versao_schema, origem,"
                    " correlacao_id, payload) VALUES (%(id)s, %(tipo)s, '1.0.0', 'upstream',"
                    " NULL, '{}'::jsonb)",
                    {"id": event_id, "tipo": TIPO},
                )
                ids.append(event_id)
            else:
                preparados = [bus.preparar(TIPO, payload(rng)) for _ in range(rng.randint(2, 12))]
                ids.extend(bus.publicar(conn, preparados, origem="gap"))
            time.sleep(rng.random() * 0.004)
            if rng.random() < 0.1:
                conn.rollback()
                continue
            conn.commit()
            with lock:
                confirmados.update(ids)


def seguir(url: str, fim: threading.Event, lidos: list[bus.Evento]) -> None:
    cursor = bus.Position(0, 0)
    with psycopg.connect(url, autocommit=True, row_factory=dict_row) as conn:
        while True:
            terminou = fim.is_set()  # read before polling: the last poll sees every commit
            novos = bus.ler_desde(conn, TIPO, cursor, limite=200)
            lidos.extend(novos)
            if novos:
                cursor = bus.position(novos[-1])
            elif terminou:
                return
            else:
                time.sleep(0.0005)


@pytest.mark.parametrize("vez", range(REPETICOES))
def test_event_log__reader_never_skips_with_out_of_order_commits(
    db_url: str, conn: Conn, vez: int
) -> None:
    confirmados: set[uuid.UUID] = set()
    lock = threading.Lock()
    lidos: list[bus.Evento] = []
    fim = threading.Event()
    leitor = threading.Thread(target=seguir, args=(db_url, fim, lidos))
    produtores = [
        threading.Thread(target=produzir, args=(db_url, vez * 100 + i, confirmados, lock))
        for i in range(PRODUTORES)
    ]
    leitor.start()
    for produtor in produtores:
        produtor.start()
    for produtor in produtores:
        produtor.join()
    fim.set()
    leitor.join(timeout=60)
    assert not leitor.is_alive()

    no_log = [
        row["event_id"]
        for row in conn.execute(
            "SELECT event_id FROM core.event_log WHERE tipo = %(tipo)s"
            " ORDER BY transacao, sequence_number",
            {"tipo": TIPO},
        )
    ]
    lidos_ids = [evento.event_id for evento in lidos]
    assert len(confirmados) > 2000
    assert set(no_log) == confirmados
    assert len(lidos_ids) == len(set(lidos_ids))  # each once
    assert lidos_ids == no_log  # in the readers' order, nothing skipped
    positions = [bus.position(evento) for evento in lidos]
    assert positions == sorted(positions)
    # Within one transaction, the order of insertion.
    assert all(
        a.sequencia < b.sequencia
        for a, b in itertools.pairwise(positions)
        if a.transacao == b.transacao
    )
    # Numbered at INSERT: nothing without a number, no transaction id missing.
    sem_numero = conn.execute(
        "SELECT count(*) AS n FROM core.event_log"
        " WHERE sequence_number IS NULL OR transacao IS NULL"
    ).fetchone()
    assert sem_numero == {"n": 0}
