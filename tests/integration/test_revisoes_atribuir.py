"""An operator closes a review by hand (docs/design.md, decision 12): `d2 revisoes
atribuir` answers it at a chosen unit (the resolution with its chain, exactly one
demanda.georreferenciada, the review gone, who/when/why recorded; a second call publishes
nothing more and says so), `d2 revisoes descartar` closes it with no answer. Bad input is
one line and changes nothing. The SQL functions behind them are SECURITY DEFINER: they
are attacked here by other roles, through the search_path, with forged arguments, for
demandas not in review, and against the worker answering the same demanda at once."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.rows import dict_row

from d2 import cli, config, errors
from d2.eventlog import registry
from d2.handler.outputs import TIPO_SAIDA
from d2.ops import revisoes
from d2.territorio import resolver
from tests.support import Conn, drenar, papel_de_login, semear_cursor
from tests.support.events import inserir_evento, payload_normalizada, saidas
from tests.support.territorio import Territorio

FORA = (-27.0, -20.0)  # far east of the test territory: in no polygon, near none
PERTO_B = (-30.0004, -42.0)  # ~44 m south of município B: the near rule answers it


def em_revisao(conn: Conn, ponto: tuple[float, float] = FORA) -> tuple[uuid.UUID, uuid.UUID]:
    """A review as the worker leaves it: its event in the log, its row in the queue."""
    payload = payload_normalizada(*ponto)
    event_id = inserir_evento(conn, payload, correlacao_id=uuid.uuid4())
    demanda = uuid.UUID(payload["demanda_id"])
    conn.execute(
        "INSERT INTO d2.revisoes_geo_pendentes (demanda_id, event_id, coordenadas_lat, "
        "coordenadas_lng) VALUES (%s, %s, %s, %s)",
        [demanda, event_id, *ponto],
    )
    return demanda, event_id


def estado(conn: Conn) -> tuple[Any, ...]:
    """Everything an operator's call may write."""
    row = conn.execute(
        "SELECT (SELECT count(*) FROM d2.resolucoes_geo) AS r, "
        "       (SELECT count(*) FROM d2.revisoes_geo_pendentes) AS p, "
        "       (SELECT count(*) FROM d2.revisoes_tratadas) AS t, "
        "       (SELECT count(*) FROM core.event_log) AS e"
    ).fetchone()
    assert row is not None
    return tuple(row.values())


def publicados(conn: Conn, demanda: uuid.UUID) -> list[dict[str, Any]]:
    return [s for s in saidas(conn) if s["payload"]["demanda_id"] == str(demanda)]


# --- the tool --------------------------------------------------------------------------------


def test_atribuir__stores_records_publishes_once_and_says_so_the_second_time(
    conn: Conn,
    db_url: str,
    settings: config.Settings,
    territorio: Territorio,
    capsys: pytest.CaptureFixture[str],
) -> None:
    semear_cursor(conn)
    inserir_evento(conn, payload_normalizada(*FORA))
    drenar(db_url, settings)  # the worker leaves it in review: nothing near it
    [revisao] = conn.execute("SELECT * FROM d2.revisoes_geo_pendentes").fetchall()
    demanda = revisao["demanda_id"]

    argv = ["revisoes", "atribuir", str(demanda), "--uc", str(territorio.bairro_a1)]
    assert cli.main([*argv, "--motivo", "o cidadão ligou", "--by", "maria"]) == 0
    assert "published demanda.georreferenciada" in capsys.readouterr().out

    g = conn.execute("SELECT * FROM d2.resolucoes_geo WHERE demanda_id = %s", [demanda]).fetchone()
    assert g is not None
    assert (g["unidade_civica_id"], g["nivel_minimo_resolvido"]) == (territorio.bairro_a1, 2)
    assert g["cadeia_ucs"] == territorio.cadeia_a1
    assert (g["metodo_resolucao"], g["confianca_geo"]) == ("gps", "media")
    assert (g["coordenadas_lat"], g["coordenadas_lng"], g["event_id"]) == (
        *FORA,
        revisao["event_id"],
    )
    t = conn.execute(
        "SELECT * FROM d2.v_revisoes_tratadas WHERE demanda_id = %s", [demanda]
    ).fetchone()
    assert t is not None
    assert (t["passo"], t["tratado_por"], t["motivo"], t["uc_nome"]) == (
        "operador", "maria", "o cidadão ligou", "Bairro A1",
    )  # fmt: skip
    assert t["usuario_banco"] and t["revisao_desde"] == revisao["criado_em"]
    assert t["distancia_m"] > 2_000_000  # the chosen unit lies ~2,900 km away: recorded
    assert conn.execute("SELECT count(*) AS n FROM d2.revisoes_geo_pendentes").fetchone() == {
        "n": 0
    }
    [saida] = publicados(conn, demanda)
    registry.validar(TIPO_SAIDA, saida["payload"])
    assert saida["origem"] == "D-2" and saida["correlacao_id"] == g["correlacao_id"]
    assert saida["payload"]["cadeia_ucs"] == [str(u) for u in territorio.cadeia_a1]
    vista = conn.execute(
        "SELECT passo_revisao FROM d2.v_resolucoes WHERE demanda_id = %s", [demanda]
    ).fetchone()
    assert vista == {"passo_revisao": "operador"}

    antes = estado(conn)
    assert cli.main(argv) == 0
    assert "already answered at Bairro A1" in capsys.readouterr().out
    assert estado(conn) == antes and len(publicados(conn, demanda)) == 1


