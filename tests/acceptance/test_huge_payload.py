"""Huge payloads in a backlog : their size is checked in SQL, so the
worker never holds one; they end in the dead letters and the worker's memory stays at
what a backlog of ordinary events costs it."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

from tests.support import Conn, semear_cursor
from tests.support.events import inserir_evento, payload_normalizada

MB = 1024 * 1024
ENORMES = 3
TAMANHO = 200 * MB


def drenar_medindo_rss(db_url: str) -> int:
    """Run `d2 worker --drain` to the end; its peak RSS in bytes (this child's only)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "d2.cli", "worker", "--drain", "--log-level", "WARNING"],
        env=os.environ | {"DATABASE_URL": db_url},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, uso = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode == 0
    return int(uso.ru_maxrss) * 1024  # Linux reports kilobytes


def test_worker__huge_payloads_are_dead_lettered_without_being_read(
    db_url: str, conn: Conn
) -> None:
    semear_cursor(conn)
    for _ in range(20):
        inserir_evento(conn, payload_normalizada())
    rss_usual = drenar_medindo_rss(db_url)

    comuns = [inserir_evento(conn, payload_normalizada()) for _ in range(10)]
    enormes: list[uuid.UUID] = []
    for _ in range(ENORMES):
        # Built in the server: 200 MB of JSON text never passes through this process.
        row = conn.execute(
            "INSERT INTO core.event_log (event_id, tipo, versao_schema, origem, payload)"
            " SELECT gen_random_uuid(), 'demanda.normalizada', '1.2.0', 'D-1b',"
            " jsonb_build_object('demanda_id', gen_random_uuid(), 'lixo', repeat('x', %s))"
            " RETURNING event_id",
            [TAMANHO],
        ).fetchone()
        assert row is not None
        enormes.append(row["event_id"])
        comuns.append(inserir_evento(conn, payload_normalizada()))
    rss_enormes = drenar_medindo_rss(db_url)

    cartas = conn.execute(
        "SELECT event_id, erro FROM core.dead_letter_queue WHERE consumidor = 'D-2'"
    ).fetchall()
    assert sorted(c["event_id"] for c in cartas) == sorted(enormes)
    assert all(c["erro"].endswith("bytes exceeds 262144") for c in cartas)
    # Every ordinary event ended too (outside every polygon here: in review).
    revisados = conn.execute(
        "SELECT count(*) AS n FROM d2.revisoes_geo_pendentes WHERE event_id = ANY(%s)", [comuns]
    ).fetchone()
    assert revisados == {"n": len(comuns)}
    # Reading even one of them whole would have cost 200 MB (its text) and more.
    assert rss_enormes < rss_usual + 64 * MB, (rss_usual, rss_enormes)
