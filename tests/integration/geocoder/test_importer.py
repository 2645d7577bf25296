"""Least privilege and abuse, for textual addresses: the d2_worker login handles
address demands end to end with its grants and nothing more; an ordinary role reads no
address; the web role d2 creates for Nominatim cannot log in."""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

import psycopg
import pytest
from psycopg import sql

from d2 import config, errors
from d2.geocoder.nominatim import importer
from d2.importers import cep, sample, sample_cep, sample_osm
from d2.worker import loop
from tests.conftest import Server
from tests.support import Conn, invariants
from tests.support.events import inserir_evento, payload_normalizada
from tests.support.nominatim_fixtures import NominatimAmostra


def test_geocoder__worker_login_handles_address_demands_with_its_grants_only(
    conn: Conn,
    login_url: str,
    nominatim_amostra: NominatimAmostra,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Any,
) -> None:
    sample.load_sample(conn.info.dsn)
    cep.importar(conn.info.dsn, sample_cep.write_dump(tmp_path / "ceps"))
    monkeypatch.setenv("D2_NOMINATIM_DSN", nominatim_amostra.dsn)
    monkeypatch.setenv("D2_HOME", str(tmp_path))
    settings = config.load()
    loop.Worker(settings, url=login_url).executar(drain=True)  # boot, as the login
    ids = []
    for entidades in (
        {"endereco": "Rua das Palmeiras, 123, Vila Aurora"},
        {"endereco": "Jardim das Flores, Vila Aurora"},
        {"endereco": "Centro"},
        {"cep": "78300-200"},  # the ladder reads d2.ceps as the login
    ):
        payload = payload_normalizada(entidades_extraidas=entidades)
        payload["coordenadas_validadas"] = None
        ids.append(inserir_evento(conn, payload))
    loop.Worker(settings, url=login_url).executar(drain=True)
    metodos = sorted(
        r["metodo_resolucao"]
        for r in conn.execute(
            "SELECT metodo_resolucao FROM d2.resolucoes_geo WHERE event_id = ANY(%s)", [ids]
        )
    )
    assert metodos == ["endereco", "endereco", "inferencia"]
    passos = {
        r["passo"]
        for r in conn.execute(
            "SELECT passo FROM d2.geocodificacoes WHERE event_id = ANY(%s)", [ids]
        )
    }
    assert passos == {"rua_numero", "bairro", "cep_rua", None}
    assert invariants.verificar(conn)["geocodificacoes_pendentes"] == 0


def test_geocoder__worker_login_cannot_fake_an_import_nor_create_roles(
    como_worker: Conn,
) -> None:
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        como_worker.execute(
            "INSERT INTO d2.nominatim_importacoes (arquivo, bytes, duracao_s) VALUES ('x', 1, 1)"
        )
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        como_worker.execute('CREATE ROLE "www-data-falso" LOGIN')
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        como_worker.execute("UPDATE core.uc_polygons SET nome = 'x'")


def test_geocoder__an_ordinary_role_reads_no_address(conn: Conn) -> None:
    nome = f"comum_{uuid.uuid4().hex[:8]}"
    conn.execute(sql.SQL("CREATE ROLE {}").format(sql.Identifier(nome)))
    try:
        conn.execute(sql.SQL("GRANT USAGE ON SCHEMA d2, core TO {}").format(sql.Identifier(nome)))
        conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(nome)))
        for tabela in (
            "d2.resolucoes_geo",
            "d2.geocodificacoes_pendentes",
            "d2.nominatim_importacoes",
            "d2.geocodificacoes",
            "d2.v_geocodificacoes",
            "d2.ceps",
            "d2.cep_localidades",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(sql.SQL("SELECT * FROM {}").format(sql.SQL(tabela)))
        # The inference function is SECURITY INVOKER: through it, no read of core either.
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(
                "SELECT * FROM d2.candidatos_territorio(ARRAY[1], ARRAY[1], ARRAY['Centro'])"
            )
        # Nor through the round's statements, nor the CEPs' (their functions, one generic
        # plan each).
        for chamada in (
            "SELECT * FROM d2.ceps_lidos(ARRAY['79800000']::bpchar[])",
            "SELECT * FROM d2.lugares_lidos(ARRAY[0], ARRAY['Centro'], ARRAY[0], ARRAY[0], "
            "ARRAY[0], '{}', '{}', '{}', '{}', '{}', '{}', '{}')",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(chamada)
    finally:
        conn.execute("RESET ROLE")
        conn.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(nome)))
        conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(nome)))


def test_geocoder__the_web_role_d2_creates_cannot_log_in(pg_server: Server, tmp_path: Any) -> None:
    papel = f"web_{uuid.uuid4().hex[:8]}"
    arquivo = sample_osm.write_osm(tmp_path / "amostra.osm")
    settings = dataclasses.replace(
        config.load(),
        home=tmp_path,
        nominatim_web_user=papel,
        nominatim_dsn=pg_server.url("nominatim_nunca_criado"),
    )
    with pytest.raises(errors.ConfigError, match="web role"):
        importer.verificar(settings, pg_server.url("postgres"), arquivo, criar_papel_web=False)
    importer.verificar(settings, pg_server.url("postgres"), arquivo, criar_papel_web=True)
    try:
        with pytest.raises(psycopg.OperationalError, match=r"too many connections|limit"):
            psycopg.connect(
                Server(papel, pg_server.host, pg_server.port, None).url("postgres")
            ).close()
    finally:
        with psycopg.connect(pg_server.url("postgres"), autocommit=True) as admin:
            admin.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(papel)))


def test_geocoder__import_says_what_is_missing_in_one_line(
    pg_server: Server, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    arquivo = sample_osm.write_osm(tmp_path / "amostra.osm")
    settings = dataclasses.replace(config.load(), home=tmp_path)
    url = pg_server.url("postgres")
    with pytest.raises(errors.InvalidInput, match="no such file"):
        importer.verificar(settings, url, tmp_path / "nada.osm", criar_papel_web=True)
    texto = tmp_path / "x.txt"
    texto.write_text("x")
    with pytest.raises(errors.InvalidInput, match="expected"):
        importer.verificar(settings, url, texto, criar_papel_web=True)
    monkeypatch.setenv("PATH", str(tmp_path))  # no osm2pgsql on it
    with pytest.raises(errors.ConfigError, match="osm2pgsql is missing") as exc:
        importer.verificar(settings, url, arquivo, criar_papel_web=True)
    assert "\n" not in str(exc.value)
