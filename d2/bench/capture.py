"""What D-2 costs a writer of core.uc_polygons, and how stale its mirror gets
(docs/mirror.md, "Capture").

- Writer: the 5,564 municipalities of ../shared/data inserted into core.uc_polygons in
  one transaction (statements of 500 rows, as a seed script would), timed to the commit,
  on three databases of the same server: the spec's table alone (no D-2: its columns and
  two indexes), D-2 at head (change capture; nome_busca trigger included), and D-2 at
  head with the capture triggers disabled (what the capture alone costs). Runs
  alternate between them; the median of `vezes` runs each. Optionally D-2 at the
  previous head, which kept the mirror inside the writer's transaction (one run).
- Staleness: a worker runs (default poll interval); single-row writes (a municipality's
  border nudged) at random intervals; for each, the time from the writer's commit to the
  first moment a reader sees the mirror version move (polled every 5 ms).
"""

from __future__ import annotations

import json
import random
import statistics
import threading
import time
from collections.abc import Iterator
from typing import Any

from psycopg import sql

from d2 import config, db
from d2.bench import common, data
from d2.worker import loop

ANTES = "20261203010000_event_log_numerar_na_insercao"
"""The head before the change capture: the mirror kept in the writer's transaction."""

TABELA_DA_SPEC = """
CREATE SCHEMA core;
CREATE TABLE core.uc_polygons (
    id UUID NOT NULL, unidade_civica_id UUID NOT NULL, nivel INTEGER NOT NULL,
    parent_uc_id UUID, nome VARCHAR(255) NOT NULL, nome_busca VARCHAR(255) NOT NULL DEFAULT '',
    geometria JSONB NOT NULL, fonte VARCHAR(50) NOT NULL, metadados JSONB NOT NULL DEFAULT '{}',
    populacao_estimada INTEGER,
    criado_em TIMESTAMPTZ(2) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    atualizado_em TIMESTAMPTZ(2) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT uc_polygons_pkey PRIMARY KEY (id));
CREATE INDEX uc_polygons_unidade_civica_id_idx ON core.uc_polygons (unidade_civica_id);
CREATE INDEX uc_polygons_nivel_idx ON core.uc_polygons (nivel);
"""


def municipios() -> list[dict[str, Any]]:
    """The municipalities of ../shared/data as rows for uc_insert (level 4)."""
    return [r for r in data._linhas(common.SHARED_DATA, bairros=False) if r["nivel"] == 4]


def _inserir(url: str, linhas: list[dict[str, Any]]) -> tuple[float, float | None]:
    """Seconds to insert the rows in one transaction, commit included, and the server
    process's CPU seconds for it (what other load on the machine barely moves); then
    empties the table and the change log again, outside the timing."""
    batches = [
        json.dumps(linhas[i : i + data.BATCH], default=str)
        for i in range(0, len(linhas), data.BATCH)
    ]
    with common.connect(url, autocommit=False) as conn:
        cpu0 = common.backend_cpu_s(conn)
        conn.commit()
        inicio = time.perf_counter()
        for batch in batches:
            conn.execute(db.q("bench_uc_insert"), {"rows": batch})
        conn.commit()
        segundos = time.perf_counter() - inicio
        cpu1 = common.backend_cpu_s(conn)
        conn.commit()
        cpu = None if cpu0 is None or cpu1 is None else cpu1 - cpu0
        conn.execute("DELETE FROM core.uc_polygons")
        existe = conn.execute("SELECT to_regclass('d2.mirror_mudancas') AS t").fetchone()
        if existe is not None and existe["t"] is not None:
            conn.execute("DELETE FROM d2.mirror_mudancas")
        conn.commit()
        conn.autocommit = True
        conn.execute("VACUUM ANALYZE core.uc_polygons")
    return segundos, cpu


