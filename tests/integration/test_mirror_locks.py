"""The mirror's locks, attacked (docs/reliability.md, section 6).

Appliers and the interval builder used to serialise on advisory-lock keys, which any
login may take: holding them froze the mirror (captured changes never applied, `d2 mirror
sync --wait` and the importers waiting forever, the worker's loop stuck behind the
builder's key) while /healthz said 200. Each lock is now an EXCLUSIVE lock on an empty
table of its own, which needs UPDATE on it (d2_worker and the owner only); every wait
for one is bounded (D2_LOCK_TIMEOUT), and past the bound the one line says who holds it;
a worker that cannot apply waiting changes for longer than D2_MIRROR_MAX_SECONDS turns
/healthz 503 naming the session.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.rows import dict_row

from d2 import db
from d2.importers import sample
from d2.ops import status
from d2.territorio import mirror
from tests.chaos.processes import ProcessoWorker, esperar, matar_restantes
from tests.conftest import Server
from tests.support import Conn, healthz, metric, papel_de_login, porta_livre, semear_cursor
from tests.support.territorio import Territorio, inserir_uc, poligono, quadrado

# The keys the appliers and the builder used (sql/queries/mirror.sql and four functions
# before migration 20261204130000): an attacker still holds them, for nothing.
CHAVES_ANTIGAS = (28202883109974642, 28202882993512819)
LOCKS = ("d2.mirror_aplicador", "d2.mirror_faixas_construtor")
# A new município where the test territory has none, and a point inside it.
NOVO = quadrado(-21.0, -28.0, -19.0, -26.0)
PONTO = (-27.0, -20.0)


def d2(
    db_url: str, *args: str, timeout: float = 60, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "d2.cli", *args],
        env=os.environ | {"DATABASE_URL": db_url} | env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _resolvido(conn: Conn) -> Any:
    row = conn.execute(
        "SELECT unidade_civica_id FROM d2.resolver_territorio(%s, %s)", list(PONTO)
    ).fetchone()
    return row["unidade_civica_id"] if row else None


def _novo_municipio(conn: Conn, territorio: Territorio) -> Any:
    return inserir_uc(conn, 4, "Município Novo", poligono(NOVO), territorio.uf, sincronizar=False)


@pytest.fixture
def atacante(conn: Conn, pg_server: Server) -> Iterator[Conn]:
    """A login with no grant at all, as any role of the shared database could be."""
    with (
        papel_de_login(conn, pg_server, "atacante") as (_, url),
        psycopg.connect(url, autocommit=True, row_factory=dict_row) as c,
    ):
        yield c


@pytest.fixture
def trabalhador(conn: Conn, pg_server: Server) -> Iterator[tuple[str, Conn]]:
    """A second login holding d2_worker (another worker, a stuck `d2 mirror sync`): its
    URL, and a session of it named 'aplicador-preso'."""
    with (
        papel_de_login(conn, pg_server, "d2_app", membro_de="d2_worker") as (_, url),
        psycopg.connect(
            url, autocommit=True, row_factory=dict_row, application_name="aplicador-preso"
        ) as c,
    ):
        yield url, c


def _pid(c: Conn) -> int:
    return int(c.info.backend_pid)


def test_mirror_locks__a_login_holding_the_old_advisory_keys_stalls_nothing(
    conn: Conn, db_url: str, territorio: Territorio, atacante: Conn, trabalhador: tuple[str, Conn]
) -> None:
    for chave in CHAVES_ANTIGAS:
        atacante.execute("SELECT pg_advisory_lock(%s)", [chave])
    uc = _novo_municipio(conn, territorio)

    # The worker's hook at each poll (as d2_worker) applies it, builder's key and all: in a
    # thread, so that a hook stuck behind a key fails the test instead of hanging it.
    url_worker, _ = trabalhador
    feito: list[bool] = []
    with db.connect(url_worker, autocommit=True) as worker:
        fio = threading.Thread(target=lambda: feito.append(mirror.acompanhar(worker)))
        fio.start()
        fio.join(20)
        assert not fio.is_alive(), "the worker's apply waited on a key an attacker holds"
    assert _resolvido(conn) == uc, "the attacker's keys kept the change out of the mirror"
    assert feito == [True]

    # The command scripts wait on returns at once, with nothing left to apply.
    _novo_municipio(conn, territorio)
    try:
        sync = d2(db_url, "mirror", "sync", "--wait", "--json", timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("`d2 mirror sync --wait` waited on a key an attacker holds")
    assert sync.returncode == 0, sync.stderr
    assert json.loads(sync.stdout)["mudancas"] == 1 and mirror.pendentes(conn) == 0


def test_mirror_locks__a_login_with_no_grants_cannot_take_them(atacante: Conn) -> None:
    for tabela in LOCKS:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied"):
            with atacante.transaction():
                atacante.execute(
                    sql.SQL("LOCK TABLE {} IN EXCLUSIVE MODE").format(
                        sql.Identifier(*tabela.split("."))
                    )
                )


def test_mirror_locks__a_reader_of_every_d2_table_blocks_no_applier(
    conn: Conn, territorio: Territorio, atacante: Conn
) -> None:
    """An analyst granted SELECT on everything in d2 may take ACCESS SHARE only, which
    an applier's EXCLUSIVE lets through; every stronger mode is refused."""
    papel = atacante.info.user
    conn.execute(sql.SQL("GRANT USAGE ON SCHEMA d2 TO {}").format(sql.Identifier(papel)))
    conn.execute(
        sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA d2 TO {}").format(sql.Identifier(papel))
    )
    for tabela in LOCKS:
        alvo = sql.Identifier(*tabela.split("."))
        for modo in ("ROW SHARE", "ROW EXCLUSIVE", "SHARE", "EXCLUSIVE", "ACCESS EXCLUSIVE"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                with atacante.transaction():
                    atacante.execute(sql.SQL("LOCK TABLE {} IN " + modo + " MODE").format(alvo))
    uc = _novo_municipio(conn, territorio)
    with atacante.transaction():
        for tabela in LOCKS:
            atacante.execute(
                sql.SQL("LOCK TABLE {} IN ACCESS SHARE MODE").format(
                    sql.Identifier(*tabela.split("."))
                )
            )
        feito = mirror.aplicar(conn, lock_s=5)
    assert feito is not None and feito.changes == 1 and _resolvido(conn) == uc


def test_aplicar__an_applier_waiting_for_the_lock_sees_what_the_previous_one_committed(
    conn: Conn, db_url: str, territorio: Territorio
) -> None:
    """The lock is the first statement of the transaction, before its snapshot: the
    applier that waited sees the change rows the previous one consumed as gone. Were the
    snapshot older than the lock, it would delete them again and fail to serialise."""
    uc = _novo_municipio(conn, territorio)
    resultado: list[Any] = []
    with (
        psycopg.connect(db_url, autocommit=True, row_factory=dict_row) as primeiro,
        db.connect(db_url, autocommit=True) as segunda,
    ):
        with primeiro.transaction():
            primeiro.execute(db.q("mirror_repeatable_read"))
            primeiro.execute(db.q("mirror_lock"))
            feito = primeiro.execute("SELECT * FROM d2.mirror_aplicar()").fetchone()
            assert feito is not None and feito["mudancas"] == 1
            fio = threading.Thread(
                target=lambda: resultado.append(mirror.aplicar(segunda, lock_s=30))
            )
            fio.start()
            esperar(lambda: _esperando_lock(conn), timeout_s=10)
            assert fio.is_alive()
        # The first commits here; the second takes the lock, then its snapshot.
        fio.join(30)
    [segundo] = resultado
    assert segundo is not None and segundo.changes == 0
    assert _resolvido(conn) == uc


def _esperando_lock(conn: Conn) -> bool:
    row = conn.execute(
        "SELECT count(*) AS n FROM pg_locks WHERE NOT granted AND relation = "
        "'d2.mirror_aplicador'::regclass"
    ).fetchone()
    return bool(row and row["n"])


@pytest.fixture
def lock_presa(trabalhador: tuple[str, Conn]) -> Iterator[int]:
    """A session of d2_worker holding the appliers' lock, idle in its transaction: its pid."""
    _, sessao = trabalhador
    with sessao.transaction():
        sessao.execute(db.q("mirror_lock"))
        yield _pid(sessao)


def test_mirror_sync_wait__a_lock_held_past_d2_lock_timeout_returns_naming_it(
    conn: Conn, db_url: str, territorio: Territorio, lock_presa: int
) -> None:
    _novo_municipio(conn, territorio)
    inicio = time.monotonic()
    try:
        feito = d2(db_url, "mirror", "sync", "--wait", D2_LOCK_TIMEOUT="1", timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("`d2 mirror sync --wait` waited past D2_LOCK_TIMEOUT")
    assert time.monotonic() - inicio < 20
    assert feito.returncode == 1
    [linha] = feito.stderr.splitlines()
    assert linha.startswith("d2: error: a lock stayed held for 1 s (D2_LOCK_TIMEOUT)")
    assert f"pid {lock_presa} " in linha and "'aplicador-preso'" in linha
    assert "ExclusiveLock on d2.mirror_aplicador" in linha
    assert linha.endswith("nothing was applied; 1 change(s) of core.uc_polygons wait")


def test_mirror_rebuild__a_reader_in_the_way_is_named_after_the_bound(
    conn: Conn, db_url: str, territorio: Territorio, trabalhador: tuple[str, Conn]
) -> None:
    """A rebuild truncates the mirror's tables, so it waits for their readers: an idle
    transaction that read d2.mirror_uc is named, after D2_LOCK_TIMEOUT, not waited for."""
    _, leitor = trabalhador
    with leitor.transaction():
        leitor.execute("SELECT count(*) FROM d2.mirror_uc")
        try:
            feito = d2(db_url, "mirror", "rebuild", D2_LOCK_TIMEOUT="1", timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail("`d2 mirror rebuild` waited past D2_LOCK_TIMEOUT")
    assert feito.returncode == 1
    [linha] = feito.stderr.splitlines()
    assert f"pid {_pid(leitor)} " in linha and "AccessShareLock on d2.mirror_uc" in linha
    assert linha.endswith("nothing was rebuilt")
    assert conn.execute("SELECT count(*) AS n FROM d2.mirror_uc").fetchone() == {"n": 7}


def test_import_ibge__a_lock_held_past_the_bound_says_the_import_is_in_and_who_holds_it(
    conn: Conn, db_url: str, tmp_path: Path, lock_presa: int
) -> None:
    sample.write_sample(tmp_path / "ibge")
    try:
        feito = d2(db_url, "import-ibge", str(tmp_path / "ibge"), D2_LOCK_TIMEOUT="1", timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("`d2 import-ibge` waited past D2_LOCK_TIMEOUT for the mirror's lock")
    assert feito.returncode == 1
    [linha] = [x for x in feito.stderr.splitlines() if x.startswith("d2: error:")]
    assert linha.startswith("d2: error: the import is committed, but not yet in the mirror")
    assert f"pid {lock_presa} " in linha and "d2 mirror sync --wait" in linha
    assert conn.execute("SELECT count(*) AS n FROM core.uc_polygons").fetchone() == {"n": 19}
    assert mirror.pendentes(conn) == 19


def test_healthz__changes_waiting_past_d2_mirror_max_seconds_name_the_lock_holder(
    conn: Conn, db_url: str, territorio: Territorio, trabalhador: tuple[str, Conn], tmp_path: Path
) -> None:
    semear_cursor(conn)
    _, sessao = trabalhador
    porta = porta_livre()
    worker = ProcessoWorker(
        db_url, tmp_path / "w.log", D2_METRICS_PORT=str(porta), D2_MIRROR_MAX_SECONDS="1"
    ).iniciar()
    try:
        esperar(lambda: healthz(porta)[0] == 200, timeout_s=30)
        with sessao.transaction():
            sessao.execute(db.q("mirror_lock"))
            uc = _novo_municipio(conn, territorio)
            esperar(lambda: healthz(porta)[0] == 503, timeout_s=20)
            codigo, corpo = healthz(porta)
            assert codigo == 503 and corpo["status"] == "degraded", corpo
            [quem] = corpo["mirror"]["sessoes"]
            assert (quem["pid"], quem["aplicacao"]) == (_pid(sessao), "aplicador-preso")
            assert quem["tabela"] == "d2.mirror_aplicador"
            assert f"pid {_pid(sessao)} " in corpo["motivo"]
            assert metric(porta, "d2_mirror_lock_pid") == _pid(sessao)
            assert (metric(porta, "d2_mirror_atraso_segundos") or 0) > 1
            assert "Espelho: mudanças de core.uc_polygons sem aplicar além do limite" in (
                worker.texto()
            )
            texto = status.formatar_status(status.status(conn))
            assert f"the mirror's lock: pid {_pid(sessao)} " in texto
            assert "'aplicador-preso'" in texto and "d2.mirror_aplicador" in texto
            assert _resolvido(conn) != uc
        # The lock goes: the worker applies at its next poll, and is healthy again.
        esperar(lambda: healthz(porta)[0] == 200, timeout_s=20)
        assert _resolvido(conn) == uc and mirror.pendentes(conn) == 0
        assert metric(porta, "d2_mirror_lock_pid") == 0
    finally:
        worker.terminar()
        matar_restantes()
