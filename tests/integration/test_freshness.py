"""Operators' tools answer from what the tables say now (docs/design.md, decision 10): a
polygon written to core.uc_polygons with plain SQL — the spec's own way to settle pending
reviews (§2.4) — is in every on-demand answer at once, with no worker running; where it
cannot be applied (another applier holds the lock, a read-only session) the command still
answers and says how many changes wait and how to apply them; a psql user calling the
resolver is warned.

Each test writes, then asks, as an operator would: the real `d2` command in a subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row

from d2 import db
from tests.support import Conn, drenar, semear_cursor
from tests.support.events import inserir_evento, payload_normalizada, submeter_drawing
from tests.support.territorio import Territorio, inserir_uc, poligono, quadrado, sincronizar_mirror

# A point inside município B of the test territory (no bairros there), and a square
# around it that a writer adds as a new bairro.
PONTO = (-27.0, -43.0)
NOVO_BAIRRO = quadrado(-44.0, -28.0, -42.0, -26.0)
# A point outside every polygon (a pending review), and a município drawn around it.
FORA = (-27.0, -20.0)
NOVO_MUNICIPIO = quadrado(-21.0, -28.0, -19.0, -26.0)


def d2(db_url: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "d2.cli", *args],
        env=os.environ | {"DATABASE_URL": db_url} | env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def escrever_bairro(conn: Conn, territorio: Territorio) -> uuid.UUID:
    """A writer of core.uc_polygons adds the new bairro with plain SQL; nobody applies it."""
    return inserir_uc(
        conn, 2, "Bairro Novo", poligono(NOVO_BAIRRO), territorio.mun_b, sincronizar=False
    )


def escrever_municipio(conn: Conn, territorio: Territorio) -> uuid.UUID:
    return inserir_uc(
        conn, 4, "Município Novo", poligono(NOVO_MUNICIPIO), territorio.uf, sincronizar=False
    )


def _resolve(db_url: str, ponto: tuple[float, float], **env: str) -> tuple[dict[str, Any], str]:
    feito = d2(db_url, "resolve", str(ponto[0]), str(ponto[1]), **env)
    assert feito.returncode == 0, feito.stderr
    return json.loads(feito.stdout), feito.stderr


def test_resolve__a_polygon_inserted_with_plain_sql_answers_at_once(
    conn: Conn, db_url: str, territorio: Territorio
) -> None:
    antes, _ = _resolve(db_url, PONTO)
    assert antes["unidade_civica_id"] == str(territorio.mun_b)
    novo = escrever_bairro(conn, territorio)

    depois, avisos = _resolve(db_url, PONTO)

    assert depois["unidade_civica_id"] == str(novo)
    assert [c["nome"] for c in depois["cadeia"]][:2] == ["Bairro Novo", "Município B"]
    assert "applied 1 change(s) of core.uc_polygons" in avisos
    # Nothing waits any more, and a second call has nothing to say.
    assert conn.execute("SELECT count(*) AS n FROM d2.mirror_mudancas").fetchone() == {"n": 0}
    assert _resolve(db_url, PONTO)[1] == ""


def test_revisoes_reprocessar__resolves_what_a_new_polygon_covers(
    conn: Conn, db_url: str, territorio: Territorio
) -> None:
    semear_cursor(conn)
    inserir_evento(conn, payload_normalizada(*FORA))
    drenar(db_url)
    assert conn.execute("SELECT count(*) AS n FROM d2.revisoes_geo_pendentes").fetchone() == {
        "n": 1
    }
    escrever_municipio(conn, territorio)

    feito = d2(db_url, "revisoes", "reprocessar", "--json", "--log-level", "ERROR")

    assert feito.returncode == 0, feito.stderr
    relatorio = json.loads(feito.stdout)
    assert (relatorio["resolvidas"], relatorio["continuam_pendentes"]) == (1, 0)
    assert "applied 1 change(s)" in feito.stderr


def test_regeorreferenciar_dry_run__sees_the_change(
    conn: Conn, db_url: str, territorio: Territorio
) -> None:
    semear_cursor(conn)
    inserir_evento(conn, payload_normalizada(*PONTO))
    drenar(db_url)
    escrever_bairro(conn, territorio)

    feito = d2(db_url, "regeorreferenciar", "--dry-run", "--json")

    assert feito.returncode == 0, feito.stderr
    relatorio = json.loads(feito.stdout)
    assert [m["para"]["nome"] for m in relatorio["mudancas"]] == ["Bairro Novo"]
    assert "applied 1 change(s)" in feito.stderr


def test_map__shows_the_answers_the_new_polygon_moved(
    conn: Conn, db_url: str, territorio: Territorio, tmp_path: Path
) -> None:
    semear_cursor(conn)
    inserir_evento(conn, payload_normalizada(*PONTO))
    drenar(db_url)
    novo = escrever_bairro(conn, territorio)

    feito = d2(db_url, "map", "--output", str(tmp_path / "m.html"))

    assert feito.returncode == 0, feito.stderr
    assert "Bairro Novo" in (tmp_path / "m.html").read_text(encoding="utf-8")
    # The follow-up ran too: the stored answer is the new bairro, and was published.
    assert "1 changed and published" in feito.stderr
    row = conn.execute("SELECT unidade_civica_id FROM d2.resolucoes_geo").fetchone()
    assert row == {"unidade_civica_id": novo}


def test_territorio_health__follows_the_change_up_first(
    conn: Conn, db_url: str, territorio: Territorio
) -> None:
    semear_cursor(conn)
    inserir_evento(conn, payload_normalizada(*PONTO))
    drenar(db_url)
    novo = escrever_bairro(conn, territorio)

    feito = d2(db_url, "territorio", "health", "--json")

    assert feito.returncode == 0, feito.stderr
    assert "applied 1 change(s)" in feito.stderr and "1 changed and published" in feito.stderr
    row = conn.execute("SELECT unidade_civica_id FROM d2.resolucoes_geo").fetchone()
    assert row == {"unidade_civica_id": novo}


@pytest.fixture
def appliers_lock(db_url: str) -> Iterator[None]:
    """Another session holds the appliers' lock (a stuck `d2 mirror sync`, say)."""
    with db.connect(db_url, autocommit=True) as outra, outra.transaction():
        outra.execute(db.q("mirror_lock"))  # held until this transaction ends
        yield


