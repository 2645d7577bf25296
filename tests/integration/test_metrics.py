"""Metrics and the health endpoints: counters from batches, gauges from the database, HTTP."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from collections.abc import Iterator

import pytest
from prometheus_client.parser import text_string_to_metric_families

from d2 import config
from d2.eventlog import dead_letters
from d2.handler import handler
from d2.worker import health, loop, metrics, metrics_http
from tests.support import Conn, esperar, porta_livre, semear_cursor
from tests.support.events import inserir_evento, payload_normalizada
from tests.support.territorio import Territorio


def amostras(m: metrics.Metrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of the exposition, keyed by (name, sorted labels)."""
    texto = m.texto().decode()
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(texto)
        for s in family.samples
    }


def valor(m: metrics.Metrics, nome: str, **labels: str) -> float:
    return amostras(m)[(nome, tuple(sorted(labels.items())))]


def batch(contagem: dict[str, int], hits: int = 0, sql: int = 0) -> handler.Result:
    return handler.Result(contagem=Counter(contagem), cache_hits=hits, resolvidos_sql=sql)


def test_observar_batch__counts_outcomes_levels_cache_and_duration() -> None:
    m = metrics.Metrics()
    primeiro = batch({"georreferenciada": 3, "revisao_pendente": 1}, hits=1, sql=3)
    primeiro.por_nivel = Counter({2: 2, 4: 1})  # type: ignore[attr-defined]
    m.observar_batch(primeiro, 0.004)
    m.observar_batch(batch({"dead_letter": 2, "sem_coordenadas": 1}, hits=3, sql=0), None)

    assert valor(m, "d2_eventos_processados_total", desfecho="georreferenciada") == 3
    assert valor(m, "d2_eventos_processados_total", desfecho="dead_letter") == 2
    assert valor(m, "d2_eventos_processados_total", desfecho="republicada") == 0
    assert valor(m, "d2_demandas_georreferenciadas_total", nivel="2") == 2
    assert valor(m, "d2_demandas_georreferenciadas_total", nivel="4") == 1
    assert valor(m, "d2_cache_hits_total") == 4
    assert valor(m, "d2_cache_misses_total") == 3
    assert valor(m, "d2_cache_hit_ratio") == pytest.approx(4 / 7)
    assert valor(m, "d2_point_in_polygon_duration_seconds_count") == 1
    assert valor(m, "d2_point_in_polygon_duration_seconds_sum") == pytest.approx(0.004)
    assert valor(m, "d2_point_in_polygon_duration_seconds_bucket", le="0.005") == 1
    assert valor(m, "d2_ultimo_evento_processado_timestamp_seconds") == pytest.approx(
        time.time(), abs=5
    )
    # Bounded labels only: nothing that grows with the data.
    nomes = {nome for (_, labels) in amostras(m) for nome, _ in labels}
    assert nomes <= {"nivel", "desfecho", "le", "passo"}


def test_metrics__each_instance_has_its_own_registry() -> None:
    a, b = metrics.Metrics(), metrics.Metrics()
    a.observar_batch(batch({"georreferenciada": 5}), None)
    assert valor(b, "d2_eventos_processados_total", desfecho="georreferenciada") == 0


def test_atualizar_gauges__lag_dead_letters_reviews_from_the_database(conn: Conn) -> None:
    semear_cursor(conn)
    for _ in range(3):
        inserir_evento(conn, payload_normalizada())
    inserir_evento(conn, {"outro": 1}, tipo="outra.coisa")  # another type: not lag
    conn.execute(
        "INSERT INTO d2.revisoes_geo_pendentes "
        "(demanda_id, event_id, coordenadas_lat, coordenadas_lng) VALUES (%s, %s, 1, 1)",
        [uuid.uuid4(), uuid.uuid4()],
    )
    with conn.transaction():
        for _ in range(2):
            dead_letters.registrar(
                conn,
                consumer=handler.CONSUMER,
                event_id=uuid.uuid4(),
                tipo=handler.TIPO_ENTRADA,
                sequence_number=None,
                erro="bad",
            )
    # Another colony's dead letter (D-2 cannot write one: d2.dead_letters); not D-2's count.
    conn.execute(
        "INSERT INTO core.dead_letter_queue (consumidor, event_id, tipo, erro)"
        " VALUES ('D-4', gen_random_uuid(), 'x', 'x')"
    )
    m = metrics.Metrics()
    m.atualizar_gauges(conn)
    assert valor(m, "d2_consumer_lag") == 3
    assert valor(m, "d2_dead_letters") == 2
    assert valor(m, "d2_revisoes_pendentes") == 1
    assert valor(m, "d2_ultimo_evento_processado_timestamp_seconds") == pytest.approx(
        time.time(), abs=60
    )


