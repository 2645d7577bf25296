"""d2.mirror_cadeias (the precomputed chains) agrees with d2.cadeia_ucs (the source of
truth) on every UC after every kind of change to core.uc_polygons, and the set-based
resolver that reads it answers exactly like the plain predicate (resolver_ingenuo)."""

from __future__ import annotations

import random
import uuid

from tests.support import Conn
from tests.support.territorio import (
    Territorio,
    inserir_uc,
    poligono,
    quadrado,
    resolver_ingenuo,
    sincronizar_mirror,
)


def assert_cadeias_concordam(conn: Conn) -> None:
    """Once the changes are applied, every UC of core.uc_polygons has exactly the chain
    d2.cadeia_ucs gives; no others."""
    sincronizar_mirror(conn)
    rows = conn.execute(
        """
        SELECT u.uc, d2.cadeia_ucs(u.uc) AS verdade, c.cadeia_ucs AS precomputada
        FROM (SELECT DISTINCT unidade_civica_id AS uc FROM core.uc_polygons) u
        FULL JOIN d2.mirror_cadeias c ON c.unidade_civica_id = u.uc
        """
    ).fetchall()
    divergentes = [r for r in rows if r["uc"] is None or r["verdade"] != r["precomputada"]]
    assert divergentes == []


def test_cadeias__full_territory(conn: Conn, territorio: Territorio) -> None:
    assert_cadeias_concordam(conn)
    row = conn.execute(
        "SELECT cadeia_ucs FROM d2.mirror_cadeias WHERE unidade_civica_id = %s",
        [territorio.bairro_a1],
    ).fetchone()
    assert row is not None
    assert row["cadeia_ucs"] == territorio.cadeia_a1


def test_cadeias__partial_chain_completed_when_parent_arrives(conn: Conn) -> None:
    missing = uuid.uuid4()
    uf = inserir_uc(conn, 5, "UF órfã", poligono(quadrado(0, 0, 10, 10)), missing)
    inserir_uc(conn, 4, "Município", poligono(quadrado(0, 0, 5, 5)), uf)
    assert_cadeias_concordam(conn)
    inserir_uc(conn, 6, "Região que faltava", poligono(quadrado(0, 0, 20, 20)), uc=missing)
    assert_cadeias_concordam(conn)


def test_cadeias__cycle_made_and_broken(conn: Conn, territorio: Territorio) -> None:
    conn.execute(
        "UPDATE core.uc_polygons SET parent_uc_id = %s WHERE unidade_civica_id = %s",
        [territorio.mun_a, territorio.regiao],
    )
    assert_cadeias_concordam(conn)
    conn.execute(
        "UPDATE core.uc_polygons SET parent_uc_id = %s WHERE unidade_civica_id = %s",
        [territorio.brasil, territorio.regiao],
    )
    assert_cadeias_concordam(conn)


def test_cadeias__self_parent(conn: Conn) -> None:
    a = uuid.uuid4()
    inserir_uc(conn, 4, "Pai de si", poligono(quadrado(0, 0, 1, 1)), a, uc=a)
    assert_cadeias_concordam(conn)
    # The climb stops before a UC already in the chain: the UC alone, not [a, a, ...].
    row = conn.execute(
        "SELECT cadeia_ucs FROM d2.mirror_cadeias WHERE unidade_civica_id = %s", [a]
    ).fetchone()
    assert row is not None
    assert row["cadeia_ucs"] == [a]


def test_cadeias__delete_middle_and_reinsert(conn: Conn, territorio: Territorio) -> None:
    conn.execute("DELETE FROM core.uc_polygons WHERE unidade_civica_id = %s", [territorio.uf])
    assert_cadeias_concordam(conn)
    inserir_uc(conn, 5, "UF de volta", poligono(quadrado(-50, -30, -40, -20)), territorio.regiao,
               uc=territorio.uf)  # fmt: skip
    assert_cadeias_concordam(conn)


