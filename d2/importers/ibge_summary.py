"""What an IBGE import did, by level (layer) and by source file: the counts, the
polygons it repaired or dropped for people to check, and its text and JSON forms."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from d2.importers import ibge_read
from d2.terminal import visivel
from d2.territorio import mirror


@dataclass
class Count:
    read: int = 0
    inserted: int = 0
    updated: int = 0
    unchanged: int = 0
    repaired: int = 0
    dropped: int = 0
    orphans: int = 0


@dataclass(frozen=True)
class Occurrence:
    """One repaired or dropped polygon, for people to check."""

    codigo: str
    nome: str
    motivo: str


@dataclass
class LayerSummary:
    camada: str
    nivel: int
    total: Count = field(default_factory=Count)
    por_arquivo: dict[str, Count] = field(default_factory=dict)
    fontes: list[ibge_read.Source] = field(default_factory=list)
    repaired: list[Occurrence] = field(default_factory=list)
    dropped: list[Occurrence] = field(default_factory=list)
    orphan_codes: list[str] = field(default_factory=list)
    simplificacao: str = ""


@dataclass
class Summary:
    """What a run did, by level (layer) and by source file."""

    camadas: dict[str, LayerSummary] = field(default_factory=dict)
    fonte: str = "ibge"
    segundos: float = 0.0
    mirror: mirror.Applied | None = None
    eventos: dict[str, int] = field(default_factory=dict)
    """uc.poligono_* events published with the changes (replica.publicar_estado)."""

    def total(self) -> Count:
        soma = Count()
        for camada in self.camadas.values():
            for nome, valor in asdict(camada.total).items():
                setattr(soma, nome, getattr(soma, nome) + valor)
        return soma

    def as_json(self) -> dict[str, Any]:
        return {
            "fonte": self.fonte,
            "segundos": round(self.segundos, 2),
            "total": asdict(self.total()),
            "camadas": {nome: asdict(c) for nome, c in self.camadas.items()},
            "espelho": self.mirror.as_json() if self.mirror else None,
            "eventos": self.eventos,
        }

    def format_text(self) -> str:
        linhas = [f"IBGE import in {self.segundos:.1f} s"]
        cabecalho = ("", "read", "inserted", "updated", "unchanged", "repaired", "dropped")
        linhas.append("{:<26}{:>8}{:>10}{:>9}{:>11}{:>10}{:>9}{:>9}".format(*cabecalho, "orphans"))
        for nome, camada in self.camadas.items():
            linhas.append(_linha(f"{nome} (nível {camada.nivel})", camada.total))
            if len(camada.por_arquivo) > 1:
                for arquivo, contagem in camada.por_arquivo.items():
                    linhas.append(_linha(f"  {arquivo}", contagem))
        linhas.append(_linha("total", self.total()))
        if self.mirror is not None:
            e = self.mirror
            linhas.append(
                f"mirror: {e.changes} changes applied in {e.segundos:.1f} s, version {e.versao}"
            )
        for nome, camada in self.camadas.items():
            fontes = ", ".join(
                f"{f.arquivo} [{f.crs}{' → EPSG:4326' if f.transformado else ''}]"
                for f in camada.fontes
            )
            linhas.append(f"{nome}: {fontes}; simplification: {camada.simplificacao}")
            # Names as the files wrote them: a line feed in one must not forge a line.
            linhas += [
                f"  repaired {visivel(f'{o.codigo} {o.nome}: {o.motivo}')}" for o in camada.repaired
            ]
            linhas += [
                f"  DROPPED {visivel(f'{o.codigo} {o.nome}: {o.motivo}')}" for o in camada.dropped
            ]
            if camada.orphan_codes:
                amostra = ", ".join(camada.orphan_codes[:10])
                mais = len(camada.orphan_codes) - 10
                linhas.append(
                    f"  orphans (parent not in the database): {amostra}"
                    + (f" and {mais} more" if mais > 0 else "")
                )
        return "\n".join(linhas)


def _linha(rotulo: str, c: Count) -> str:
    return (
        f"{rotulo:<26}{c.read:>8}{c.inserted:>10}{c.updated:>9}{c.unchanged:>11}"
        f"{c.repaired:>10}{c.dropped:>9}{c.orphans:>9}"
    )
