"""Coordinates and the territory resolver: validation, the rounding rule, SQL calls."""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from psycopg.rows import tuple_row

from d2 import config, db, errors

_QUANTUM = Decimal("0.00001")


@dataclass(frozen=True)
class Resolucao:
    """The smallest UC containing a point, its level and its chain (that UC first).

    The ids are uuids in PostgreSQL's text form (lowercase, hyphenated, as str(UUID)
    prints them): they travel on as JSON, and a batch would otherwise build and print
    again some five uuid objects per point.
    """

    unidade_civica_id: str
    nivel_minimo_resolvido: int
    cadeia_ucs: tuple[str, ...]
    distancia_m: float | None = None
    """None when a polygon holds the point; else the near rule answered, the unit lying
    this many metres away (d2.resolver_proximo)."""

    def as_json(self) -> dict[str, Any]:
        return {
            "unidade_civica_id": self.unidade_civica_id,
            "nivel_minimo_resolvido": self.nivel_minimo_resolvido,
            "cadeia_ucs": list(self.cadeia_ucs),
        }


@dataclass(frozen=True)
class NearRule:
    """The near rule's distances (D2_REVISAO_DISTANCIA_M, D2_REVISAO_MARGEM_M): a point in
    no polygon within limite_m metres of exactly one município, and no other within
    limite_m + margem_m, is answered there (docs/design.md, decision 12)."""

    limite_m: float = 100.0
    margem_m: float = 500.0

    @property
    def ativa(self) -> bool:
        return self.limite_m > 0

    @property
    def alcance_graus(self) -> float:
        """Its reach (limite_m + margem_m) in degrees, enough for both axes anywhere in
        Brazil (a degree of longitude is shortest at its southern tip, 34° S); 0 when off."""
        if not self.ativa:
            return 0.0
        return (self.limite_m + self.margem_m) / (110_000 * math.cos(math.radians(35)))

    @classmethod
    def de(cls, settings: config.Settings) -> NearRule:
        """The rule a config.Settings sets."""
        return cls(settings.revisao_distancia_m, settings.revisao_margem_m)


def arredondar(valor: float) -> float:
    """Round to 5 decimals exactly as d2.arredondar_coordenada does in SQL.

    PostgreSQL turns a float8 into numeric through its 15-significant-digit decimal form
    and rounds half away from zero; doing the same here keeps the cache key and the SQL
    resolver in agreement on every input (docs/design.md, decision 2).
    """
    decimal = Decimal(format(valor, ".15g")).quantize(_QUANTUM, rounding=ROUND_HALF_UP)
    return float(decimal)


def coordenada(valor: object, nome: str, limite: float) -> float:
    """A JSON value as a coordinate in [-limite, limite]; InvalidInput says why not."""
    if isinstance(valor, bool) or not isinstance(valor, int | float):
        raise errors.InvalidInput(f"{nome} must be a number, got {type(valor).__name__}")
    try:
        numero = float(valor)
    except OverflowError:
        raise errors.InvalidInput(f"{nome} is too large to be a coordinate") from None
    # The rule, not the value: these texts reach ERROR logs, and an out-of-range pair may
    # still place a citizen (one half valid, a misplaced decimal point).
    if not math.isfinite(numero):
        raise errors.InvalidInput(f"{nome} must be finite")
    if not -limite <= numero <= limite:
        raise errors.InvalidInput(f"{nome} must be between -{limite:g} and {limite:g}")
    return numero


def parse_cli_coordinate(text: str, nome: str, limite: float) -> float:
    """A coordinate typed by a person; InvalidInput with a one-line reason."""
    try:
        numero = float(text.strip().replace(",", "."))
    except ValueError:
        raise errors.InvalidInput(f"{nome} must be a number, got {text!r}") from None
    return coordenada(numero, nome, limite)


def _row(row: dict[str, Any]) -> Resolucao:
    return Resolucao(
        unidade_civica_id=row["unidade_civica_id"],
        nivel_minimo_resolvido=row["nivel_minimo_resolvido"],
        cadeia_ucs=tuple(row["cadeia_ucs"] or ()),
    )


def resolver(conn: db.Connection, lat: float, lng: float) -> Resolucao | None:
    """d2.resolver_territorio for one point."""
    with db.mapped_errors():
        row = conn.execute(db.q("resolve_one"), {"lat": lat, "lng": lng}).fetchone()
    return _row(row) if row else None


def resolver_muitos(
    conn: db.Connection, pontos: list[tuple[float, float]]
) -> list[Resolucao | None]:
    """d2.resolver_territorios for many (lat, lng) points, in one statement, in order."""
    if not pontos:
        return []
    # float(): the arrays go as binary float8, which only a float becomes.
    lats = [float(p[0]) for p in pontos]
    lngs = [float(p[1]) for p in pontos]
    with db.mapped_errors(), conn.cursor(row_factory=tuple_row) as cur:
        rows = cur.execute(db.q("resolve_many"), {"lats": lats, "lngs": lngs}).fetchall()
    resultado: list[Resolucao | None] = [None] * len(pontos)
    for ordem, unidade_civica_id, nivel, cadeia in rows:
        resultado[ordem - 1] = Resolucao(
            unidade_civica_id, nivel, tuple(cadeia.split(",")) if cadeia else ()
        )
    return resultado


def resolver_proximos(
    conn: db.Connection, pontos: list[tuple[float, float]], regra: NearRule
) -> list[Resolucao | None]:
    """d2.resolver_proximos for many (lat, lng) points that no polygon holds, in one
    statement, in order: the near rule's answer, or None (the point stays in review)."""
    if not pontos or not regra.ativa:
        return [None] * len(pontos)
    with db.mapped_errors(), conn.cursor(row_factory=tuple_row) as cur:
        rows = cur.execute(
            db.q("resolve_near"),
            {
                "lats": [float(p[0]) for p in pontos],
                "lngs": [float(p[1]) for p in pontos],
                "limite": regra.limite_m,
                "margem": regra.margem_m,
            },
        ).fetchall()
    resultado: list[Resolucao | None] = [None] * len(pontos)
    for ordem, unidade_civica_id, nivel, cadeia, distancia in rows:
        resultado[ordem - 1] = Resolucao(
            unidade_civica_id, nivel, tuple(cadeia.split(",")) if cadeia else (), distancia
        )
    return resultado


def resolver_com_regra(
    conn: db.Connection, pontos: list[tuple[float, float]], regra: NearRule
) -> list[Resolucao | None]:
    """Each point's answer: the polygon holding it (d2.resolver_territorios), else the
    near rule's (d2.resolver_proximos, one more statement only when some point lies in
    no polygon), else None. The handler and the review queue answer points this one way,
    batch or not (docs/design.md, decision 12)."""
    achados = resolver_muitos(conn, pontos)
    fora = [i for i, achado in enumerate(achados) if achado is None]
    if fora and regra.ativa:
        perto = resolver_proximos(conn, [pontos[i] for i in fora], regra)
        for i, achado in zip(fora, perto, strict=True):
            achados[i] = achado
    return achados
