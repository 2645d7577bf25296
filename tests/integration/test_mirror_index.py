"""The resolver's index of pieces near borders (sql/tables/mirror_pieces.sql) stays as
its build leaves it: pages a tenth full, so a GIST search near a border tests ~17
entries a page instead of ~190. Inserts fill those pages; an apply that syncs a tenth of
the mirror or more since the last build, and every rebuild, build it again.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.rows import dict_row

from d2 import db, errors
from d2.territorio import mirror
from tests.conftest import Server
from tests.support import Conn, papel_de_login
from tests.support.territorio import Territorio, inserir_uc, poligono, quadrado

INDICE = "d2.mirror_pieces_geom_mun_sub_idx"


def _circulo(n: int) -> dict[str, Any]:
    """A polygon of n vertices: cut into about n / 64 pieces by the mirror."""
    anel = [
        (-45 + 2 * math.cos(2 * math.pi * k / n), -20 + 2 * math.sin(2 * math.pi * k / n))
        for k in range(n)
    ]
    return poligono([*anel, anel[0]])


def _indice(conn: Conn) -> dict[str, int]:
    row = conn.execute(
        """
        SELECT c.relfilenode AS arquivo, pg_relation_size(c.oid) / 8192 AS paginas,
               (SELECT count(*) FROM d2.mirror_pieces WHERE nivel <= 4) AS pedacos,
               (SELECT sincronizados_desde_indice FROM d2.mirror_state) AS sincronizados
        FROM pg_class c
        WHERE c.oid = %s::regclass
        """,
        [INDICE],
    ).fetchone()
    assert row is not None
    return {k: int(v) for k, v in row.items()}


def test_aplicar__an_import_leaves_the_index_pages_a_tenth_full(conn: Conn) -> None:
    inserir_uc(conn, 4, "Circular", _circulo(40_000), sincronizar=False)
    mirror.aplicar(conn)
    indice = _indice(conn)
    # Rows inserted one at a time pack ~190 boxes a page; built with fillfactor 10, ~17.
    assert indice["pedacos"] > 500
    assert indice["paginas"] * 25 >= indice["pedacos"], indice
    assert indice["sincronizados"] == 0


def test_aplicar__the_index_is_built_again_past_a_tenth_of_the_mirror(conn: Conn) -> None:
    ucs = [
        inserir_uc(conn, 4, f"M{i}", poligono(quadrado(i, 0, i + 1, 1)), sincronizar=False)
        for i in range(30)
    ]
    mirror.aplicar(conn)
    construido = _indice(conn)
    assert construido["sincronizados"] == 0

    def encolher(i: int) -> None:
        conn.execute(
            "UPDATE core.uc_polygons SET geometria = %s::jsonb WHERE unidade_civica_id = %s",
            [json.dumps(poligono(quadrado(i, 0.1, i + 1, 1))), ucs[i]],
        )

    encolher(0)
    mirror.aplicar(conn)
    um = _indice(conn)
    assert um["sincronizados"] == 1 and um["arquivo"] == construido["arquivo"]

    encolher(1)
    encolher(2)
    mirror.aplicar(conn)  # 3 of 30 since the last build: a tenth
    tres = _indice(conn)
    assert tres["sincronizados"] == 0 and tres["arquivo"] != construido["arquivo"]


def test_rebuild__leaves_the_index_pages_a_tenth_full(conn: Conn) -> None:
    inserir_uc(conn, 4, "Circular", _circulo(40_000))
    conn.execute("UPDATE d2.mirror_state SET sincronizados_desde_indice = 7")
    mirror.reconstruir(conn)
    indice = _indice(conn)
    assert indice["pedacos"] > 500
    assert indice["paginas"] * 25 >= indice["pedacos"], indice
    assert indice["sincronizados"] == 0


# A new município where the test territory has none, and a point inside it.
NOVO = quadrado(-21.0, -28.0, -19.0, -26.0)
PONTO = (-27.0, -20.0)


@pytest.fixture
def analista(conn: Conn, pg_server: Server) -> Iterator[Conn]:
    """A read-only analyst: SELECT on every table of d2, nothing else (a BI tool, a psql
    session); an autocommit connection as it."""
    with papel_de_login(conn, pg_server, "analista") as (nome, url):
        papel = sql.Identifier(nome)
        conn.execute(sql.SQL("GRANT USAGE ON SCHEMA d2 TO {}").format(papel))
        conn.execute(sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA d2 TO {}").format(papel))
        with psycopg.connect(
            url, autocommit=True, row_factory=dict_row, application_name="painel-bi"
        ) as c:
            yield c


def test_aplicar__a_readers_open_transaction_delays_the_rebuild_never_an_answer(
    conn: Conn,
    db_url: str,
    territorio: Territorio,
    analista: Conn,
    login_url: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Before: with the index's rebuild due, one idle transaction that had read
    d2.mirror_pieces made the worker's apply queue its REINDEX behind it, every resolver
    query queue behind the REINDEX (up to the worker's 5 s lock bound, again at every
    poll), and the new unit never reach the resolver; the log blamed "a session that has
    ended since". Now the apply skips the rebuild while anyone holds a lock on the index,
    keeps it due, names who, and applies the change at once."""
    with analista.transaction():
        analista.execute("SELECT count(*) FROM d2.mirror_pieces")
        uc = inserir_uc(conn, 4, "Novo", poligono(NOVO), territorio.uf, sincronizar=False)
        devido = _indice(conn)
        feito: list[bool] = []
        inicio = time.monotonic()

        def worker_polls() -> None:  # the worker's geometry stage, polling for 6 s
            with db.connect(login_url, autocommit=True) as worker:
                while time.monotonic() - inicio < 6:
                    feito.append(mirror.acompanhar(worker))
                    time.sleep(0.2)

        fio = threading.Thread(target=worker_polls)
        fio.start()
        # GPS answers arriving every 0.1 s to one loop: each waits from its arrival.
        esperas = []
        for k in range(55):
            chegada = inicio + 0.1 * k
            time.sleep(max(0.0, chegada - time.monotonic()))
            conn.execute("SELECT * FROM d2.resolver_territorio(-25.5, -47.0)").fetchone()
            esperas.append(time.monotonic() - chegada)
        fio.join()
        esperas.sort()
        mediana, pior = esperas[len(esperas) // 2], esperas[-1]
        print(f"GPS answers during the applies: p50 {mediana:.3f} s, max {pior:.3f} s")
        assert pior < 0.5, esperas[-5:]
        assert feito and all(feito), feito
        achado = conn.execute(
            "SELECT unidade_civica_id FROM d2.resolver_territorio(%s, %s)", list(PONTO)
        ).fetchone()
        assert achado is not None and achado["unidade_civica_id"] == uc
        adiado = _indice(conn)
        assert adiado["arquivo"] == devido["arquivo"] and adiado["sincronizados"] >= 1
        nomeado = [r for r in caplog.records if "painel-bi" in str(getattr(r, "sessoes", ""))]
        assert nomeado, "the postponed rebuild did not name the reader"

    # The reader gone, the next apply rebuilds the index.
    inserir_uc(conn, 4, "Outro", poligono(quadrado(-21.0, -25.0, -19.0, -23.0)), territorio.uf)
    reconstruido = _indice(conn)
    assert reconstruido["sincronizados"] == 0 and reconstruido["arquivo"] != devido["arquivo"]


def test_aplicar__a_lock_on_a_mirror_table_is_named_after_the_bound(
    conn: Conn, db_url: str, territorio: Territorio
) -> None:
    """A session holding a lock on one of the mirror's tables (not on the appliers' lock
    table) that keeps the apply out: the one line names it, not "a session that has ended
    since"."""
    inserir_uc(conn, 4, "Novo", poligono(NOVO), territorio.uf, sincronizar=False)
    with psycopg.connect(db_url, autocommit=True, application_name="manutencao") as outro:
        with outro.transaction():
            outro.execute("LOCK TABLE d2.mirror_uc IN SHARE MODE")
            with db.connect(db_url, autocommit=True) as outra:
                with pytest.raises(errors.LockTimeout) as erro:
                    mirror.aplicar(outra, lock_s=1)
            pid = outro.info.backend_pid
    print(erro.value)
    assert f"pid {pid} " in str(erro.value) and "'manutencao'" in str(erro.value)
    assert "d2.mirror_uc" in str(erro.value)
