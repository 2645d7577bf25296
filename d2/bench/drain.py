"""drain, memory, latency: the worker over a backlog and under a trickle, and the
machine's ceiling for draining (several workers at once, each on its own copy).

Each run gets its own clone of a prepared database (same polygons, same events, cursor
before the backlog), so the batch and the per-event paths see exactly the same work.

What the worker's speed choices are worth, as measured with this benchmark (the domain
code says only why it does them; these are the figures behind them):

- The young-generation threshold of the garbage collector (worker._espacar_coletas,
  20,000 instead of 700): a batch's objects live until it is written, survive the
  young walks and then set off full collections, each walking the whole geo cache:
  12 µs per event over a 100,000-event drain (15 full collections) at 700, 1.3 µs at
  20,000. The worker makes almost no cycles (168 objects in them over 10,000 events).
- The interpreter's switch interval at 1 ms while the read-ahead runs (d2.worker.reading.ReadAhead):
  the writing thread waits on the database and needs the GIL back from the reading
  thread, which keeps it up to 5 ms by default: 5,000 → 6,400 events/s on the
  10,000-event backlog.
- orjson for the payloads (d2.eventlog.wire): decoding about four times, encoding about ten times
  faster than the json module; the worker decodes one and encodes a few documents per
  event.
- One JSON document per publication (bus.publicar) rather than arrays of columns:
  psycopg escapes each element of a text array with a regular expression, the worker's
  costliest Python step per event; binary arrays measured no faster.
- fastjsonschema for the Registry's checks (d2.eventlog.registry): about ten times as fast as
  jsonschema on every published event; remembering the uuid checks of the few UC ids
  every event's cadeia_ucs repeats saves ~1.3 µs of the ~8 µs check.
- The ids' text printed once per event (classificacao.Plan): a resolution row, its output
  event and its processed mark each carry them.
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from d2 import config, db, logs
from d2.bench import common
from d2.handler import handler
from d2.worker import loop

PROJETO = Path(__file__).resolve().parents[1]


def preparar_backlog(url: str, lats: list[float], lngs: list[float]) -> int:
    """Publish one event per point after the current cursor; returns the cursor."""
    with common.connect(url, autocommit=False) as conn:
        row = conn.execute(db.q("bench_max_sequence")).fetchone()
        assert row is not None
        antes = int(row["seq"])
        for i in range(0, len(lats), 20_000):
            conn.execute(
                db.q("bench_events_insert"),
                {"lats": lats[i : i + 20_000], "lngs": lngs[i : i + 20_000], "enderecos": []},
            )
        handler.CURSOR.colocar(conn, antes)
        conn.commit()
    with common.connect(url) as conn:
        conn.execute("VACUUM ANALYZE core.event_log")
    return antes


def cursor_em(url: str, seq: int) -> None:
    with common.connect(url) as conn:
        handler.CURSOR.colocar(conn, seq)


def ultima(url: str) -> int:
    with common.connect(url) as conn:
        row = conn.execute(db.q("bench_max_sequence")).fetchone()
    assert row is not None
    return int(row["seq"])


def drenar(url: str, batch_size: int) -> tuple[float, int]:
    """(seconds, events handled) of Worker(...).executar(drain=True)."""
    segundos, n, _ = drenar_medindo_cpu(url, batch_size)
    return segundos, n


def drenar_medindo_cpu(url: str, batch_size: int) -> tuple[float, int, float | None]:
    """drenar, plus the share of the machine's CPU time that was busy meanwhile (every
    process: the worker's and the server's), from /proc/stat; None where there is none."""
    settings = config.load()
    runner = loop.Worker(settings, url=url, batch_size=batch_size)
    antes = _cpu_ocupada()
    inicio = time.perf_counter()
    resultado = runner.executar(drain=True)
    segundos = time.perf_counter() - inicio
    depois = _cpu_ocupada()
    ocupada = None
    if antes is not None and depois is not None and depois[1] > antes[1]:
        ocupada = (depois[0] - antes[0]) / (depois[1] - antes[1])
    return segundos, sum(resultado.contagem.values()), ocupada


def _cpu_ocupada() -> tuple[int, int] | None:
    """(busy, total) clock ticks of all CPUs since boot."""
    try:
        campos = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return None
    ocioso = campos[3] + (campos[4] if len(campos) > 4 else 0)  # idle + iowait
    return sum(campos) - ocioso, sum(campos)


def _drenar_filho(url: str, batch_size: int, largada: Any, resultados: Any) -> None:
    # A spawned process starts with logging unset: per-event warnings would flood stderr.
    logs.configure("ERROR")
    runner = loop.Worker(config.load(), url=url, batch_size=batch_size)
    largada.wait()
    resultado = runner.executar(drain=True)
    resultados.put((time.perf_counter(), sum(resultado.contagem.values())))


def drenar_juntos(urls: list[str], batch_size: int) -> tuple[float, int]:
    """One worker process per database, all started at once: (seconds from the start to
    the last one's end, events handled by all). With enough workers to keep every core
    busy, the total is what this machine can drain at all, the ceiling of one worker."""
    contexto = multiprocessing.get_context("spawn")  # no inherited connections
    largada = contexto.Barrier(len(urls) + 1)
    resultados = contexto.Queue()
    filhos = [
        contexto.Process(target=_drenar_filho, args=(url, batch_size, largada, resultados))
        for url in urls
    ]
    for filho in filhos:
        filho.start()
    try:
        largada.wait(timeout=120)
        inicio = time.perf_counter()
        fins = [resultados.get(timeout=3600) for _ in filhos]
    finally:
        for filho in filhos:
            filho.join(timeout=60)
            if filho.is_alive():
                filho.kill()
    return max(fim for fim, _ in fins) - inicio, sum(n for _, n in fins)


def drenar_subprocesso(url: str) -> tuple[float, int, int]:
    """`python -m d2.cli worker --drain` as the operator runs it:
    (seconds, exit code, peak RSS in bytes).

    The peak is the child's VmHWM, read from /proc while it runs (the last reading is
    taken within 20 ms of its exit). Not ru_maxrss: Linux carries the parent's peak
    into a forked child's ru_maxrss, so a big benchmark process would inflate it.
    """
    env = dict(os.environ, DATABASE_URL=url)
    inicio = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "d2.cli", "worker", "--drain", "--log-level", "WARNING"],
        cwd=PROJETO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    pico = 0
    status = Path(f"/proc/{proc.pid}/status")
    while proc.poll() is None:
        pico = max(pico, _vmhwm(status))
        time.sleep(0.02)
    return time.perf_counter() - inicio, proc.returncode, pico


def _vmhwm(status: Path) -> int:
    try:
        for linha in status.read_text().splitlines():
            if linha.startswith("VmHWM:"):
                return int(linha.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def _ouvir(
    url: str, chegadas: dict[str, float], parar: threading.Event, pronto: threading.Event
) -> None:
    # Polls every millisecond: producers (the worker too) send no NOTIFY any more.
    with common.connect(url) as conn:
        visto = 0
        row = conn.execute(db.q("bench_outputs_since"), {"seq": -1}).fetchall()
        visto = max((r["sequence_number"] for r in row), default=0)
        pronto.set()
        while not parar.is_set():
            time.sleep(0.001)
            agora = time.perf_counter()
            for r in conn.execute(db.q("bench_outputs_since"), {"seq": visto}).fetchall():
                chegadas.setdefault(r["demanda_id"], agora)
                visto = max(visto, r["sequence_number"])


def latencia(url: str, lats: list[float], lngs: list[float], por_segundo: float) -> dict[str, Any]:
    """A worker (subprocess) under a steady trickle: commit of each input → its output
    seen committed by a reader polling every millisecond."""
    env = dict(os.environ, DATABASE_URL=url, D2_POLL_INTERVAL="1.0")
    proc = subprocess.Popen(
        [sys.executable, "-m", "d2.cli", "worker", "--log-level", "WARNING"],
        cwd=PROJETO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    chegadas: dict[str, float] = {}
    enviados: dict[str, float] = {}
    parar = threading.Event()
    pronto = threading.Event()
    ouvinte = threading.Thread(target=_ouvir, args=(url, chegadas, parar, pronto), daemon=True)
    ouvinte.start()
    try:
        pronto.wait(10)
        _esperar_worker(url)
        intervalo = 1.0 / por_segundo
        with common.connect(url) as conn:
            proximo = time.perf_counter()
            for lat, lng in zip(lats, lngs, strict=True):
                demanda = str(uuid.uuid4())
                conn.execute(
                    db.q("bench_event_one"), {"demanda_id": demanda, "lat": lat, "lng": lng}
                )
                enviados[demanda] = time.perf_counter()
                proximo += intervalo
                time.sleep(max(0.0, proximo - time.perf_counter()))
        limite = time.perf_counter() + 10
        while len(chegadas) < len(enviados) and time.perf_counter() < limite:
            time.sleep(0.05)
    finally:
        parar.set()
        proc.terminate()
        proc.wait(timeout=30)
        ouvinte.join(timeout=5)
    ms = [(chegadas[d] - t) * 1000 for d, t in enviados.items() if d in chegadas]
    return {
        "n": len(enviados),
        "received": len(ms),
        "p50_ms": common.percentile(ms, 50),
        "p99_ms": common.percentile(ms, 99),
        "max_ms": max(ms) if ms else float("nan"),
    }


def _esperar_worker(url: str, timeout_s: float = 30.0) -> None:
    """Until the worker seeded its cursor (boot done), plus its listener's moment."""
    limite = time.monotonic() + timeout_s
    with common.connect(url) as conn:
        while time.monotonic() < limite:
            row = conn.execute(db.q("bench_cursor_exists")).fetchone()
            if row and row["n"]:
                time.sleep(1.0)
                return
            time.sleep(0.1)
    raise RuntimeError("the worker did not boot")


def rss_proprio() -> int:
    """Peak RSS of this process so far (bytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
