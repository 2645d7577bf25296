"""Hand-built territories for tests: squares of degrees, inserted into core.uc_polygons."""

from __future__ import annotations

import json
import uuid
from typing import Any

import psycopg
from shapely.geometry import shape

from d2.territorio import mirror

Ring = list[tuple[float, float]]


def quadrado(x0: float, y0: float, x1: float, y1: float) -> Ring:
    """A closed lon/lat ring, counter-clockwise."""
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]


def poligono(*aneis: Ring) -> dict[str, Any]:
    return {"type": "Polygon", "coordinates": [[list(p) for p in anel] for anel in aneis]}


def multipoligono(*poligonos: list[Ring]) -> dict[str, Any]:
    return {
        "type": "MultiPolygon",
        "coordinates": [[[list(p) for p in anel] for anel in aneis] for aneis in poligonos],
    }


def inserir_uc(
    conn: psycopg.Connection[Any],
    nivel: int,
    nome: str,
    geometria: dict[str, Any],
    parent: uuid.UUID | None = None,
    *,
    uc: uuid.UUID | None = None,
    fonte: str = "teste",
    sincronizar: bool = True,
) -> uuid.UUID:
    """Insert one UC polygon; returns its unidade_civica_id. On an autocommit connection
    the mirror then applies it (as the worker would at its next poll), unless told not."""
    uc = uc or uuid.uuid4()
    conn.execute(
        """
        INSERT INTO core.uc_polygons
            (id, unidade_civica_id, nivel, parent_uc_id, nome, geometria, fonte)
        VALUES (%(id)s, %(uc)s, %(nivel)s, %(parent)s, %(nome)s, %(geo)s::jsonb, %(fonte)s)
        """,
        {
            "id": uuid.uuid4(),
            "uc": uc,
            "nivel": nivel,
            "parent": parent,
            "nome": nome,
            "geo": json.dumps(geometria),
            "fonte": fonte,
        },
    )
    if sincronizar:
        sincronizar_mirror(conn)
    return uc


def sincronizar_mirror(conn: psycopg.Connection[Any]) -> None:
    """Apply what was written to core.uc_polygons to the mirror (autocommit only: inside
    a transaction the writes are not committed yet, and the caller syncs after it)."""
    if conn.autocommit and conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
        mirror.aplicar(conn)  # type: ignore[arg-type]


class Territorio:
    """Brasil ⊃ região ⊃ UF ⊃ {município A with bairros A1/A2, município B without bairros}.

    Coordinates (lng, lat), degrees:
      Brasil   [-50,-30]..[-30,-10]         região  [-50,-30]..[-30,-10]
      UF       [-50,-30]..[-40,-20]
      mun A    [-50,-30]..[-45,-25]         mun B   [-45,-30]..[-40,-25]  (shared border lng=-45)
      bairro A1 [-50,-30]..[-47.5,-25]      bairro A2 [-47.5,-30]..[-45,-25]
    """

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.brasil = inserir_uc(conn, 7, "Brasil", poligono(quadrado(-50, -30, -30, -10)))
        self.regiao = inserir_uc(
            conn, 6, "Região Teste", poligono(quadrado(-50, -30, -30, -10)), self.brasil
        )
        self.uf = inserir_uc(
            conn, 5, "UF Teste", poligono(quadrado(-50, -30, -40, -20)), self.regiao
        )
        self.mun_a = inserir_uc(
            conn, 4, "Município A", poligono(quadrado(-50, -30, -45, -25)), self.uf
        )
        self.mun_b = inserir_uc(
            conn, 4, "Município B", poligono(quadrado(-45, -30, -40, -25)), self.uf
        )
        self.bairro_a1 = inserir_uc(
            conn, 2, "Bairro A1", poligono(quadrado(-50, -30, -47.5, -25)), self.mun_a
        )
        self.bairro_a2 = inserir_uc(
            conn, 2, "Bairro A2", poligono(quadrado(-47.5, -30, -45, -25)), self.mun_a
        )

    @property
    def cadeia_a1(self) -> list[uuid.UUID]:
        """Bairro A1's chain, bairro to Brasil."""
        return [self.bairro_a1, self.mun_a, self.uf, self.regiao, self.brasil]


def resolver_ingenuo(
    conn: psycopg.Connection[Any], pontos: list[tuple[float, float]]
) -> dict[int, tuple[Any, ...]]:
    """The resolver's definition written the plainest way, as the oracle the resolver is
    held to: every piece of the mirror that holds the point (boundary-inclusive,
    coordinates rounded to 5 decimals), smallest nivel, official before community, then
    unidade_civica_id; the chain
    by the recursive d2.cadeia_ucs. No clean interval, no tier, no precomputed chain.
    Returns {1-based position: (unidade_civica_id, nivel, cadeia)} for points that resolve."""
    rows = conn.execute(
        """
        SELECT p.ordem::integer AS ordem, a.unidade_civica_id, a.nivel,
               d2.cadeia_ucs(a.unidade_civica_id) AS cadeia
        FROM unnest(%s::float8[], %s::float8[]) WITH ORDINALITY AS p (lat, lng, ordem)
        CROSS JOIN LATERAL (
            SELECT m.unidade_civica_id, m.nivel
            FROM d2.mirror_pieces m
            WHERE ST_Intersects(
                m.geom,
                ST_SetSRID(ST_MakePoint(round(p.lng::numeric, 5)::float8,
                                        round(p.lat::numeric, 5)::float8), 4326))
            ORDER BY m.nivel, m.prioridade, m.unidade_civica_id
            LIMIT 1
        ) a
        """,
        [[p[0] for p in pontos], [p[1] for p in pontos]],
    ).fetchall()
    return {r["ordem"]: (r["unidade_civica_id"], r["nivel"], r["cadeia"]) for r in rows}