def escritor(srv: common.Server, vezes: int, anterior: bool) -> Iterator[dict[str, Any]]:
    linhas = municipios()
    with (
        common.scratch_db(srv, "sem_d2", migrar=False) as sem,
        common.scratch_db(srv, "com_d2") as com,
        common.scratch_db(srv, "captura_off") as desligada,
    ):
        with common.connect(sem) as conn:
            conn.execute(TABELA_DA_SPEC)
        with common.connect(desligada) as conn:
            for evento in ("insert", "update", "delete", "truncate"):
                conn.execute(
                    sql.SQL("ALTER TABLE core.uc_polygons DISABLE TRIGGER {}").format(
                        sql.Identifier(f"uc_polygons_capturar_{evento}")
                    )
                )
        alvos: dict[str, str] = {"sem": sem, "com": com, "desligada": desligada}
        tempos: dict[str, list[float]] = {k: [] for k in alvos}
        cpus: dict[str, list[float]] = {k: [] for k in alvos}
        _inserir(sem, linhas)  # warm the caches (files, catalog) once, untimed
        for vez in range(vezes):
            ordem = list(alvos)
            random.Random(vez).shuffle(ordem)
            for nome in ordem:
                segundos, cpu = _inserir(alvos[nome], linhas)
                tempos[nome].append(segundos)
                if cpu is not None:
                    cpus[nome].append(cpu)
    med = {k: statistics.median(v) for k, v in tempos.items()}
    corridas = {k: [round(x, 2) for x in v] for k, v in tempos.items()}
    extra = {"rows": len(linhas), "runs": vezes, "runs_s": corridas}
    if all(cpus.values()):
        cpu_med = {k: statistics.median(v) for k, v in cpus.items()}
        yield common.figure(
            "capture", "insert 5,564 municipalities, D-2 installed: server CPU", cpu_med["com"],
            "CPU s", cpu_med["sem"], "the spec's table without D-2", higher_is_better=False,
            capture_disabled_cpu_s=round(cpu_med["desligada"], 3),
            runs_cpu_s={k: [round(x, 3) for x in v] for k, v in cpus.items()},
        )  # fmt: skip
    yield common.figure(
        "capture", "insert 5,564 municipalities, D-2 installed (change capture)", med["com"], "s",
        med["sem"], "the spec's table without D-2", higher_is_better=False, **extra,
    )  # fmt: skip
    yield common.figure(
        "capture", "the same, capture triggers disabled (what the capture alone costs)",
        med["desligada"], "s", med["com"], "D-2 installed", higher_is_better=True,
    )  # fmt: skip
    if anterior:
        with common.scratch_db(srv, "antes", revision=ANTES) as velho:
            s_velho, _ = _inserir(velho, linhas)
        yield common.figure(
            "capture", "the same at the previous head (mirror built in the writer's transaction)",
            s_velho, "s", med["com"], "D-2 installed (change capture)", higher_is_better=True,
        )  # fmt: skip


def _quando_versao_passa(url: str, alem_de: int, parar: threading.Event) -> float:
    with common.connect(url) as conn:
        while not parar.is_set():
            row = conn.execute("SELECT versao FROM d2.mirror_state").fetchone()
            if row is not None and int(row["versao"]) > alem_de:
                return time.perf_counter()
            time.sleep(0.005)
    return float("nan")


def desatualizacao(url: str, escritas: int) -> dict[str, Any]:
    """Staleness of the mirror behind single-row writes, with a worker running."""
    settings = config.load()
    w = loop.Worker(settings, url=url)
    fio = threading.Thread(target=w.executar, daemon=True)
    fio.start()
    rnd = random.Random(15)
    atrasos: list[float] = []
    try:
        with common.connect(url) as conn:
            ucs = [r["id"] for r in conn.execute(db.q("bench_capture_municipios"))]
            time.sleep(2 * settings.poll_interval_s)  # the worker's boot
            for _ in range(escritas):
                time.sleep(rnd.uniform(0.2, 1.2))
                row = conn.execute("SELECT versao FROM d2.mirror_state").fetchone()
                assert row is not None
                versao = int(row["versao"])
                conn.execute(db.q("bench_capture_move"), {"id": rnd.choice(ucs)})
                commit = time.perf_counter()  # autocommit: the statement's return is the commit
                visto = _quando_versao_passa(url, versao, w.parar)
                atrasos.append(visto - commit)
    finally:
        w.parar.set()
        fio.join(60)
    ordenados = sorted(atrasos)
    return {
        "writes": len(atrasos),
        "p50_s": round(statistics.median(ordenados), 3),
        "p99_s": round(ordenados[min(len(ordenados) - 1, int(0.99 * len(ordenados)))], 3),
        "max_s": round(ordenados[-1], 3),
        "poll_interval_s": settings.poll_interval_s,
    }


def staleness(srv: common.Server, template: str, escritas: int) -> Iterator[dict[str, Any]]:
    with common.scratch_db(srv, "stale", template=template) as url:
        r = desatualizacao(url, escritas)
    for q in ("p50", "p99"):
        yield common.figure(
            "capture", f"staleness, writer's commit -> mirror version moved, {q}",
            r[f"{q}_s"], "s", r["poll_interval_s"], "the worker's poll interval",
            higher_is_better=False, **r,
        )  # fmt: skip
