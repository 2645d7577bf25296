"""Another commit's d2 beside this one, for benchmarks that compare a change with the code
before it in the same run: the commit checked out as a git worktree in a temporary
folder (removed afterwards), and its `d2` commands run as processes with that tree first
on PYTHONPATH and this interpreter, against databases this run prepared.

d2/bench/geocode_quality_corpora.py drains the corpora with the previous commit's worker
(worktree, drenar); d2/bench/process.py drains a backlog with each side's worker as a
process and alternates their runs (checkout gives a side as a Code, alternar orders the
runs), so the machine's drift falls on both sides alike.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from d2 import errors

# The checkout this d2 runs from (a benchmark compares it with another of its commits).
RAIZ = Path(__file__).resolve().parents[2]
# The commit before the address path's work, `d2 bench process`'s default
# (docs/notes/drain.md, "The worker's start").
PADRAO = "81cd24f"

_T = TypeVar("_T")


def disponivel() -> bool:
    """Whether this d2 runs from a git checkout another commit can be taken from."""
    return (RAIZ / ".git").exists()


@contextlib.contextmanager
def worktree(commit: str) -> Iterator[Path]:
    """The commit checked out (detached) in a temporary folder; removed on exit."""
    if not disponivel():
        raise errors.D2Error(f"{RAIZ} is not a git checkout: no other commit to compare with")
    with tempfile.TemporaryDirectory(prefix="d2-previous-") as tmp:
        pasta = Path(tmp) / "tree"
        feito = subprocess.run(
            ["git", "-C", str(RAIZ), "worktree", "add", "--detach", "--quiet", str(pasta), commit],
            capture_output=True,
            text=True,
            check=False,
        )
        if feito.returncode != 0:
            ultima = (feito.stderr.strip().splitlines() or ["no output"])[-1]
            raise errors.D2Error(f"cannot check out {commit}: {ultima}")
        try:
            yield pasta
        finally:
            subprocess.run(
                ["git", "-C", str(RAIZ), "worktree", "remove", "--force", str(pasta)],
                capture_output=True,
                check=False,
            )


def descrever(commit: str) -> str:
    """The commit's short hash and subject, for the figures' lines."""
    feito = subprocess.run(
        ["git", "-C", str(RAIZ), "log", "-1", "--format=%h %s", commit],
        capture_output=True,
        text=True,
        check=False,
    )
    return feito.stdout.strip()[:100] or commit


def drenar(arvore: Path, url: str, env: dict[str, str]) -> float:
    """That tree's `d2 worker --drain` against the database at url, as a process; the
    seconds it took, start included. A failed drain is an error, with its last line."""
    ambiente = os.environ | env | {"DATABASE_URL": url, "PYTHONPATH": str(arvore)}
    programa = "import sys; from d2.cli import main; sys.exit(main())"
    inicio = time.perf_counter()
    feito = subprocess.run(
        [sys.executable, "-c", programa, "worker", "--drain", "--json"],
        env=ambiente,
        cwd=arvore,
        capture_output=True,
        text=True,
        check=False,
    )
    segundos = time.perf_counter() - inicio
    if feito.returncode != 0:
        ultima = (feito.stderr.strip().splitlines() or ["no output"])[-1]
        raise errors.D2Error(f"the previous commit's worker failed: {ultima[:300]}")
    return segundos


@dataclass(frozen=True)
class Code:
    """One side of a comparison: a tree of D-2's source and the commit it is."""

    label: str  # "this checkout (…)", or the other commit's short hash
    commit: str
    root: Path

    def comando(self, *args: str) -> list[str]:
        """`d2 ARGS` of this code, as a process (run it with `ambiente`, cwd=root)."""
        return [sys.executable, "-m", "d2.cli", *args]

    def ambiente(self, home: Path, **variaveis: str) -> dict[str, str]:
        """The environment of a process of this code: its source first on PYTHONPATH
        (before the installed d2), D2_HOME in home (so nothing it writes lands in either
        checkout), plus variaveis."""
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env.update(PYTHONPATH=str(self.root), D2_HOME=str(home), **variaveis)
        return env

    def executar(
        self, *args: str, home: Path, timeout_s: float = 3600, **variaveis: str
    ) -> subprocess.CompletedProcess[str]:
        """Run `d2 ARGS` of this code to its end; a failure raises with its last lines."""
        feito = subprocess.run(
            self.comando(*args),
            cwd=self.root,
            env=self.ambiente(home, **variaveis),
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
        if feito.returncode != 0:
            cauda = " | ".join(feito.stderr.strip().splitlines()[-3:])
            raise errors.D2Error(f"`d2 {' '.join(args)}` of {self.label} failed: {cauda}")
        return feito


def _git(*args: str) -> str:
    feito = subprocess.run(["git", "-C", str(RAIZ), *args], capture_output=True, text=True)
    if feito.returncode != 0:
        linha = (feito.stderr.strip().splitlines() or ["no output"])[-1]
        raise errors.D2Error(f"git {args[0]}: {linha}")
    return feito.stdout.strip()


def este_checkout() -> Code:
    """The code this module runs from; its label says when it has uncommitted changes."""
    if not disponivel():
        raise errors.D2Error(f"{RAIZ} is not a git checkout: no other commit to compare with")
    commit = _git("rev-parse", "--short", "HEAD")
    sujo = bool(_git("status", "--porcelain", "--untracked-files=no", "--", "d2", "sql"))
    return Code(f"this checkout ({commit}{', modified' if sujo else ''})", commit, RAIZ)


@contextlib.contextmanager
def checkout(commit: str) -> Iterator[Code]:
    """commit as a side of a comparison (its worktree, removed afterwards). Its bytecode
    is left to Python, as this checkout's is: a first run writes it, unless
    PYTHONDONTWRITEBYTECODE is set, as on the machine of docs/notes/, where both sides
    compile their modules at every start."""
    with worktree(commit) as arvore:
        curto = _git("-C", str(arvore), "rev-parse", "--short", "HEAD")
        yield Code(curto, curto, arvore)


def alternar(
    lados: Sequence[Code], rounds: int, medir: Callable[[Code], _T]
) -> list[tuple[Code, _T]]:
    """medir(side) for every side, `rounds` times, the order reversed every other round
    (A B, B A, A B…): each side runs first as often as the other, within one."""
    feitas: list[tuple[Code, _T]] = []
    for indice in range(rounds):
        for lado in lados if indice % 2 == 0 else list(reversed(lados)):
            feitas.append((lado, medir(lado)))
    return feitas
