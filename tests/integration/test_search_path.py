"""search_path hijacking of D-2's definer functions.

An ordinary role allowed to CREATE in `public`, where PostGIS lives, plants overloads that
match the calls in D-2's definer and trigger functions better than the real ones. Each
records who ran it in public.invasoes. The migrations must refuse to install where such
a role exists, and where CREATE is granted after the install nothing planted may run
when the owner imports or rebuilds (the functions run as their owner: a superuser here,
and under docker-compose).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.rows import dict_row

from d2 import errors, migrations, verify
from d2.territorio import mirror
from tests.conftest import Server
from tests.support import Conn, papel_de_login
from tests.support.territorio import Territorio, sincronizar_mirror

# Each one is a better match than PostGIS's or pg_catalog's for a call as it was written
# in D-2's functions before the fix (integer literals, polymorphic built-ins, implicit
# casts to box3d, varchar arguments).
PLANTADAS = [
    """CREATE FUNCTION public.st_makeenvelope(integer, double precision, integer,
           double precision, integer) RETURNS geometry LANGUAGE plpgsql AS $$
       BEGIN
           INSERT INTO public.invasoes VALUES (current_user, 'st_makeenvelope');
           RETURN public.st_makeenvelope($1::float8, $2, $3::float8, $4, $5);
       END $$""",
    """CREATE FUNCTION public.unnest(uuid[]) RETURNS SETOF uuid LANGUAGE plpgsql AS $$
       BEGIN
           INSERT INTO public.invasoes VALUES (current_user, 'unnest');
           RETURN QUERY SELECT pg_catalog.unnest($1);
       END $$""",
    """CREATE FUNCTION public.cardinality(uuid[]) RETURNS integer LANGUAGE plpgsql AS $$
       BEGIN
           INSERT INTO public.invasoes VALUES (current_user, 'cardinality uuid[]');
           RETURN pg_catalog.cardinality($1);
       END $$""",
    """CREATE FUNCTION public.cardinality(geometry[]) RETURNS integer LANGUAGE plpgsql AS $$
       BEGIN
           INSERT INTO public.invasoes VALUES (current_user, 'cardinality geometry[]');
           RETURN pg_catalog.cardinality($1);
       END $$""",
    """CREATE FUNCTION public.hostil_acumular(uuid[], uuid) RETURNS uuid[]
       LANGUAGE plpgsql AS $$
       BEGIN
           INSERT INTO public.invasoes VALUES (current_user, 'array_agg');
           RETURN pg_catalog.array_append($1, $2);
       END $$""",
    "CREATE AGGREGATE public.array_agg(uuid) (SFUNC = public.hostil_acumular, STYPE = uuid[])",
    """CREATE FUNCTION public.hostil_juntar(uuid[], uuid) RETURNS uuid[] LANGUAGE plpgsql AS $$
       BEGIN
           INSERT INTO public.invasoes VALUES (current_user, '|| uuid');
           RETURN pg_catalog.array_append($1, $2);
       END $$""",
    """CREATE OPERATOR public.|| (LEFTARG = uuid[], RIGHTARG = uuid,
           FUNCTION = public.hostil_juntar)""",
    """CREATE FUNCTION public.hostil_juntar_g(geometry[], geometry) RETURNS geometry[]
       LANGUAGE plpgsql AS $$
       BEGIN
           INSERT INTO public.invasoes VALUES (current_user, '|| geometry');
           RETURN pg_catalog.array_append($1, $2);
       END $$""",
    """CREATE OPERATOR public.|| (LEFTARG = geometry[], RIGHTARG = geometry,
           FUNCTION = public.hostil_juntar_g)""",
    *[
        f"""CREATE FUNCTION public.{nome}(geometry) RETURNS double precision
            LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO public.invasoes VALUES (current_user, '{nome}');
                RETURN public.{nome}($1::box3d);
            END $$"""
        for nome in ("st_xmin", "st_xmax", "st_ymin", "st_ymax")
    ],
    """CREATE FUNCTION public.lower(character varying) RETURNS text LANGUAGE plpgsql AS $$
       BEGIN
           INSERT INTO public.invasoes VALUES (current_user, 'lower');
           RETURN pg_catalog.lower($1::text);
       END $$""",
    """CREATE FUNCTION public.unaccent(character varying) RETURNS text LANGUAGE plpgsql AS $$
       BEGIN
           INSERT INTO public.invasoes VALUES (current_user, 'unaccent');
           RETURN public.unaccent($1::text);
       END $$""",
]


@pytest.fixture
def hostil(pg_server: Server, db_url: str, conn: Conn) -> Iterator[tuple[str, str]]:
    """An ordinary LOGIN role (no d2_worker) and its URL to this test's database."""
    with papel_de_login(conn, pg_server, "hostil") as papel:
        yield papel


def _plantar(url_hostil: str) -> None:
    with psycopg.connect(url_hostil, autocommit=True) as c:
        c.execute("CREATE TABLE public.invasoes (quem text, o_que text)")
        c.execute("GRANT INSERT ON public.invasoes TO PUBLIC")
        for comando in PLANTADAS:
            c.execute(comando)


