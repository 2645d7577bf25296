"""The chaos suite's report: one row per scenario, printed at the end of the session and
written to chaos-report.txt in pytest's base temporary folder (or D2_CHAOS_REPORT).

D2_CHAOS_FULL=1 runs the long form (thousands of events, >= 50 kill/restart cycles);
without it, a short form for CI.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.chaos import processes

FULL = os.environ.get("D2_CHAOS_FULL", "") not in ("", "0")


@dataclass
class Linha:
    cenario: str
    repeticoes: int
    eventos: int
    perdidos: int
    duplicados: int
    recuperacoes_s: list[float] = field(default_factory=list)

    def celulas(self) -> list[str]:
        rec = self.recuperacoes_s
        tempo = f"{statistics.median(rec):.2f} / {max(rec):.2f}" if rec else "-"
        return [
            self.cenario,
            str(self.repeticoes),
            str(self.eventos),
            str(self.perdidos),
            str(self.duplicados),
            tempo,
        ]


@dataclass
class Relatorio:
    caminho: Path
    linhas: list[Linha] = field(default_factory=list)

    def adicionar(self, linha: Linha) -> None:
        self.linhas.append(linha)
        self.caminho.write_text(self.tabela() + "\n", encoding="utf-8")

    def tabela(self) -> str:
        titulo = [
            "scenario",
            "repetitions",
            "events",
            "lost",
            "duplicated",
            "recovery s (median / max)",
        ]
        linhas = [titulo] + [linha.celulas() for linha in self.linhas]
        larguras = [max(len(linha[i]) for linha in linhas) for i in range(len(titulo))]
        texto = [
            "  ".join(
                c.ljust(w) if i == 0 else c.rjust(w)
                for i, (c, w) in enumerate(zip(linha, larguras, strict=True))
            )
            for linha in linhas
        ]
        texto.insert(1, "  ".join("-" * w for w in larguras))
        modo = "full (D2_CHAOS_FULL=1)" if FULL else "short (CI)"
        ciclos = sum(
            linha.repeticoes
            for linha in self.linhas
            if linha.cenario in ("sigkill", "pg_restart", "pg_terminate_backend")
        )
        rodape = f"mode: {modo}; kill/restart cycles: {ciclos}"
        return "\n".join([*texto, rodape])


_RELATORIO: list[Relatorio] = []


@pytest.fixture(autouse=True)
def sem_workers_orfaos() -> Iterator[None]:
    """No worker process outlives its test."""
    yield
    processes.matar_restantes()


@pytest.fixture(scope="session")
def relatorio(tmp_path_factory: pytest.TempPathFactory) -> Relatorio:
    destino = os.environ.get("D2_CHAOS_REPORT")
    caminho = (
        Path(destino) if destino else tmp_path_factory.getbasetemp() / "chaos-report.txt"
    ).absolute()
    novo = Relatorio(caminho)
    _RELATORIO.append(novo)
    return novo


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for rel in _RELATORIO:
        if rel.linhas:
            terminalreporter.section("chaos report")
            terminalreporter.write_line(rel.tabela())
            terminalreporter.write_line(f"written to {rel.caminho}")