def test_resolve__lock_held_answers_within_the_bound_and_says_what_waits(
    conn: Conn, db_url: str, territorio: Territorio, appliers_lock: None
) -> None:
    escrever_bairro(conn, territorio)

    resposta, avisos = _resolve(db_url, PONTO, D2_SYNC_TIMEOUT="1")

    assert resposta["unidade_civica_id"] == str(territorio.mun_b)  # the mirror before the change
    assert "1 change(s) of core.uc_polygons wait" in avisos
    assert "another applier held the mirror's lock for 1 s" in avisos
    assert "d2 mirror sync --wait" in avisos


def test_resolve__a_read_only_session_answers_and_says_how_to_apply(
    conn: Conn, db_url: str, territorio: Territorio
) -> None:
    escrever_bairro(conn, territorio)

    resposta, avisos = _resolve(db_url, PONTO, PGOPTIONS="-c default_transaction_read_only=on")

    assert resposta["unidade_civica_id"] == str(territorio.mun_b)
    assert "1 change(s) of core.uc_polygons wait" in avisos
    assert "this connection is read-only" in avisos and "d2 mirror sync --wait" in avisos
    assert len(avisos.splitlines()) == 1, avisos
    assert conn.execute("SELECT count(*) AS n FROM d2.mirror_mudancas").fetchone() == {"n": 1}


def _avisos(db_url: str, sql: str, params: list[Any]) -> list[str]:
    """What a psql user sees: the WARNINGs of one statement on a plain connection."""
    vistos: list[str] = []
    with psycopg.connect(db_url, autocommit=True, row_factory=dict_row) as psql:
        psql.add_notice_handler(
            lambda d: vistos.append(f"{d.severity}: {d.message_primary} {d.message_hint}")
        )
        psql.execute(sql, params).fetchall()
    return vistos


