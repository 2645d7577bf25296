"""d2.mirror_faixas (clean intervals per latitude band) never changes an answer: the batch
resolver that reads it answers exactly like the plain predicate over the mirror's pieces
(tests/support/territorio.py, resolver_ingenuo), on borders, vertices, band edges and interval
ends, and after every kind of change to core.uc_polygons the intervals describe the
committed polygons."""

from __future__ import annotations

import itertools
import math
import random
import uuid
from typing import Any

import psycopg

from d2.territorio import mirror
from tests.support import Conn
from tests.support.territorio import (
    Territorio,
    inserir_uc,
    poligono,
    quadrado,
    resolver_batch,
    resolver_ingenuo,
    sincronizar_mirror,
)

ESCALA = 128  # = d2.faixas_por_grau()


def _um(conn: Conn, lat: float, lng: float) -> tuple[Any, ...] | None:
    """The truth at one point: the plain predicate (resolver_ingenuo), not the intervals."""
    return resolver_ingenuo(conn, [(lat, lng)]).get(1)


def assert_concordam(conn: Conn, pontos: list[tuple[float, float]]) -> None:
    """The batch resolver and the one-point resolver (one definition, the clean intervals
    first) give every point exactly the plain predicate's answer (resolver_ingenuo)."""
    batch = resolver_batch(conn, pontos)
    rows = conn.execute(
        """
        SELECT p.ordem::integer AS ordem, r.unidade_civica_id, r.nivel_minimo_resolvido,
               r.cadeia_ucs
        FROM unnest(%s::float8[], %s::float8[]) WITH ORDINALITY AS p (lat, lng, ordem)
        CROSS JOIN LATERAL d2.resolver_territorio(p.lat, p.lng) r
        """,
        [[p[0] for p in pontos], [p[1] for p in pontos]],
    ).fetchall()
    um_a_um = {
        r["ordem"]: (r["unidade_civica_id"], r["nivel_minimo_resolvido"], r["cadeia_ucs"])
        for r in rows
    }
    verdade = resolver_ingenuo(conn, pontos)
    divergentes = [
        (lat, lng, batch.get(i), um_a_um.get(i), verdade.get(i))
        for i, (lat, lng) in enumerate(pontos, start=1)
        if not batch.get(i) == um_a_um.get(i) == verdade.get(i)
    ]
    assert divergentes == []


def _faixas(conn: Conn) -> list[dict[str, Any]]:
    """Every clean interval, one dict each (a row of d2.mirror_faixas holds a run of them)."""
    return conn.execute(
        """
        SELECT f.faixa, f.limites[2 * i - 1] AS x_inicio, f.limites[2 * i] AS x_fim,
               f.unidades[i] AS unidade_civica_id, f.niveis[i] AS nivel
        FROM d2.mirror_faixas f
        CROSS JOIN LATERAL generate_subscripts(f.unidades, 1) AS i
        ORDER BY 1, 2
        """
    ).fetchall()


def _pendentes(conn: Conn) -> int:
    row = conn.execute("SELECT count(*) AS n FROM d2.mirror_faixas_pendentes").fetchone()
    assert row is not None
    return int(row["n"])


def _pontos_de_risco(conn: Conn, amostra: int = 600) -> list[tuple[float, float]]:
    """Each interval's ends (exactly, and one rounding step inside and outside), its middle
    on the band's bottom and top edges (of a fixed sample of the intervals)."""
    pontos = []
    faixas = _faixas(conn)
    for f in random.Random(5).sample(faixas, min(amostra, len(faixas))):
        base, topo = f["faixa"] / ESCALA, (f["faixa"] + 1) / ESCALA
        meio = (f["x_inicio"] + f["x_fim"]) / 2
        for x in (f["x_inicio"], f["x_fim"]):
            for dx in (0.0, -1e-5, 1e-5):
                pontos.append((base + (topo - base) / 3, x + dx))
        pontos += [(base, meio), (topo, meio)]
    return pontos