def test_cadeias__second_row_of_a_uc_with_smaller_id_decides(
    conn: Conn, territorio: Territorio
) -> None:
    outro_pai = inserir_uc(conn, 6, "Outra região", poligono(quadrado(60, 0, 70, 10)))
    conn.execute(
        """
        INSERT INTO core.uc_polygons
            (id, unidade_civica_id, nivel, parent_uc_id, nome, geometria, fonte)
        SELECT '00000000-0000-0000-0000-000000000001', unidade_civica_id, nivel, %(pai)s,
               nome, geometria, fonte
        FROM core.uc_polygons WHERE unidade_civica_id = %(uf)s
        """,
        {"pai": outro_pai, "uf": territorio.uf},
    )
    assert_cadeias_concordam(conn)
    conn.execute("DELETE FROM core.uc_polygons WHERE id = '00000000-0000-0000-0000-000000000001'")
    assert_cadeias_concordam(conn)


def test_cadeias__id_and_uc_changes(conn: Conn, territorio: Territorio) -> None:
    novo = uuid.uuid4()
    conn.execute(
        "UPDATE core.uc_polygons SET unidade_civica_id = %s WHERE unidade_civica_id = %s",
        [novo, territorio.mun_a],
    )
    assert_cadeias_concordam(conn)
    conn.execute(
        "UPDATE core.uc_polygons SET id = gen_random_uuid() WHERE unidade_civica_id = %s",
        [territorio.uf],
    )
    assert_cadeias_concordam(conn)


def test_cadeias__geometry_only_update_rewrites_nothing(conn: Conn, territorio: Territorio) -> None:
    antes = conn.execute("SELECT xmin::text AS x FROM d2.mirror_cadeias ORDER BY 1").fetchall()
    conn.execute("UPDATE core.uc_polygons SET geometria = geometria, nome = nome || ' '")
    sincronizar_mirror(conn)
    depois = conn.execute("SELECT xmin::text AS x FROM d2.mirror_cadeias ORDER BY 1").fetchall()
    assert antes == depois
    assert_cadeias_concordam(conn)


def test_cadeias__truncate_and_rebuild(conn: Conn, territorio: Territorio) -> None:
    conn.execute("TRUNCATE core.uc_polygons")
    assert_cadeias_concordam(conn)
    Territorio(conn)
    conn.execute("DELETE FROM d2.mirror_cadeias")
    conn.execute("SELECT d2.mirror_cadeias_rebuild()")
    assert_cadeias_concordam(conn)


def test_cadeias__random_reparenting(conn: Conn) -> None:
    """Many UCs, parents shuffled (gaps, cycles, long chains): always in agreement."""
    rnd = random.Random(7)
    ucs = [uuid.uuid4() for _ in range(40)]
    for i, uc in enumerate(ucs):
        inserir_uc(conn, 4 + i % 4, f"UC {i}", poligono(quadrado(i, 0, i + 1, 1)), uc=uc)
    for _ in range(15):
        pais = {uc: rnd.choice([*ucs, None, uuid.uuid4()]) for uc in rnd.sample(ucs, 8)}
        with conn.transaction():
            for uc, pai in pais.items():
                conn.execute(
                    "UPDATE core.uc_polygons SET parent_uc_id = %s WHERE unidade_civica_id = %s",
                    [pai, uc],
                )
        assert_cadeias_concordam(conn)


def test_resolver_territorios__matches_single_resolver_everywhere(
    conn: Conn, territorio: Territorio
) -> None:
    """On a grid over the territory (levels 2, 4, 5 only, 6-7 only, outside, borders)."""
    pontos = [(lat / 2, lng / 2) for lat in range(-64, -16) for lng in range(-104, -56)]
    rows = conn.execute(
        "SELECT * FROM d2.resolver_territorios(%s::float8[], %s::float8[])",
        [[p[0] for p in pontos], [p[1] for p in pontos]],
    ).fetchall()
    batch = {r["ordem"]: (r["unidade_civica_id"], r["nivel_minimo_resolvido"], r["cadeia_ucs"])
            for r in rows}  # fmt: skip
    niveis = set()
    verdade = resolver_ingenuo(conn, pontos)
    for i, (lat, lng) in enumerate(pontos, start=1):
        um = conn.execute("SELECT * FROM d2.resolver_territorio(%s, %s)", [lat, lng]).fetchall()
        um_a_um = (
            (um[0]["unidade_civica_id"], um[0]["nivel_minimo_resolvido"], um[0]["cadeia_ucs"])
            if um
            else None
        )
        esperado = verdade.get(i)
        assert batch.get(i) == um_a_um == esperado, (lat, lng)
        niveis.add(esperado[1] if esperado else None)
    assert niveis == {2, 4, 5, 6, None}