def test_metrics__wired_to_a_real_worker_batch(
    conn: Conn, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    Territorio(conn)
    semear_cursor(conn)
    inserir_evento(conn, payload_normalizada(-27.0, -49.0))
    inserir_evento(conn, payload_normalizada(-27.0, -49.0))  # same point: a cache hit
    inserir_evento(conn, payload_normalizada(-27.0, -20.0))  # outside: review
    m = metrics.Metrics()
    w = loop.Worker(
        config.load(), url=db_url, batch_size=1, on_batch=lambda r: m.observar_batch(r, None)
    )
    w.executar(drain=True)
    m.atualizar_gauges(conn)
    assert valor(m, "d2_eventos_processados_total", desfecho="georreferenciada") == 2
    assert valor(m, "d2_eventos_processados_total", desfecho="revisao_pendente") == 1
    assert valor(m, "d2_cache_hits_total") == 1 and valor(m, "d2_cache_misses_total") == 2
    assert valor(m, "d2_consumer_lag") == 0 and valor(m, "d2_revisoes_pendentes") == 1


# --- HTTP ------------------------------------------------------------------------------------


@pytest.fixture
def servidor() -> Iterator[tuple[metrics_http.Server, health.State, metrics.Metrics]]:
    estado = health.State()
    m = metrics.Metrics()
    srv = metrics_http.iniciar_servidor(
        porta_livre(), lambda: estado, metrics=m, host="127.0.0.1", limite_vivo_s=5.0
    )
    assert srv is not None
    try:
        yield srv, estado, m
    finally:
        srv.parar()


def get(srv: metrics_http.Server, caminho: str) -> tuple[int, str, str]:
    url = f"http://127.0.0.1:{srv.porta}{caminho}"
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, resp.headers["Content-Type"], resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers["Content-Type"], exc.read().decode()


def test_http__metrics_endpoint_serves_the_exposition(
    servidor: tuple[metrics_http.Server, health.State, metrics.Metrics],
) -> None:
    srv, _, m = servidor
    m.observar_batch(batch({"georreferenciada": 2}), 0.01)
    codigo, tipo, corpo = get(srv, "/metrics")
    assert codigo == 200 and tipo.startswith("text/plain")
    assert 'd2_eventos_processados_total{desfecho="georreferenciada"} 2.0' in corpo
    assert "d2_point_in_polygon_duration_seconds_bucket" in corpo
    assert get(srv, "/nada")[0] == 404


def test_http__readyz_follows_the_boot_and_healthz_the_loop(
    servidor: tuple[metrics_http.Server, health.State, metrics.Metrics],
) -> None:
    srv, estado, _ = servidor
    assert get(srv, "/readyz")[0] == 503  # boot replay not finished
    assert get(srv, "/healthz")[0] == 200  # but the process is alive and moving
    estado.pronto = True
    codigo, tipo, corpo = get(srv, "/readyz")
    assert codigo == 200 and tipo == "application/json"
    assert json.loads(corpo) == {"status": "ready"}
    estado.ultimo_avanco = time.monotonic() - 30  # stuck for longer than limite_vivo_s
    codigo, _, corpo = get(srv, "/healthz")
    assert codigo == 503 and json.loads(corpo)["status"] == "stalled"


def test_http__port_zero_means_disabled() -> None:
    assert metrics_http.iniciar_servidor(0, lambda: None) is None


def test_worker__serves_metrics_and_health_on_d2_metrics_port(
    conn: Conn, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    Territorio(conn)
    semear_cursor(conn)
    porta = porta_livre()
    monkeypatch.setenv("D2_METRICS_PORT", str(porta))
    monkeypatch.setenv("D2_POLL_INTERVAL", "0.2")
    w = loop.Worker(config.load(), url=db_url)
    if not hasattr(w, "metrics"):
        pytest.skip("the worker does not start the metrics endpoint yet")

    def pedir(caminho: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{porta}{caminho}", timeout=5) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()
        except urllib.error.URLError:
            return 0, ""  # not listening (yet, or any more)

    fio = threading.Thread(target=w.executar, daemon=True)
    fio.start()
    try:
        esperar(lambda: pedir("/readyz")[0] == 200)
        assert pedir("/readyz")[0] == 200 and pedir("/healthz")[0] == 200
        inserir_evento(conn, payload_normalizada(-27.0, -49.0))  # bairro A1
        inserir_evento(conn, payload_normalizada(-27.0, -42.0))  # município B
        inserir_evento(conn, payload_normalizada(-27.0, -20.0))  # review
        esperar(lambda: "d2_revisoes_pendentes 1.0" in pedir("/metrics")[1])
        corpo = pedir("/metrics")[1]
        assert 'd2_demandas_georreferenciadas_total{nivel="2"} 1.0' in corpo
        assert 'd2_demandas_georreferenciadas_total{nivel="4"} 1.0' in corpo
        assert 'd2_eventos_processados_total{desfecho="revisao_pendente"} 1.0' in corpo
        assert "d2_point_in_polygon_duration_seconds_count" in corpo
        assert "d2_revisoes_pendentes 1.0" in corpo and "d2_consumer_lag 0.0" in corpo
    finally:
        w.parar.set()
        fio.join(20)
    assert pedir("/healthz")[0] == 0  # the endpoint stops with the worker


# --- The endpoint under attack: where it listens, idle clients, floods ------------------------


def _conectar(srv: metrics_http.Server, inicio: bytes = b"") -> socket.socket:
    s = socket.create_connection(("127.0.0.1", srv.porta), timeout=10)
    if inicio:
        s.sendall(inicio)
    return s


def _fechada_em(s: socket.socket, limite_s: float) -> float | None:
    """Seconds until the server closed `s` (None: still open after limite_s)."""
    inicio = time.monotonic()
    s.settimeout(limite_s)
    try:
        while s.recv(4096):
            pass
    except TimeoutError:
        return None
    except ConnectionResetError:
        pass
    return time.monotonic() - inicio


def test_http__listens_on_loopback_unless_told_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    srv = metrics_http.iniciar_servidor(porta_livre(), lambda: None)
    assert srv is not None
    try:
        assert srv.server_address[0] == "127.0.0.1"
    finally:
        srv.parar()
    monkeypatch.delenv("D2_METRICS_HOST", raising=False)
    assert config.load().metrics_host == "127.0.0.1"
    monkeypatch.setenv("D2_METRICS_HOST", "0.0.0.0")
    assert config.load().metrics_host == "0.0.0.0"


def test_http__an_idle_client_neither_blocks_healthz_nor_stays_forever() -> None:
    estado = health.State()
    srv = metrics_http.iniciar_servidor(
        porta_livre(), lambda: estado, tempo_limite_s=0.5, max_conexoes=4
    )
    assert srv is not None
    try:
        lento = _conectar(srv, b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # never finishes
        assert get(srv, "/healthz")[0] == 200
        fechada = _fechada_em(lento, 5.0)
        assert fechada is not None and fechada < 3.0
        lento.close()
    finally:
        srv.parar()


def test_http__a_flood_beyond_the_bound_holds_at_most_the_bound_and_healthz_answers() -> None:
    """Connections beyond the bound take the slots of the oldest idle ones: never more
    than the bound open (threads), /healthz answered during the flood, every idle one
    closed by its deadline, and the server thread lives."""
    estado = health.State()
    srv = metrics_http.iniciar_servidor(
        porta_livre(), lambda: estado, tempo_limite_s=8.0, max_conexoes=3
    )
    assert srv is not None
    try:
        ocupadas = [_conectar(srv) for _ in range(3)]
        time.sleep(0.5)
        excesso = [_conectar(srv) for _ in range(20)]
        time.sleep(0.5)
        assert srv.abertas <= 3
        # The oldest gave way at once, well before their deadline.
        for s in ocupadas + excesso[:-3]:
            assert _fechada_em(s, 4.0) is not None, "an idle connection kept its slot"
        assert get(srv, "/healthz")[0] == 200
        for s in ocupadas + excesso:
            assert _fechada_em(s, 15.0) is not None
            s.close()
        assert srv.thread is not None and srv.thread.is_alive()
    finally:
        srv.parar()


class Gotejamento:
    """Slow-drip clients: each sends a request one byte at a time, a
    byte every `passo_s` (well within any per-read timeout), forever, and connects again
    as soon as the server closes it."""

    def __init__(self, porta: int, clientes: int, passo_s: float) -> None:
        self.porta, self.passo_s = porta, passo_s
        self.socks: list[socket.socket | None] = [None] * clientes
        self.parar = threading.Event()
        self.conexoes = 0
        self.fio = threading.Thread(target=self._executar, daemon=True)

    def _executar(self) -> None:
        while not self.parar.is_set():
            for i, s in enumerate(self.socks):
                try:
                    if s is None:
                        s = self.socks[i] = socket.create_connection(
                            ("127.0.0.1", self.porta), timeout=2
                        )
                        self.conexoes += 1
                        s.sendall(b"GET /healthz HTTP/1.1\r\nX-Gota: ")
                    s.sendall(b"a")
                except OSError:
                    if s is not None:
                        s.close()
                    self.socks[i] = None
            self.parar.wait(self.passo_s)

    def __enter__(self) -> Gotejamento:
        self.fio.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.parar.set()
        self.fio.join(10)
        for s in self.socks:
            if s is not None:
                s.close()


def test_http__slow_drip_clients_cannot_keep_healthz_away() -> None:
    """32 clients trickling a byte every 0.5 s used to hold all 16 slots forever (the
    5 s timeout was per read): /healthz was refused for as long as they kept at it.
    Now each connection has a total deadline and a probe always gets a slot: every probe
    is answered, within a second or two at worst on a loaded machine (milliseconds
    here)."""
    estado = health.State()
    srv = metrics_http.iniciar_servidor(porta_livre(), lambda: estado)  # the defaults: 16, 5 s
    assert srv is not None
    try:
        with Gotejamento(srv.porta, clientes=32, passo_s=0.5) as ataque:
            time.sleep(1.0)  # every slot taken by a dripping client
            respostas = []
            fim = time.monotonic() + 8.0  # past the total deadline: reconnected drippers too
            while time.monotonic() < fim:
                inicio = time.monotonic()
                try:
                    with urllib.request.urlopen(
                        f"http://127.0.0.1:{srv.porta}/healthz", timeout=3
                    ) as r:
                        respostas.append((r.status, time.monotonic() - inicio))
                except OSError as exc:
                    respostas.append((repr(exc), time.monotonic() - inicio))
                time.sleep(0.25)
        assert all(codigo == 200 for codigo, _ in respostas), respostas
        assert max(segundos for _, segundos in respostas) < 2.0, respostas
        assert ataque.conexoes > 32  # they were cut at their deadline and came back
        assert srv.abertas <= metrics_http.MAX_CONEXOES
        assert srv.thread is not None and srv.thread.is_alive()
    finally:
        srv.parar()


def test_atualizar_gauges__closed_reviews_by_step_at_most_once_a_minute(
    conn: Conn, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fechar(passo: str, n: int) -> None:
        conn.execute(
            "INSERT INTO d2.revisoes_tratadas (event_id, demanda_id, passo, unidade_civica_id, "
            "coordenadas_lat, coordenadas_lng) SELECT gen_random_uuid(), gen_random_uuid(), "
            "%(passo)s::text, "
            "CASE WHEN %(passo)s::text <> 'descarte' THEN gen_random_uuid() END, 0, 0 "
            "FROM generate_series(1, %(n)s)",
            {"passo": passo, "n": n},
        )

    m = metrics.Metrics()
    assert valor(m, "d2_revisoes_tratadas", passo="operador") == 0  # shown from the start
    fechar("proximidade", 3)
    fechar("operador", 2)
    fechar("descarte", 1)
    relogio = [1000.0]
    monkeypatch.setattr(metrics.time, "monotonic", lambda: relogio[0])
    m.atualizar_gauges(conn)
    assert [valor(m, "d2_revisoes_tratadas", passo=p) for p in metrics.PASSOS_REVISAO] == [3, 2, 1]
    fechar("descarte", 4)
    relogio[0] += 30
    m.atualizar_gauges(conn)  # within the minute: not counted again
    assert valor(m, "d2_revisoes_tratadas", passo="descarte") == 1
    relogio[0] += 31
    m.atualizar_gauges(conn)
    assert valor(m, "d2_revisoes_tratadas", passo="descarte") == 5