def _invasoes(conn: Conn) -> list[dict[str, Any]]:
    return conn.execute("SELECT quem, o_que FROM public.invasoes ORDER BY 2").fetchall()


def test_search_path__planted_overloads_never_run_in_definer_functions(
    conn: Conn, db_url: str, hostil: tuple[str, str]
) -> None:
    """CREATE on public granted to the hostile role after the install (as an operator
    might, by mistake): the import, its triggers and every rebuild run as the owner and
    must not call anything the role planted."""
    nome, url_hostil = hostil
    conn.execute(sql.SQL("GRANT CREATE ON SCHEMA public TO {}").format(sql.Identifier(nome)))
    _plantar(url_hostil)
    # The owner imports (triggers: mirror rows and bands, chains, nome_busca), renames,
    # deletes, and rebuilds everything.
    Territorio(conn)
    conn.execute("UPDATE core.uc_polygons SET nome = nome || ' x'")
    conn.execute("UPDATE core.uc_polygons SET parent_uc_id = NULL WHERE nivel = 4")
    conn.execute("DELETE FROM core.uc_polygons WHERE nivel = 5")
    sincronizar_mirror(conn)  # d2.mirror_aplicar, the worker's path
    mirror.reconstruir(conn)
    conn.execute("SELECT d2.mirror_cadeias_rebuild()")
    conn.execute("SELECT d2.mirror_faixas_construir()")
    assert conn.execute("SELECT count(*) AS n FROM d2.mirror_faixas").fetchone() != {"n": 0}
    assert _invasoes(conn) == []
    # And `d2 db verify` tells the operator.
    relatorio = verify.verify(db_url)
    falhas = [c["check"] for c in relatorio["checks"] if not c["ok"]]
    assert not relatorio["ok"] and any("writable" in f for f in falhas), falhas


def test_search_path__migrations_refuse_where_public_is_writable_by_public(
    empty_db_url: str,
) -> None:
    """PostgreSQL before 15 (and clusters upgraded from it) let PUBLIC create in public."""
    with psycopg.connect(empty_db_url, autocommit=True) as c:
        c.execute("GRANT CREATE ON SCHEMA public TO PUBLIC")
    with pytest.raises(errors.D2Error) as erro:
        migrations.upgrade(empty_db_url)
    mensagem = str(erro.value)
    assert "\n" not in mensagem
    assert "public (PUBLIC)" in mensagem and "REVOKE CREATE ON SCHEMA" in mensagem
    with psycopg.connect(empty_db_url, row_factory=dict_row) as c:
        nada = c.execute("SELECT to_regnamespace('d2') IS NULL AS vazio").fetchone()
        assert nada == {"vazio": True}
        c.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
        c.commit()
    migrations.upgrade(empty_db_url)
    assert migrations.current(empty_db_url) == migrations.head()


def test_search_path__migrations_refuse_a_role_that_may_create_in_d2(
    empty_db_url: str,
) -> None:
    migrations.upgrade(empty_db_url)
    nome = f"hostil_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(empty_db_url, autocommit=True) as c:
        c.execute(sql.SQL("CREATE ROLE {}").format(sql.Identifier(nome)))
        c.execute(sql.SQL("GRANT CREATE ON SCHEMA d2 TO {}").format(sql.Identifier(nome)))
    try:
        with pytest.raises(errors.D2Error, match=f"d2 \\({nome}\\)"):
            migrations.upgrade(empty_db_url)
    finally:
        with psycopg.connect(empty_db_url, autocommit=True) as c:
            c.execute(sql.SQL("DROP OWNED BY {}").format(sql.Identifier(nome)))
            c.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(nome)))


def test_search_path__nome_busca_is_bound_when_created(conn: Conn) -> None:
    """d2.nome_busca has no SET clause (so it is inlined where it is called): its names
    were bound when it was created, and functions that would match better, first on the
    caller's search_path, are never called, in a call or inlined in a query."""
    conn.execute("CREATE SCHEMA armadilha")
    for nome in ("lower", "unaccent", "btrim"):
        conn.execute(
            sql.SQL(
                "CREATE FUNCTION armadilha.{}(text) RETURNS text LANGUAGE sql RETURN 'INVADIDO'"
            ).format(sql.Identifier(nome))
        )
    conn.execute("SET search_path = armadilha, pg_catalog, public")
    try:
        linha = conn.execute(
            "SELECT d2.nome_busca('Pingo-D''Água') AS um, "
            "(SELECT array_agg(d2.nome_busca(n) ORDER BY d2.nome_busca(n)) "
            " FROM (VALUES ('Água Clara'), ('São  José')) v (n)) AS varios"
        ).fetchone()
    finally:
        conn.execute("RESET search_path")
    assert linha == {"um": "pingo dagua", "varios": ["agua clara", "sao jose"]}
