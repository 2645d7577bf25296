"""Address demands through the worker against the real sample Nominatim: each kind of
address (docs/geocoding.md), GPS winning, replay, the geocoder stopped and back, HTTP mode."""

from __future__ import annotations

import json
import uuid
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row

from d2 import config
from d2.eventlog import bus
from d2.geocoder import address
from d2.geocoder.nominatim import client
from d2.handler import handler
from d2.worker import geocoding, loop, metrics
from tests.support import Conn, events, invariants, nominatim_fixtures


def _publicar(conn: Conn, entidades: dict[str, Any], gps: Any = None) -> uuid.UUID:
    payload = events.payload_normalizada(entidades_extraidas=entidades)
    payload["coordenadas_validadas"] = gps
    return events.inserir_evento(conn, payload)


def _drenar() -> dict[str, int]:
    settings = config.load()
    assert settings.database_url is not None  # the db_url fixture sets DATABASE_URL
    return dict(loop.Worker(settings, url=settings.database_url).executar(drain=True).contagem)


def _resolucao(conn: Conn, event_id: uuid.UUID) -> dict[str, Any] | None:
    return conn.execute(
        """
        SELECT r.metodo_resolucao, r.confianca_geo, u.nome, u.nivel, r.coordenadas_lat,
               r.coordenadas_lng, r.endereco_original, r.endereco_geocodificado, r.cadeia_ucs
        FROM d2.resolucoes_geo r
        JOIN core.uc_polygons u ON u.unidade_civica_id = r.unidade_civica_id
        WHERE r.event_id = %s
        """,
        [event_id],
    ).fetchone()


def _nomes_da_cadeia(conn: Conn, cadeia: list[uuid.UUID]) -> set[str]:
    return {
        r["nome"]
        for r in conn.execute(
            "SELECT nome FROM core.uc_polygons WHERE unidade_civica_id = ANY(%s)", [cadeia]
        )
    }


def _saidas(conn: Conn, event_id: uuid.UUID) -> list[dict[str, Any]]:
    demanda = conn.execute(
        "SELECT payload->>'demanda_id' AS d FROM core.event_log WHERE event_id = %s", [event_id]
    ).fetchone()
    assert demanda is not None
    return [s for s in events.saidas(conn) if s["payload"]["demanda_id"] == demanda["d"]]


RESOLVIDOS = [
    # (case, entidades_extraidas, metodo, UC resolved, a UC of its chain)
    (
        "full address with number",
        {"endereco": "Rua das Palmeiras, 123, Vila Aurora"},
        "endereco",
        "Centro",
        "Vila Aurora",
    ),
    (
        "street + município",
        {"nomeRua": "Avenida Brasil", "endereco": "Avenida Brasil - Porto Sereno"},
        "endereco",
        "Porto Sereno",
        "Aurora",
    ),
    (
        "same street name, the município decides",
        {"endereco": "Rua das Palmeiras, 10, Nova Boreal"},
        "endereco",
        "Beira-Rio",
        "Nova Boreal",
    ),
    (
        "bairro + município",
        {"endereco": "Jardim das Flores, Vila Aurora"},
        "inferencia",
        "Jardim das Flores",
        "Vila Aurora",
    ),
    ("município + UF", {"endereco": "Serra Clara - BO"}, "inferencia", "Serra Clara", "Boreal"),
    (
        "município + UF, accents and case off",
        {"endereco": "arquipelago das garcas / CA"},
        "inferencia",
        "Arquipélago das Garças",
        "Cerrado Alto",
    ),
    ("only a CEP", {"cep": "78300-200"}, "endereco", "Campo Largo", "Aurora"),
    (
        "emoji around an address",
        {"endereco": "🏠🚧 Rua das Palmeiras 🙂, Vila Aurora"},
        "endereco",
        "Centro",
        "Vila Aurora",
    ),
    (
        "control characters in an address",
        {"endereco": "Rua das\x01 Palmeiras\x07, 20,\x1b Vila Aurora\u200b"},
        "endereco",
        "Centro",
        "Vila Aurora",
    ),
]

DESCARTADOS = [
    # (case, entidades_extraidas, the reason counted)
    ("'Centro' alone: no guess", {"endereco": "Centro"}, "ambiguo"),
    ("a street alone: no guess", {"endereco": "Rua das Palmeiras, 10"}, "ambiguo"),
    (
        "UF contradicting the street's",
        {"endereco": "Rua das Palmeiras, 123, Vila Aurora, BO"},
        "contraditorio",
    ),
    ("gibberish", {"endereco": "qwpoeiru zxmcnv asdkjh"}, "nao_encontrado"),
    ("100 kB of text", {"endereco": "lorem ipsum " * 9000}, "nao_encontrado"),
    (
        "SQL-like text",
        {"endereco": "'; DROP TABLE d2.resolucoes_geo; -- ' OR 1=1", "cep": "x'--"},
        "nao_encontrado",
    ),
    ("only emoji", {"endereco": "🏠🚧🙂"}, None),
]