def _estrela(
    cx: float, cy: float, r: float, n: int, rnd: random.Random
) -> list[tuple[float, float]]:
    """An irregular star-shaped ring: many slanted edges, vertices at 5 decimals."""
    anel = [
        (
            round(cx + r * rnd.uniform(0.4, 1.0) * math.cos(2 * math.pi * i / n), 5),
            round(cy + r * rnd.uniform(0.4, 1.0) * math.sin(2 * math.pi * i / n), 5),
        )
        for i in range(n)
    ]
    return [*anel, anel[0]]


def test_faixas__built_by_the_insert_and_the_batch_agrees(
    conn: Conn, territorio: Territorio
) -> None:
    faixas = _faixas(conn)
    assert faixas, "inserting level <= 4 polygons built no interval"
    assert _pendentes(conn) == 0
    assert {f["nivel"] for f in faixas} == {2, 4}  # bairros A1/A2 and município B
    assert all(f["nivel"] <= 4 for f in faixas)
    # The square borders lie exactly on band edges (-25 * 128 is an integer).
    grade = [(lat / 8, lng / 8) for lat in range(-248, -152, 3) for lng in range(-408, -312, 3)]
    assert_concordam(conn, grade + _pontos_de_risco(conn))


def test_faixas__answer_of_each_interval_is_the_truth_at_its_middle(
    conn: Conn, territorio: Territorio
) -> None:
    for f in _faixas(conn):
        meio = _um(conn, (f["faixa"] + 0.5) / ESCALA, (f["x_inicio"] + f["x_fim"]) / 2)
        assert meio is not None and (meio[0], meio[1]) == (f["unidade_civica_id"], f["nivel"])