def test_descartar__records_and_publishes_nothing(
    conn: Conn, territorio: Territorio, capsys: pytest.CaptureFixture[str]
) -> None:
    demanda, event_id = em_revisao(conn)
    eventos = estado(conn)[3]
    assert cli.main(["revisoes", "descartar", str(demanda), "--reason", "GPS em alto-mar"]) == 0
    assert "discarded" in capsys.readouterr().out
    t = conn.execute(
        "SELECT * FROM d2.revisoes_tratadas WHERE event_id = %s", [event_id]
    ).fetchone()
    assert t is not None and (t["passo"], t["motivo"], t["unidade_civica_id"]) == (
        "descarte", "GPS em alto-mar", None,
    )  # fmt: skip
    assert estado(conn)[1:] == (0, 1, eventos)  # out of the queue, nothing published
    assert cli.main(["revisoes", "descartar", str(demanda), "--motivo", "de novo"]) == 0
    assert "already discarded" in capsys.readouterr().out
    # Discarded, it cannot be answered by hand any more.
    assert cli.main(["revisoes", "atribuir", str(demanda), "--uc", str(territorio.mun_b)]) == 2
    assert "was discarded by" in capsys.readouterr().err


def test_descartar__a_replay_of_its_event_does_not_bring_it_back(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    semear_cursor(conn)
    inserir_evento(conn, payload_normalizada(*FORA))
    drenar(db_url, settings)
    [revisao] = conn.execute("SELECT demanda_id FROM d2.revisoes_geo_pendentes").fetchall()
    revisoes.descartar(conn, settings, revisao["demanda_id"], motivo="sem posição", por="ana")
    antes = estado(conn)
    semear_cursor(conn, mover=True)  # an operator rewinds the cursor: the event comes again
    drenar(db_url, settings)
    assert estado(conn) == antes  # no review again, nothing published, no dead letter
    assert conn.execute("SELECT count(*) AS n FROM core.dead_letter_queue").fetchone() == {"n": 0}


@pytest.mark.parametrize(
    "caso",
    ["demanda desconhecida", "unidade desconhecida", "já respondida", "em conflito", "não é uuid"],
)
def test_bad_input__one_line_non_zero_and_nothing_changed(
    conn: Conn,
    db_url: str,
    settings: config.Settings,
    territorio: Territorio,
    caso: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    demanda, _ = em_revisao(conn)
    uc = str(territorio.mun_b)
    if caso == "demanda desconhecida":
        demanda = uuid.uuid4()
    elif caso == "unidade desconhecida":
        uc = str(uuid.uuid4())
    elif caso == "já respondida":
        semear_cursor(conn)
        payload = payload_normalizada(-27.0, -49.0)
        inserir_evento(conn, payload)
        drenar(db_url, settings)
        demanda = uuid.UUID(payload["demanda_id"])
    elif caso == "em conflito":
        conn.execute(
            "INSERT INTO d2.conflitos_demanda (event_id, demanda_id) VALUES (%s, %s)",
            [uuid.uuid4(), demanda],
        )
    antes = estado(conn)
    alvo = "x-y" if caso == "não é uuid" else str(demanda)
    for argv in (
        ["revisoes", "atribuir", alvo, "--uc", uc],
        ["revisoes", "descartar", alvo, "--motivo", "teste"],
    ):
        if caso == "unidade desconhecida" and argv[1] == "descartar":
            continue
        assert cli.main(argv) == 2
        saida = capsys.readouterr()
        assert saida.out == "" and saida.err.count("\n") == 1 and saida.err.startswith("d2: error:")
    assert estado(conn) == antes


# --- the SQL functions, attacked -------------------------------------------------------------


@pytest.fixture
def operador(conn: Conn, pg_server: Any) -> Iterator[tuple[str, str]]:
    """A LOGIN role holding d2_operador and nothing else, and its URL."""
    with papel_de_login(conn, pg_server, "operadora", membro_de="d2_operador") as papel:
        yield papel


def _como(url: str) -> psycopg.Connection[dict[str, Any]]:
    return psycopg.connect(url, autocommit=True, row_factory=dict_row)


def test_operator_role__closes_reviews_in_psql_and_nothing_else(
    conn: Conn, territorio: Territorio, operador: tuple[str, str]
) -> None:
    nome, url = operador
    demanda, _ = em_revisao(conn)
    outra, _ = em_revisao(conn, (-27.0, -21.0))
    with _como(url) as op:
        pendentes = op.execute("SELECT demanda_id FROM d2.v_revisoes_pendentes").fetchall()
        assert {p["demanda_id"] for p in pendentes} == {demanda, outra}
        # The declared name is a claim; the login is recorded beside it, from the session.
        feito = op.execute(
            "SELECT * FROM d2.revisao_atribuir(%s, %s, 'praia', 'admin')",
            [demanda, territorio.mun_b],
        ).fetchone()
        assert feito is not None and feito["situacao"] == "atribuida"
        op.execute("SELECT * FROM d2.revisao_descartar(%s, 'sem posição')", [outra])
        for proibido in (
            "INSERT INTO d2.resolucoes_geo (id, demanda_id, unidade_civica_id, "
            "nivel_minimo_resolvido, metodo_resolucao, confianca_geo, coordenadas_lat, "
            "coordenadas_lng, event_id, correlacao_id) VALUES (gen_random_uuid(), "
            "gen_random_uuid(), gen_random_uuid(), 4, 'gps', 'alta', 0, 0, gen_random_uuid(), "
            "gen_random_uuid())",
            "DELETE FROM d2.revisoes_geo_pendentes",
            "UPDATE d2.revisoes_tratadas SET tratado_por = 'outro'",
            "INSERT INTO d2.eventos_publicar (event_id, tipo, versao_schema, origem, payload) "
            "VALUES (gen_random_uuid(), 'demanda.georreferenciada', '1.0.0', 'D-2', '{}')",
            "SELECT * FROM core.event_log",
            "SELECT * FROM d2.eventos",
            "SELECT * FROM d2.revisao_em_aberto(gen_random_uuid(), 'operador', NULL, '', '')",
            "SELECT * FROM d2.resolver_proximos(ARRAY[0]::float8[], ARRAY[0]::float8[], 1, 1)",
            "SELECT d2.mirror_aplicar()",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                op.execute(proibido)
    t = conn.execute(
        "SELECT tratado_por, usuario_banco FROM d2.revisoes_tratadas WHERE demanda_id = %s",
        [demanda],
    ).fetchone()
    assert t == {"tratado_por": "admin", "usuario_banco": nome}


def test_other_roles__may_not_close_a_review(
    conn: Conn, territorio: Territorio, como_worker: Conn, pg_server: Any
) -> None:
    demanda, _ = em_revisao(conn)
    chamadas = (
        ("SELECT * FROM d2.revisao_atribuir(%s, %s)", [demanda, territorio.mun_b]),
        ("SELECT * FROM d2.revisao_descartar(%s, 'x')", [demanda]),
    )
    with papel_de_login(conn, pg_server, "qualquer") as (_, url), _como(url) as qualquer:
        for cliente in (como_worker, qualquer):  # the worker's login, and any other one
            for consulta, argumentos in chamadas:
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    cliente.execute(consulta, argumentos)
    assert estado(conn)[1] == 1  # still in review


def test_search_path__the_callers_objects_are_never_used(
    conn: Conn, territorio: Territorio, operador: tuple[str, str]
) -> None:
    """The operator's own temporary objects, named like what the function calls, and a
    search_path of their choosing, change nothing: the definer's path is pinned
    (sql/grants.sql), pg_temp last."""
    _, url = operador
    demanda, _ = em_revisao(conn)
    with _como(url) as op:
        op.execute("CREATE TEMP TABLE revisoes_geo_pendentes (demanda_id uuid)")
        op.execute("CREATE TEMP TABLE mirror_uc (unidade_civica_id uuid, nivel int)")
        for assinatura in ("st_makepoint(float8, float8)", "gen_random_uuid()"):
            op.execute(
                sql.SQL(
                    "CREATE FUNCTION pg_temp.{} RETURNS text LANGUAGE plpgsql AS "
                    "$$BEGIN RAISE EXCEPTION 'the caller''s function ran'; END$$"
                ).format(sql.SQL(assinatura))
            )
        op.execute("SET search_path = pg_temp, d2, public")
        feito = op.execute(
            "SELECT * FROM d2.revisao_atribuir(%s, %s)", [demanda, territorio.mun_b]
        ).fetchone()
    assert feito is not None and feito["situacao"] == "atribuida"
    assert feito["nivel_minimo_resolvido"] == 4


def test_forged_arguments__refused_and_nothing_written(
    conn: Conn, territorio: Territorio, operador: tuple[str, str]
) -> None:
    _, url = operador
    demanda, _ = em_revisao(conn)
    uc = territorio.mun_b
    antes = estado(conn)
    with _como(url) as op:
        for consulta, argumentos in (
            ("SELECT * FROM d2.revisao_atribuir(NULL, %s)", [territorio.mun_b]),
            ("SELECT * FROM d2.revisao_atribuir(%s, NULL)", [demanda]),
            ("SELECT * FROM d2.revisao_atribuir(%s, %s, repeat('x', 2001))", [demanda, uc]),
            ("SELECT * FROM d2.revisao_atribuir(%s, %s, 'x', repeat('y', 201))", [demanda, uc]),
            ("SELECT * FROM d2.revisao_descartar(%s, '   ')", [demanda]),
            ("SELECT * FROM d2.revisao_descartar(%s, NULL)", [demanda]),
            # A unit no polygon has: the chain would be invented.
            ("SELECT * FROM d2.revisao_atribuir(%s, gen_random_uuid())", [demanda]),
            # A demanda that is not in review: nothing is published for it.
            ("SELECT * FROM d2.revisao_atribuir(gen_random_uuid(), %s)", [territorio.mun_b]),
        ):  # fmt: skip
            with pytest.raises((psycopg.errors.InvalidParameterValue, psycopg.errors.NoDataFound)):
                op.execute(consulta, argumentos)
    assert estado(conn) == antes


def test_concurrency__the_operator_holds_it_and_the_queue_run_skips_it(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    demanda, _ = em_revisao(conn, PERTO_B)  # the near rule would answer it too
    with _como(db_url) as operadora:
        with operadora.transaction():
            operadora.execute(
                "SELECT * FROM d2.revisao_atribuir(%s, %s)", [demanda, territorio.mun_a]
            )
            relatorio = revisoes.reprocessar(conn, settings)  # meanwhile: skips the locked row
            assert relatorio["examinadas"] == 0
    g = conn.execute(
        "SELECT unidade_civica_id FROM d2.resolucoes_geo WHERE demanda_id = %s", [demanda]
    ).fetchone()
    assert g == {"unidade_civica_id": territorio.mun_a}  # the operator's choice
    assert len(publicados(conn, demanda)) == 1
    assert revisoes.reprocessar(conn, settings)["examinadas"] == 0


def test_concurrency__the_queue_run_holds_it_and_the_operator_is_told(
    conn: Conn, db_url: str, settings: config.Settings, territorio: Territorio
) -> None:
    """The worker (here `d2 revisoes reprocessar`'s chunk, as the follow-up runs it) takes
    the review first: the operator's call waits for it, then finds it answered, publishes
    nothing and says so."""
    demanda, _ = em_revisao(conn, PERTO_B)
    resultado: dict[str, Any] = {}
    with _como(db_url) as trabalhador:
        with trabalhador.transaction():
            pendentes = trabalhador.execute(
                "SELECT * FROM d2.revisoes_geo_pendentes FOR UPDATE"
            ).fetchall()
            revisoes.resolver_pendentes(trabalhador, pendentes, resolver.NearRule.de(settings))

            def operar() -> None:
                with _como(db_url) as op:
                    try:
                        revisoes.atribuir(op, settings, demanda, territorio.mun_a, por="maria")
                    except errors.InvalidInput as exc:
                        resultado["erro"] = str(exc)

            fio = threading.Thread(target=operar)
            fio.start()
            fio.join(timeout=2)
            assert fio.is_alive()  # waiting for the row the worker holds
        fio.join(timeout=60)
    assert "is not in review: it was answered at unit" in resultado["erro"]
    assert "near rule" in resultado["erro"]
    g = conn.execute(
        "SELECT unidade_civica_id FROM d2.resolucoes_geo WHERE demanda_id = %s", [demanda]
    ).fetchone()
    assert g == {"unidade_civica_id": territorio.mun_b}  # the near rule's answer stands
    assert len(publicados(conn, demanda)) == 1


def test_operator_login__runs_the_commands(
    conn: Conn,
    territorio: Territorio,
    operador: tuple[str, str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A login holding only d2_operador lists the queue and closes reviews with the
    command line, as the owner does."""
    _, url = operador
    demanda, _ = em_revisao(conn)
    outra, _ = em_revisao(conn, (-27.0, -21.0))
    monkeypatch.setenv("DATABASE_URL", url)
    assert cli.main(["revisoes", "list"]) == 0
    assert str(demanda) in capsys.readouterr().out
    assert cli.main(["revisoes", "atribuir", str(demanda), "--uc", str(territorio.mun_b)]) == 0
    assert cli.main(["revisoes", "descartar", str(outra), "--reason", "fora do país"]) == 0
    capsys.readouterr()
    assert estado(conn)[:3] == (1, 0, 2)