def test_psql__the_resolver_warns_once_per_statement_while_changes_wait(
    conn: Conn, db_url: str, territorio: Territorio
) -> None:
    um = "SELECT * FROM d2.resolver_territorio(%s, %s)"
    assert _avisos(db_url, um, list(PONTO)) == []
    escrever_bairro(conn, territorio)

    [aviso] = _avisos(db_url, um, list(PONTO))
    assert aviso.startswith("WARNING: d2: 1 change(s) of core.uc_polygons wait")
    assert "d2 mirror sync --wait" in aviso
    # A thousand points through LATERAL and the batch form: one warning each, not 1,000.
    lateral = (
        "SELECT r.* FROM generate_series(1, 1000) g "
        "CROSS JOIN LATERAL d2.resolver_territorio(-27 + g / 10000.0, %s) r"
    )
    assert len(_avisos(db_url, lateral, [-43.0])) == 1
    batch = (
        "SELECT * FROM d2.resolver_territorios("
        "array_fill(%s::float8, ARRAY[500]), array_fill(%s::float8, ARRAY[500]))"
    )
    assert len(_avisos(db_url, batch, list(PONTO))) == 1
    # D-2's own sessions apply the changes themselves and are not warned.
    with db.connect(db_url, autocommit=True) as propria:
        vistos: list[str] = []
        propria.add_notice_handler(lambda d: vistos.append(str(d.message_primary)))
        propria.execute(um, list(PONTO)).fetchall()
    assert vistos == []
    sincronizar_mirror(conn)
    assert _avisos(db_url, um, list(PONTO)) == []


def test_psql__the_warning_changes_no_answer(
    conn: Conn, db_url: str, territorio: Territorio
) -> None:
    escrever_bairro(conn, territorio)
    row = conn.execute(
        "SELECT unidade_civica_id, cadeia_ucs FROM d2.resolver_territorio(%s, %s)", list(PONTO)
    ).fetchone()
    assert row == {
        "unidade_civica_id": territorio.mun_b,
        "cadeia_ucs": [territorio.mun_b, territorio.uf, territorio.regiao, territorio.brasil],
    }


def test_dlq_retry__resolves_against_the_polygons_written_since(
    conn: Conn, db_url: str, territorio: Territorio
) -> None:
    """Found looking for the same defect (item 4): a retried dead letter is resolved by
    the handler, against the mirror."""
    semear_cursor(conn)
    payload = payload_normalizada(*PONTO)
    inserir_evento(conn, payload)
    repetido = inserir_evento(conn, payload)  # same demanda_id, another event: dead letter
    drenar(db_url)
    # The operator decides the first resolution was wrong, removes it, and draws the
    # bairro that was missing.
    conn.execute("DELETE FROM d2.resolucoes_geo WHERE demanda_id = %s", [payload["demanda_id"]])
    novo = escrever_bairro(conn, territorio)

    feito = d2(db_url, "dlq", "retry", str(repetido), "--log-level", "ERROR")

    assert feito.returncode == 0, feito.stderr
    assert "applied 1 change(s)" in feito.stderr
    row = conn.execute("SELECT event_id, unidade_civica_id FROM d2.resolucoes_geo").fetchone()
    assert row == {"event_id": repetido, "unidade_civica_id": novo}


def test_territorio_consume__judges_a_drawing_against_the_polygons_written_since(
    conn: Conn, db_url: str, territorio: Territorio
) -> None:
    """Found looking for the same defect (item 4): a drawing must lie inside a município
    of the mirror; one drawn inside a município just written was refused as outside."""
    escrever_municipio(conn, territorio)
    drawing = submeter_drawing(conn, poligono(quadrado(-20.01, -27.01, -19.99, -26.99)))

    feito = d2(db_url, "territorio", "consume", "--drain", "--log-level", "ERROR")

    assert feito.returncode == 0, feito.stderr
    assert "applied 1 change(s)" in feito.stderr
    decisao = conn.execute(
        "SELECT decisao, motivo FROM d2.territorio_submissoes WHERE event_id = %s", [drawing]
    ).fetchone()
    assert decisao is not None and decisao["decisao"] == "nova", decisao