def test_faixas__irregular_polygons_vertices_and_edges(conn: Conn) -> None:
    """Star-shaped municípios and bairros (slanted edges crossing many bands, holes)."""
    rnd = random.Random(2026)
    brasil = inserir_uc(conn, 7, "País", poligono(quadrado(-10, -10, 10, 10)))
    aneis = []
    for k in range(6):
        cx, cy = -6 + 4 * (k % 3), -3 + 6 * (k // 3)
        externo = _estrela(cx, cy, 2.2, 40, rnd)
        buraco = [
            (cx + 0.1, cy + 0.1),
            (cx + 0.1, cy + 0.4),
            (cx + 0.4, cy + 0.4),
            (cx + 0.1, cy + 0.1),
        ]
        mun = inserir_uc(conn, 4, f"Estrela {k}", poligono(externo, buraco), brasil)
        inserir_uc(conn, 2, f"Bairro {k}", poligono(_estrela(cx, cy, 0.8, 12, rnd)), mun)
        aneis.append(externo)
    assert _faixas(conn) and _pendentes(conn) == 0

    pontos = [(rnd.uniform(-6, 6), rnd.uniform(-9, 9)) for _ in range(600)]
    for anel in aneis:
        for (x0, y0), (x1, y1) in itertools.pairwise(anel):
            pontos.append((y0, x0))  # the vertex
            t = rnd.random()
            pontos.append((round(y0 + t * (y1 - y0), 5), round(x0 + t * (x1 - x0), 5)))
    assert_concordam(conn, pontos + _pontos_de_risco(conn))


def test_faixas__a_band_of_more_intervals_than_a_row_holds(conn: Conn) -> None:
    """150 bairros side by side as thin strips: every band they cross holds ~150 clean
    intervals, stored as runs in several rows of d2.mirror_faixas; the answer at every
    run's first and last interval, at the limits between runs and inside each strip is
    the plain predicate's."""
    brasil = inserir_uc(conn, 7, "País", poligono(quadrado(-10, -10, 10, 10)))
    mun = inserir_uc(conn, 4, "Listrado", poligono(quadrado(-2, -1, 2, 1)), brasil)
    for k in range(150):
        x0 = round(-1.5 + k * 0.02, 5)
        inserir_uc(conn, 2, f"Faixa {k}", poligono(quadrado(x0, -0.5, x0 + 0.01, 0.5)), mun,
                   sincronizar=False)  # fmt: skip
    sincronizar_mirror(conn)
    linhas = conn.execute(
        "SELECT faixa, count(*) AS n, max(cardinality(unidades)) AS maior "
        "FROM d2.mirror_faixas GROUP BY faixa ORDER BY n DESC LIMIT 1"
    ).fetchone()
    assert linhas is not None and linhas["n"] >= 3 and linhas["maior"] == 64
    rnd = random.Random(7)
    pontos = [(rnd.uniform(-0.6, 0.6), rnd.uniform(-1.6, 1.6)) for _ in range(1500)]
    assert_concordam(conn, pontos + _pontos_de_risco(conn, amostra=2000))


def _pontos_nas_lacunas(conn: Conn, por_lacuna: int = 3) -> list[tuple[float, float]]:
    """Points in the gaps between consecutive intervals of each band (where the row's list
    of pieces answers): its two ends exactly and a few inside, on the band's bottom edge,
    its middle and just below its top."""
    rnd = random.Random(11)
    pontos = []
    faixas = _faixas(conn)
    for a, b in itertools.pairwise(faixas):
        if a["faixa"] != b["faixa"]:
            continue
        base = a["faixa"] / ESCALA
        xs = [a["x_fim"], b["x_inicio"]]
        xs += [round(rnd.uniform(a["x_fim"], b["x_inicio"]), 5) for _ in range(por_lacuna)]
        for x in xs:
            for y in (base, base + 0.5 / ESCALA, round(base + 0.99 / ESCALA, 5)):
                pontos.append((y, x))
    return pontos


def test_faixas__gaps_answered_from_the_row_agree_with_the_pieces(conn: Conn) -> None:
    """The pieces a gap lists answer its points as the plain predicate does: municípios
    sharing slanted borders, bairros across them, a community bairro over an official one
    (the official wins), a bairro over two municípios, a hole."""
    rnd = random.Random(35)
    brasil = inserir_uc(conn, 7, "País", poligono(quadrado(-10, -10, 10, 10)))
    meio = [(0.0, -2.0), (0.3, -1.0), (-0.2, 0.0), (0.25, 1.0), (0.0, 2.0)]
    oeste = [(-2.0, -2.0), *meio, (-2.0, 2.0), (-2.0, -2.0)]
    leste = [*meio, (2.0, 2.0), (2.0, -2.0), (0.0, -2.0)]
    buraco = [(1.0, 0.5), (1.0, 0.7), (1.3, 0.7), (1.0, 0.5)]
    mun_o = inserir_uc(conn, 4, "Oeste", poligono(oeste), brasil)
    mun_l = inserir_uc(conn, 4, "Leste", poligono(leste, buraco), brasil)
    inserir_uc(conn, 2, "Oficial", poligono(_estrela(-0.1, 0.0, 0.6, 14, rnd)), mun_o)
    inserir_uc(conn, 2, "Comunitário", poligono(_estrela(0.0, 0.1, 0.7, 11, rnd)), mun_o,
               fonte="comunitario")  # fmt: skip
    inserir_uc(conn, 2, "Sobre dois", poligono(quadrado(-0.4, -1.5, 0.6, -1.2)), mun_l)
    linhas = conn.execute(
        "SELECT count(*) AS n FROM d2.mirror_faixas WHERE cardinality(pedacos) > 0"
    ).fetchone()
    assert linhas is not None and linhas["n"] > 0
    assert_concordam(conn, _pontos_nas_lacunas(conn) + _pontos_de_risco(conn))


def test_faixas__follow_updates_deletes_and_truncate(conn: Conn, territorio: Territorio) -> None:
    # Move município B's western border from -45 to -44: the strip between now belongs to
    # nobody at level 4 (UF answers there).
    conn.execute(
        "UPDATE core.uc_polygons SET geometria = %s::jsonb WHERE unidade_civica_id = %s",
        [psycopg.types.json.Jsonb(poligono(quadrado(-44, -30, -40, -25))), territorio.mun_b],
    )
    sincronizar_mirror(conn)
    assert _pendentes(conn) == 0
    de_b = [f for f in _faixas(conn) if f["unidade_civica_id"] == territorio.mun_b]
    assert de_b and min(f["x_inicio"] for f in de_b) > -44.0 - 1e-6
    faixa = [(-27.3, -44.5), (-27.3, -43.5), (-25.0, -44.0), (-30.0, -44.0)]
    assert_concordam(conn, faixa + _pontos_de_risco(conn))
    assert resolver_batch(conn, [(-27.3, -44.5)])[1][1] == 5

    conn.execute(
        "DELETE FROM core.uc_polygons WHERE unidade_civica_id = %s", [territorio.bairro_a1]
    )
    sincronizar_mirror(conn)
    assert not [f for f in _faixas(conn) if f["unidade_civica_id"] == territorio.bairro_a1]
    assert_concordam(conn, [(-27.3, -48.0), (-27.3, -47.5), *_pontos_de_risco(conn)])

    conn.execute("TRUNCATE core.uc_polygons")
    sincronizar_mirror(conn)
    assert _faixas(conn) == [] and _pendentes(conn) == 0
    assert resolver_batch(conn, [(-27.3, -48.0)]) == {}


def test_faixas__levels_above_4_build_nothing(conn: Conn) -> None:
    inserir_uc(conn, 7, "País", poligono(quadrado(-10, -10, 10, 10)))
    inserir_uc(conn, 5, "UF", poligono(quadrado(-5, -5, 5, 5)))
    assert _faixas(conn) == [] and _pendentes(conn) == 0
    assert_concordam(conn, [(0.0, 0.0), (7.0, 7.0), (5.0, 0.0)])


def test_faixas__an_uncommitted_change_is_invisible_and_a_rollback_restores(
    conn: Conn, db_url: str, territorio: Territorio
) -> None:
    antes = _faixas(conn)
    with psycopg.connect(db_url) as outra:
        outra.execute("DELETE FROM core.uc_polygons WHERE unidade_civica_id = %s",
                      [territorio.mun_b])  # fmt: skip
        assert _faixas(conn) == antes  # not committed: the worker still sees the old ones
        outra.rollback()
    assert _faixas(conn) == antes


def test_faixas__rebuild_and_missing_intervals_are_only_slower(
    conn: Conn, territorio: Territorio
) -> None:
    pontos = [(-27.3, -48.0), (-27.3, -42.0), (-22.0, -42.0), (-15.0, -35.0), (0.0, 0.0)]
    esperado = resolver_batch(conn, pontos)
    conn.execute("DELETE FROM d2.mirror_faixas")
    assert resolver_batch(conn, pontos) == esperado  # no intervals: the GIST tiers answer
    mirror.reconstruir(conn)
    assert _faixas(conn) and _pendentes(conn) == 0
    assert resolver_batch(conn, pontos) == esperado


def test_faixas__an_id_made_up_never_appears(conn: Conn, territorio: Territorio) -> None:
    ucs = {r["unidade_civica_id"] for r in conn.execute(
        "SELECT unidade_civica_id FROM core.uc_polygons WHERE nivel <= 4")}  # fmt: skip
    assert {f["unidade_civica_id"] for f in _faixas(conn)} <= ucs
    assert uuid.UUID(int=0) not in ucs


def test_faixas__a_writer_builds_nothing_and_the_applier_builds_once(conn: Conn) -> None:
    with conn.transaction():
        for i in range(3):
            inserir_uc(conn, 4, f"M{i}", poligono(quadrado(i, 0, i + 1, 1)))
        # The writer's transaction only recorded its changes.
        assert _faixas(conn) == [] and _pendentes(conn) == 0
        assert conn.execute("SELECT count(*) AS n FROM d2.mirror_uc").fetchone() == {"n": 0}
    assert _faixas(conn) == []
    sincronizar_mirror(conn)
    assert _faixas(conn) and _pendentes(conn) == 0
    assert_concordam(conn, [(0.5, 0.5), (0.5, 1.5), (0.5, 3.5), (0.5, 1.0)])