@pytest.mark.parametrize(
    ("entidades", "metodo", "uc", "na_cadeia"),
    [c[1:] for c in RESOLVIDOS],
    ids=[c[0] for c in RESOLVIDOS],
)
def test_geocoder__address_resolves(
    geocoder_url: str,
    entidades: dict[str, Any],
    metodo: str,
    uc: str,
    na_cadeia: str,
) -> None:
    with psycopg.connect(geocoder_url, autocommit=True, row_factory=dict_row) as conn:
        event_id = _publicar(conn, entidades)
        _drenar()
        r = _resolucao(conn, event_id)
        assert r is not None, "no resolution"
        assert (r["metodo_resolucao"], r["nome"]) == (metodo, uc)
        assert r["confianca_geo"] == {"endereco": "media", "inferencia": "baixa"}[metodo]
        assert na_cadeia in _nomes_da_cadeia(conn, r["cadeia_ucs"])
        assert r["endereco_original"]
        assert (r["endereco_geocodificado"] is not None) == (metodo == "endereco")
        # The published point is inside the UC published (its own resolver says so).
        ponto = conn.execute(
            "SELECT unidade_civica_id FROM d2.resolver_territorio(%s, %s)",
            [r["coordenadas_lat"], r["coordenadas_lng"]],
        ).fetchone()
        assert ponto is not None
        (saida,) = _saidas(conn, event_id)
        assert saida["payload"]["metodo_resolucao"] == metodo
        assert saida["payload"]["coordenadas_lat"] == r["coordenadas_lat"]
        # d2.v_geocodificacoes: one row, what was understood (the ladder says how).
        (g,) = conn.execute(
            "SELECT * FROM d2.v_geocodificacoes WHERE event_id = %s", [event_id]
        ).fetchall()
        assert (g["metodo_resolucao"], g["nivel_minimo_resolvido"]) == (metodo, r["nivel"])
        assert g["precisao"] in {"endereco": ("numero", "logradouro", "cep"),
                                 "inferencia": ("bairro", "municipio")}[metodo]  # fmt: skip
        assert g["passo"] and g["endereco_entendido"]
        assert g["consultas"] <= 2
        invariants.verificar(conn)


