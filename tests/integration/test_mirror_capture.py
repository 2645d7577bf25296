"""Writers of core.uc_polygons only record their changes; D-2 applies them
(docs/mirror.md).

The writer's transaction does no mirror work and never waits for an applier; one apply
takes whole transactions, from one snapshot, so the resolver never sees half of a
writer's change; the worker applies within a poll; `d2 mirror sync --wait` returns
once everything committed before it is in the mirror.
"""

from __future__ import annotations

import json
import threading
import time
import uuid

import psycopg
import pytest
from psycopg.rows import dict_row

from d2 import cli, config, db, errors
from d2.ops import status
from d2.territorio import mirror
from d2.worker import loop
from tests.support import Conn
from tests.support.territorio import Territorio, inserir_uc, poligono, quadrado, sincronizar_mirror


def _versao(conn: Conn) -> int:
    row = conn.execute("SELECT versao FROM d2.mirror_state").fetchone()
    assert row is not None
    return int(row["versao"])


def _no_mirror(conn: Conn) -> int:
    row = conn.execute("SELECT count(*) AS n FROM d2.mirror_uc").fetchone()
    assert row is not None
    return int(row["n"])


def _resolve(conn: Conn, lat: float, lng: float) -> uuid.UUID | None:
    row = conn.execute(
        "SELECT unidade_civica_id FROM d2.resolver_territorio(%s, %s)", [lat, lng]
    ).fetchone()
    return row["unidade_civica_id"] if row else None


def _inserir_sem_aplicar(conn: Conn, nome: str, x: float) -> uuid.UUID:
    return inserir_uc(conn, 4, nome, poligono(quadrado(x, 0, x + 1, 1)), sincronizar=False)


def test_captura__the_writer_records_ids_and_nothing_else(conn: Conn) -> None:
    versao = _versao(conn)
    with conn.transaction():
        uc = _inserir_sem_aplicar(conn, "M", 0)
        # Inside the writer's transaction: no mirror row, no chain, no version move.
        assert _no_mirror(conn) == 0
        assert conn.execute("SELECT count(*) AS n FROM d2.mirror_cadeias").fetchone() == {"n": 0}
    assert _versao(conn) == versao and _resolve(conn, 0.5, 0.5) is None
    rows = conn.execute("SELECT unidade_civica_id FROM d2.mirror_mudancas").fetchall()
    assert rows == [{"unidade_civica_id": uc}]
    estado = status.status(conn)
    assert estado["mirror"]["mudancas_pendentes"] == 1
    assert "1 changes of core.uc_polygons waiting" in status.formatar_status(estado)

    feito = mirror.aplicar(conn)
    assert feito is not None and (feito.changes, feito.poligonos) == (1, 1)
    assert feito.versao == versao + 1 == _versao(conn)
    assert _resolve(conn, 0.5, 0.5) == uc
    assert mirror.pendentes(conn) == 0
    assert "every change of core.uc_polygons applied" in status.formatar_status(status.status(conn))
    # Nothing recorded: nothing written, the version stays (the workers' caches too).
    again = mirror.aplicar(conn)
    assert again is not None and again.changes == 0 and _versao(conn) == versao + 1


def test_captura__update_delete_and_truncate_are_followed(conn: Conn) -> None:
    uc = _inserir_sem_aplicar(conn, "M", 0)
    conn.execute(
        "UPDATE core.uc_polygons SET geometria = %s::jsonb WHERE unidade_civica_id = %s",
        [json.dumps(poligono(quadrado(5, 0, 6, 1))), uc],
    )
    # Insert and update before one apply: old and new ids recorded, the last state wins.
    assert mirror.pendentes(conn) == 3
    sincronizar_mirror(conn)
    assert _resolve(conn, 0.5, 0.5) is None and _resolve(conn, 0.5, 5.5) == uc

    conn.execute("UPDATE core.uc_polygons SET id = gen_random_uuid()")
    sincronizar_mirror(conn)
    assert _no_mirror(conn) == 1 and _resolve(conn, 0.5, 5.5) == uc

    outro = _inserir_sem_aplicar(conn, "N", 10)
    conn.execute("DELETE FROM core.uc_polygons WHERE unidade_civica_id = %s", [uc])
    sincronizar_mirror(conn)
    assert _resolve(conn, 0.5, 5.5) is None and _resolve(conn, 0.5, 10.5) == outro

    conn.execute("TRUNCATE core.uc_polygons")
    _inserir_sem_aplicar(conn, "depois do truncate", 20)
    sincronizar_mirror(conn)
    assert _resolve(conn, 0.5, 10.5) is None
    assert _no_mirror(conn) == 1 and _resolve(conn, 0.5, 20.5) is not None
    assert conn.execute("SELECT count(*) AS n FROM d2.mirror_cadeias").fetchone() == {"n": 1}


def test_aplicar__refuses_read_committed(conn: Conn) -> None:
    with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState, match="REPEATABLE READ"):
        conn.execute("SELECT * FROM d2.mirror_aplicar()")
    with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState, match="REPEATABLE READ"):
        conn.execute("SELECT * FROM d2.mirror_rebuild()")


def test_aplicar__inside_a_transaction_is_a_clear_error(conn: Conn) -> None:
    with conn.transaction(), pytest.raises(errors.D2Error, match="outside a transaction"):
        mirror.aplicar(conn)