def resolver_batch(
    conn: psycopg.Connection[Any], pontos: list[tuple[float, float]]
) -> dict[int, tuple[Any, ...]]:
    """d2.resolver_territorios over pontos: {1-based position: (unidade_civica_id, nivel,
    cadeia)} for the points that resolve."""
    rows = conn.execute(
        "SELECT * FROM d2.resolver_territorios(%s::float8[], %s::float8[])",
        [[p[0] for p in pontos], [p[1] for p in pontos]],
    ).fetchall()
    return {
        r["ordem"]: (r["unidade_civica_id"], r["nivel_minimo_resolvido"], r["cadeia_ucs"])
        for r in rows
    }


# A município of ~11 km by 11 km at latitude -22, its neighbour, and the chain above them:
# where the citizen-drawn polygons of the tests are drawn.
M = (-55.0, -22.1, -54.9, -22.0)
N = (-54.9, -22.1, -54.8, -22.0)
LADO = 0.01  # a drawn bairro: ~1 km², inside the bounds of level 2


class TerritorioDrawings:
    """País ⊃ região ⊃ UF ⊃ {município M with an IBGE bairro, município N}, all IBGE."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        pais = inserir_uc(conn, 7, "País", poligono(quadrado(-56, -23, -54, -21)), fonte="ibge")
        regiao = inserir_uc(conn, 6, "Região", poligono(quadrado(-56, -23, -54, -21)), pais)
        self.uf = inserir_uc(conn, 5, "UF", poligono(quadrado(-56, -23, -54, -21)), regiao)
        self.municipio = inserir_uc(
            conn, 4, "Município M", poligono(quadrado(*M)), self.uf, fonte="ibge"
        )
        self.vizinho = inserir_uc(
            conn, 4, "Município N", poligono(quadrado(*N)), self.uf, fonte="ibge"
        )
        self.bairro_ibge = inserir_uc(
            conn,
            2,
            "Bairro IBGE",
            poligono(quadrado(-54.99, -22.09, -54.98, -22.08)),
            self.municipio,
            fonte="ibge",
        )


def quadrado_em(x0: float, y0: float, lado: float = LADO) -> dict[str, Any]:
    return poligono(quadrado(x0, y0, x0 + lado, y0 + lado))


def mesma_forma(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Equal up to the 7 decimals (~1 cm) GeoJSON is written with."""
    return bool(shape(a).symmetric_difference(shape(b)).area < 1e-12)


def iou(a: dict[str, Any], b: dict[str, Any]) -> float:
    ga, gb = shape(a), shape(b)
    return float(ga.intersection(gb).area / ga.union(gb).area)


def micro_areas(
    conn: psycopg.Connection[Any], n: int, *, nome: str = "Micro-área", com_respostas: bool = False
) -> list[dict[str, Any]]:
    """n payloads of uc.poligono_adicionado for level-1 micro-areas a citizen could draw
    in the mirror's bairros (level 2): squares of 0.002° (~0.05 km²) under their bairro,
    well inside it, apart from each other and from every UC's interior point, so that
    each is a proposal the replica accepts. com_respostas: each centred on a stored answer
    of the bairro, so that it takes at least that one."""
    if com_respostas:
        candidatos = "SELECT ST_SetSRID(ST_MakePoint(r.coordenadas_lng, r.coordenadas_lat), 4326) AS p FROM d2.resolucoes_geo r WHERE r.nivel_minimo_resolvido = 2"  # noqa: E501
    else:
        candidatos = "SELECT (ST_Dump(ST_GeneratePoints(m.geom, 400, 11))).geom AS p FROM d2.mirror_uc m WHERE m.nivel = 2"  # noqa: E501
    linhas = conn.execute(
        f"SELECT b.unidade_civica_id AS pai, ST_X(c.p) AS x, ST_Y(c.p) AS y FROM ({candidatos}) c"
        " JOIN d2.mirror_uc b ON b.nivel = 2 AND ST_Contains(ST_Buffer(b.geom, -0.004), c.p)"
        " WHERE NOT EXISTS (SELECT 1 FROM d2.mirror_uc m"
        "   WHERE ST_DWithin(ST_PointOnSurface(m.geom), c.p, 0.004))"
        " ORDER BY ST_X(c.p), ST_Y(c.p)"
    ).fetchall()
    escolhidos: list[dict[str, Any]] = []
    for linha in linhas:
        if all(max(abs(linha["x"] - e["x"]), abs(linha["y"] - e["y"])) > 0.005 for e in escolhidos):
            escolhidos.append(linha)
    assert len(escolhidos) >= n, len(escolhidos)
    return [
        {
            "unidade_civica_id": str(uuid.uuid4()),
            "uc_polygon_id": str(uuid.uuid4()),
            "nivel": 1,
            "nome": f"{nome} {i}",
            "parent_uc_id": str(e["pai"]),
            "fonte": "comunitario",
            "geometria": poligono(
                quadrado(e["x"] - 0.001, e["y"] - 0.001, e["x"] + 0.001, e["y"] + 0.001)
            ),
        }
        for i, e in enumerate(escolhidos[:n])
    ]
