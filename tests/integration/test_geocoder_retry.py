"""An address the geocoder keeps failing: it is retried by due time,
never at the head of every round, and after D2_GEOCODER_TRIES_MAX failures while the
geocoder answers (others, or its status) it ends in the dead letters — without its text.
A geocoder that is down costs no address its tries. A small HTTP server plays Nominatim:
it never answers a query holding "VENENO" in time, and knows no street otherwise."""

from __future__ import annotations

import uuid
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row

from d2 import config
from d2.eventlog import bus
from d2.handler import handler
from d2.worker import loop
from tests.support import Conn, events, invariants
from tests.support.address_fixtures import FalsoNominatim


def _publicar(conn: Conn, endereco: str) -> uuid.UUID:
    payload = events.payload_normalizada(entidades_extraidas={"endereco": endereco})
    payload["coordenadas_validadas"] = None
    return events.inserir_evento(conn, payload)


def _drenar() -> None:
    settings = config.load()
    assert settings.database_url is not None
    loop.Worker(settings, url=settings.database_url).executar(drain=True)


def _estacionado(conn: Conn, event_id: uuid.UUID) -> dict[str, Any] | None:
    return conn.execute(
        "SELECT * FROM d2.geocodificacoes_pendentes WHERE event_id = %s",
        [event_id],
    ).fetchone()


def test_geocoder_retry__an_address_failing_while_the_geocoder_answers_ends_in_dead_letters(
    geocoder_falso_url: str,
) -> None:
    with psycopg.connect(geocoder_falso_url, autocommit=True, row_factory=dict_row) as conn:
        veneno = _publicar(conn, "Rua do VENENO, 10, Vila Aurora")
        boa = _publicar(conn, "Rua das Palmeiras, 10, Vila Aurora")
        for _ in range(6):
            _drenar()
            if _estacionado(conn, veneno) is None:
                break
            conn.execute("UPDATE d2.geocodificacoes_pendentes SET proxima_tentativa = now()")
        assert _estacionado(conn, veneno) is None, "still retried after D2_GEOCODER_TRIES_MAX"
        morta = conn.execute(
            "SELECT erro FROM core.dead_letter_queue WHERE event_id = %s AND status = 'pendente'",
            [veneno],
        ).fetchone()
        assert morta is not None and "3 times" in morta["erro"]
        assert "VENENO" not in morta["erro"].upper() and "Aurora" not in morta["erro"]
        boa_res = conn.execute(
            "SELECT metodo_resolucao FROM d2.resolucoes_geo WHERE event_id = %s", [boa]
        ).fetchone()
        assert boa_res is not None
        invariants.verificar(conn)


def test_geocoder_retry__a_geocoder_that_is_down_costs_no_address_its_tries(
    geocoder_falso_url: str,
) -> None:
    with psycopg.connect(geocoder_falso_url, autocommit=True, row_factory=dict_row) as conn:
        FalsoNominatim.vivo = False
        veneno = _publicar(conn, "Rua do VENENO, 10, Vila Aurora")
        for _ in range(4):
            _drenar()
            conn.execute("UPDATE d2.geocodificacoes_pendentes SET proxima_tentativa = now()")
        estado = _estacionado(conn, veneno)
        assert estado is not None and estado["tentativas"] == 4
        assert estado.get("falhas") == 0
        invariants.verificar(conn)


def test_geocoder_retry__a_retried_address_does_not_block_the_head_of_the_round(
    geocoder_falso_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One address per round: the one due longest goes first, not the oldest event."""
    monkeypatch.setenv("D2_GEOCODER_BATCH", "1")
    settings = config.load()
    handler_ = handler.Handler(settings)
    with psycopg.connect(geocoder_falso_url, autocommit=True, row_factory=dict_row) as conn:
        veneno = _publicar(conn, "Rua do VENENO, 10, Vila Aurora")
        boas = [_publicar(conn, f"Rua das Palmeiras, {n}, Vila Aurora") for n in (1, 2)]
        lidos = bus.ler_desde(conn, handler.TIPO_ENTRADA, handler_.cursor(conn), 100)
        loop.processar(handler_, conn, lidos)  # the handler parks them, no stage yet
        # The poisoned one (the oldest event) failed once and falls due again after the
        # others were parked: they are due longer and come first.
        conn.execute(
            "UPDATE d2.geocodificacoes_pendentes SET "
            "tentativas = CASE WHEN event_id = %(v)s THEN 1 ELSE 0 END, "
            "proxima_tentativa = now() - CASE WHEN event_id = %(v)s "
            "THEN interval '1 second' ELSE interval '10 seconds' END",
            {"v": veneno},
        )
        _drenar()
        resolvidas = {
            r["event_id"]
            for r in conn.execute(
                "SELECT event_id FROM d2.resolucoes_geo WHERE event_id = ANY(%s)", [boas]
            )
        }
        assert resolvidas == set(boas)
        assert _estacionado(conn, veneno) is not None
        invariants.verificar(conn)