def test_aplicar__a_writer_committing_mid_apply_is_applied_whole_later(
    conn: Conn, db_url: str, territorio: Territorio
) -> None:
    """Moving the border of A and B in one transaction that commits after the applier's
    snapshot: that apply keeps both old, the next one takes both; never one of them."""
    with psycopg.connect(db_url, autocommit=True, row_factory=dict_row) as applier:
        with applier.transaction():
            applier.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            applier.execute(db.q("mirror_lock"))  # the appliers' lock: no snapshot yet
            applier.execute("SELECT 1")  # the snapshot is taken here
            with conn.transaction():  # the writer: the border from -45 to -44
                conn.execute(
                    "UPDATE core.uc_polygons SET geometria = %s::jsonb "
                    "WHERE unidade_civica_id = %s",
                    [json.dumps(poligono(quadrado(-50, -30, -44, -25))), territorio.mun_a],
                )
                conn.execute(
                    "UPDATE core.uc_polygons SET geometria = %s::jsonb "
                    "WHERE unidade_civica_id = %s",
                    [json.dumps(poligono(quadrado(-44, -30, -40, -25))), territorio.mun_b],
                )
            feito = applier.execute("SELECT * FROM d2.mirror_aplicar()").fetchone()
    assert feito is not None and feito["mudancas"] == 0
    # Between -45 and -44: still B (both old), not A and B at once, not nobody.
    assert _resolve(conn, -27.0, -44.5) == territorio.mun_b
    assert mirror.pendentes(conn) == 4
    sincronizar_mirror(conn)
    assert _resolve(conn, -27.0, -44.5) == territorio.mun_a
    assert _resolve(conn, -27.0, -43.5) == territorio.mun_b


def test_captura__a_writer_never_waits_for_an_applier(conn: Conn, db_url: str) -> None:
    uc = _inserir_sem_aplicar(conn, "M", 0)
    with psycopg.connect(db_url, autocommit=True, row_factory=dict_row) as applier:
        with applier.transaction():
            applier.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            applier.execute(db.q("mirror_lock"))
            applier.execute("SELECT * FROM d2.mirror_aplicar()")
            # The applier's transaction is open, holding what it took: writers go on.
            with psycopg.connect(db_url, autocommit=True) as escritor:
                escritor.execute("SET lock_timeout = '500ms'")
                escritor.execute(
                    "UPDATE core.uc_polygons SET nome = 'outro' WHERE unidade_civica_id = %s",
                    [uc],
                )
                inserir_uc(escritor, 4, "N", poligono(quadrado(3, 0, 4, 1)), sincronizar=False)
                escritor.execute("DELETE FROM core.uc_polygons WHERE unidade_civica_id = %s", [uc])
    sincronizar_mirror(conn)
    assert _resolve(conn, 0.5, 0.5) is None and _resolve(conn, 0.5, 3.5) is not None


def test_aplicar__an_open_writer_does_not_hold_the_applier(conn: Conn, db_url: str) -> None:
    with psycopg.connect(db_url) as escritor:
        _inserir_sem_aplicar(escritor, "não commitado", 0)  # type: ignore[arg-type]
        conn.execute("SET lock_timeout = '500ms'")
        feito = mirror.aplicar(conn)
        assert feito is not None and feito.changes == 0
        escritor.commit()
    assert mirror.pendentes(conn) == 1


def test_aplicar__without_waiting_leaves_it_to_the_applier_at_work(conn: Conn, db_url: str) -> None:
    _inserir_sem_aplicar(conn, "M", 0)
    with psycopg.connect(db_url, autocommit=True) as outro, outro.transaction():
        outro.execute(db.q("mirror_lock"))
        assert mirror.aplicar(conn, esperar=False) is None
    assert mirror.pendentes(conn) == 1


def test_mirror_sync_cli__wait_returns_with_every_committed_change_applied(
    conn: Conn, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    uc = _inserir_sem_aplicar(conn, "M", 0)
    resultado: list[int] = []
    with psycopg.connect(db_url, autocommit=True) as outro:
        with outro.transaction():
            outro.execute(db.q("mirror_lock"))  # an applier at work
            fio = threading.Thread(
                target=lambda: resultado.append(cli.main(["mirror", "sync", "--wait", "--json"]))
            )
            fio.start()
            time.sleep(0.3)
            assert fio.is_alive() and _resolve(conn, 0.5, 0.5) is None
        fio.join(10)
    assert resultado == [0]
    saida = json.loads(capsys.readouterr().out)
    assert saida["aplicado"] is True and saida["mudancas"] == 1
    assert _resolve(conn, 0.5, 0.5) == uc


def test_worker__applies_a_write_within_a_poll(
    conn: Conn, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("D2_POLL_INTERVAL", "0.2")
    w = loop.Worker(config.load(), url=db_url)
    fio = threading.Thread(target=w.executar, daemon=True)
    fio.start()
    try:
        versao = _versao(conn)
        uc = _inserir_sem_aplicar(conn, "M", 0)
        limite = time.monotonic() + 15
        while _versao(conn) == versao and time.monotonic() < limite:
            time.sleep(0.05)
        assert _resolve(conn, 0.5, 0.5) == uc
        assert mirror.pendentes(conn) == 0
    finally:
        w.parar.set()
        fio.join(30)