@pytest.mark.parametrize(
    ("entidades", "motivo"), [c[1:] for c in DESCARTADOS], ids=[c[0] for c in DESCARTADOS]
)
def test_geocoder__no_credible_place_is_discarded(
    geocoder_url: str,
    entidades: dict[str, Any],
    motivo: str | None,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with psycopg.connect(geocoder_url, autocommit=True, row_factory=dict_row) as conn:
        antes = conn.execute("SELECT count(*) AS n FROM core.uc_polygons").fetchone()
        event_id = _publicar(conn, entidades)
        contagem = _drenar()
        assert _resolucao(conn, event_id) is None
        assert _saidas(conn, event_id) == []
        marcado = conn.execute(
            "SELECT 1 FROM d2.eventos_processados WHERE event_id = %s", [event_id]
        ).fetchone()
        assert marcado is not None, "a discard is marked processed"
        if motivo is None:  # no text at all: the MVP's discard, never parked
            assert contagem.get("sem_coordenadas") == 1
        else:
            assert contagem.get("endereco_nao_resolvido") == 1
            (aviso,) = [r for r in caplog.records if getattr(r, "event_id", None) == event_id]
            assert (aviso.levelname, getattr(aviso, "motivo", None)) == ("WARNING", motivo)
        # Nothing of the text reached the logs, and the SQL-looking text did nothing.
        texto = json.dumps(entidades["endereco"][:30], ensure_ascii=False).strip('"')
        registros = [
            json.dumps(r.__dict__, default=str, ensure_ascii=False) for r in caplog.records
        ]
        assert registros and not any(texto in r for r in registros)
        assert conn.execute("SELECT count(*) AS n FROM core.uc_polygons").fetchone() == antes
        invariants.verificar(conn)


def test_geocoder__valid_gps_wins_over_the_address(geocoder_url: str) -> None:
    with psycopg.connect(geocoder_url, autocommit=True, row_factory=dict_row) as conn:
        event_id = _publicar(
            conn,
            {"endereco": "Serra Clara - BO"},
            gps={"lat": -12.0, "lng": -54.0},  # Campo Largo
        )
        _drenar()
        r = _resolucao(conn, event_id)
        assert r is not None
        assert (r["metodo_resolucao"], r["confianca_geo"], r["nome"]) == (
            "gps",
            "alta",
            "Campo Largo",
        )
        assert r["endereco_original"] is None
        parked = conn.execute("SELECT count(*) AS n FROM d2.geocodificacoes_pendentes")
        assert parked.fetchone() == {"n": 0}


def test_geocoder__invalid_gps_falls_back_to_the_address(geocoder_url: str) -> None:
    with psycopg.connect(geocoder_url, autocommit=True, row_factory=dict_row) as conn:
        event_id = _publicar(
            conn, {"endereco": "Serra Clara - BO"}, gps={"lat": 123.0, "lng": -54.0}
        )
        _drenar()
        r = _resolucao(conn, event_id)
        assert r is not None and (r["metodo_resolucao"], r["nome"]) == ("inferencia", "Serra Clara")


def test_geocoder__replay_of_an_address_event_republishes_once(geocoder_url: str) -> None:
    with psycopg.connect(geocoder_url, autocommit=True, row_factory=dict_row) as conn:
        event_id = _publicar(conn, {"endereco": "Rua das Palmeiras, 123, Vila Aurora"})
        _drenar()
        (primeira,) = _saidas(conn, event_id)
        seq = conn.execute(
            "SELECT sequence_number FROM core.event_log WHERE event_id = %s", [event_id]
        ).fetchone()
        assert seq is not None
        conn.execute(
            "UPDATE d2.consumer_offset SET last_sequence = %s "
            "WHERE tipo_evento = 'demanda.normalizada'",
            [seq["sequence_number"] - 1],
        )
        contagem = _drenar()
        assert contagem.get("republicada") == 1
        primeira_de_novo, segunda = _saidas(conn, event_id)
        assert primeira_de_novo == primeira
        assert segunda["payload"] == primeira["payload"]
        assert conn.execute("SELECT count(*) AS n FROM d2.resolucoes_geo").fetchone() == {"n": 1}
        invariants.verificar(conn)


def test_geocoder__stopped_mid_drain_then_back(
    geocoder_url: str, nominatim_amostra: Any, pg_server: Any
) -> None:
    """Parked while it is down (GPS demands go through), resolved once it is back:
    nothing lost, nothing doubled."""
    with (
        psycopg.connect(geocoder_url, autocommit=True, row_factory=dict_row) as conn,
        psycopg.connect(pg_server.url("postgres"), autocommit=True) as admin,
    ):
        antes = [_publicar(conn, {"endereco": "Jardim das Flores, Vila Aurora"}) for _ in range(3)]
        _drenar()
        nominatim_fixtures.ligar_nominatim(admin, nominatim_amostra, ligado=False)
        try:
            durante = [
                _publicar(conn, {"endereco": "Rua das Palmeiras, 123, Vila Aurora"}),
                _publicar(conn, {"endereco": "Avenida Brasil, Porto Sereno"}),
            ]
            gps = [_publicar(conn, {}, gps={"lat": -12.0, "lng": -54.0}) for _ in range(5)]
            contagem = _drenar()
            assert contagem.get("georreferenciada") == 5, contagem
            parados = conn.execute(
                "SELECT event_id, tentativas, ultimo_erro FROM d2.geocodificacoes_pendentes"
            ).fetchall()
            assert sorted(r["event_id"] for r in parados) == sorted(durante)
            assert all(r["tentativas"] == 1 and r["ultimo_erro"] for r in parados)
            for event_id in durante:
                assert _resolucao(conn, event_id) is None
            for event_id in gps:
                assert _resolucao(conn, event_id) is not None
            # Parked is a state: the checker counts them, none lost or doubled.
            assert invariants.verificar(conn)["geocodificacoes_pendentes"] == 2
        finally:
            nominatim_fixtures.ligar_nominatim(admin, nominatim_amostra, ligado=True)
        conn.execute("UPDATE d2.geocodificacoes_pendentes SET proxima_tentativa = now()")
        _drenar()
        for event_id in [*antes, *durante]:
            assert _resolucao(conn, event_id) is not None
            assert len(_saidas(conn, event_id)) == 1
        contagens = invariants.verificar(conn)
        assert contagens["geocodificacoes_pendentes"] == 0
        assert contagens["publicacoes_extra"] == 0


def test_geocoder__http_mode_against_nominatim_serve(
    geocoder_url: str, nominatim_http: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("D2_NOMINATIM_URL", nominatim_http)
    monkeypatch.setenv("D2_NOMINATIM_DSN", "postgresql://nobody@/nowhere?host=/nonexistent")
    with psycopg.connect(geocoder_url, autocommit=True, row_factory=dict_row) as conn:
        casa = _publicar(conn, {"endereco": "Rua das Palmeiras, 123, Vila Aurora"})
        cep = _publicar(conn, {"cep": "78300-200"})
        centro = _publicar(conn, {"endereco": "Centro"})
        _drenar()
        r = _resolucao(conn, casa)
        assert r is not None and (r["metodo_resolucao"], r["nome"]) == ("endereco", "Centro")
        r = _resolucao(conn, cep)
        assert r is not None and (r["metodo_resolucao"], r["nome"]) == ("endereco", "Campo Largo")
        assert _resolucao(conn, centro) is None
        invariants.verificar(conn)


def test_geocoder__http_server_down_parks(
    geocoder_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An address that needs the geocoder waits for it; one the territory alone answers
    (a município and its UF) does not."""
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        porta = s.getsockname()[1]
    monkeypatch.setenv("D2_NOMINATIM_URL", f"http://127.0.0.1:{porta}")
    monkeypatch.setenv("D2_GEOCODER_TIMEOUT", "1")
    with psycopg.connect(geocoder_url, autocommit=True, row_factory=dict_row) as conn:
        event_id = _publicar(conn, {"endereco": "Rua das Palmeiras, 123, Vila Aurora"})
        so_lugar = _publicar(conn, {"endereco": "Serra Clara - BO"})
        _drenar()
        assert _resolucao(conn, event_id) is None
        parado = conn.execute(
            "SELECT tentativas, ultimo_erro FROM d2.geocodificacoes_pendentes WHERE event_id = %s",
            [event_id],
        ).fetchone()
        assert parado is not None and parado["tentativas"] == 1
        assert "Palmeiras" not in (parado["ultimo_erro"] or "")
        r = _resolucao(conn, so_lugar)
        assert r is not None and (r["metodo_resolucao"], r["nome"]) == ("inferencia", "Serra Clara")


def test_geocoder__metrics_by_result_cache_and_reimport(geocoder_url: str) -> None:
    """d2_geocodificacoes_total{resultado} and the request histogram count what happened,
    with no address in them; the cache answers repeats and empties on a new import."""
    import prometheus_client

    settings = config.load()
    registro = metrics.Metrics().registry
    medidas = geocoding.GeocodingMetrics(registro)
    geocodificador = client.criar_geocodificador(settings, geocoder_url, medidas.duracao.observe)
    address_path = address.AddressPath(settings, geocodificador)
    est = geocoding.GeocodingStage(
        settings, lambda _: address_path, address_path.parar, metrics=medidas
    )
    handler_ = handler.Handler(settings)

    def rodar(conn: Conn, *enderecos: str) -> None:
        for endereco in enderecos:
            _publicar(conn, {"endereco": endereco})
        lidos = bus.ler_desde(conn, handler.TIPO_ENTRADA, handler_.cursor(conn), 100)
        loop.processar(handler_, conn, lidos)  # the handler parks them
        est.drenar(conn)

    casa = "Rua das Palmeiras, 123, Vila Aurora"
    try:
        with psycopg.connect(geocoder_url, autocommit=True, row_factory=dict_row) as conn:
            rodar(conn, casa, "Centro", casa)

            def valor(nome: str, **labels: str) -> float | None:
                return registro.get_sample_value(nome, labels)

            assert valor("d2_geocodificacoes_total", resultado="endereco") == 2
            assert valor("d2_geocodificacoes_total", resultado="ambiguo") == 1
            # One search: the repeated text is asked once, "Centro" (no place) not at all.
            assert valor("d2_geocodificacao_duracao_seconds_count") == 1
            assert valor("d2_geocodificacao_consultas_total", passo="rua_numero") == 1
            texto = prometheus_client.generate_latest(registro).decode()
            assert "Palmeiras" not in texto and "Centro" not in texto
            # The repeated text in one round was asked once (both lookups missed).
            assert (est.address_path.cache.hits, est.address_path.cache.misses) == (0, 2)
            rodar(conn, casa)
            assert (est.address_path.cache.hits, est.address_path.cache.misses) == (1, 2)
            conn.execute(
                "INSERT INTO d2.nominatim_importacoes (arquivo, bytes, duracao_s) "
                "VALUES ('novo.osm', 1, 1)"
            )
            rodar(conn, casa)
            assert (est.address_path.cache.hits, est.address_path.cache.misses) == (1, 3)
            invariants.verificar(conn)
    finally:
        geocodificador.fechar()
