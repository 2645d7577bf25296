"""`d2 dlq list` / `d2 dlq retry`: dead letters run through the handler again."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from d2 import config
from d2.ops import dlq
from d2.worker import loop
from tests.support import Conn, semear_cursor
from tests.support.events import inserir_evento, payload_normalizada, saidas
from tests.support.territorio import Territorio


def test_dlq_retry__fixed_cause_is_reprocessed_and_still_bad_stays(db_url: str, conn: Conn) -> None:
    Territorio(conn)
    semear_cursor(conn)
    payload = payload_normalizada()
    inserir_evento(conn, payload)
    duplicate = inserir_evento(conn, payload)  # same demanda_id, new event: dead letter
    broken = inserir_evento(conn, [1, 2])  # never fixable
    settings = config.load()
    loop.Worker(settings, url=db_url).executar(drain=True)
    dead = {r["event_id"] for r in conn.execute("SELECT event_id FROM core.dead_letter_queue")}
    assert dead == {duplicate, broken}

    # The operator decides the first resolution was wrong and removes it.
    conn.execute("DELETE FROM d2.resolucoes_geo WHERE demanda_id = %s", [payload["demanda_id"]])
    report = dlq.reprocessar(conn, settings, None)
    assert report["reprocessados"] == 1 and report["falharam"] == 1
    rows = {
        r["event_id"]: r
        for r in conn.execute("SELECT event_id, status, tentativas FROM core.dead_letter_queue")
    }
    assert rows[duplicate]["status"] == "reprocessado"
    assert rows[broken]["status"] == "pendente" and rows[broken]["tentativas"] == 2
    [res] = conn.execute("SELECT event_id FROM d2.resolucoes_geo").fetchall()
    assert res["event_id"] == duplicate
    assert len(saidas(conn)) == 2  # the original publication and the one after the retry

    listed = subprocess.run(
        [sys.executable, "-m", "d2.cli", "dlq", "list", "--json"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "DATABASE_URL": db_url},
    )
    assert [r["event_id"] for r in json.loads(listed.stdout)] == [str(broken)]
