"""Another commit of D-2 beside this checkout, in the same run: its code checked out as a
git worktree in a temporary folder (`git worktree add --detach`, removed afterwards),
its `d2` commands run as processes with this interpreter and its own code first on
PYTHONPATH, and the runs of both alternated so the machine's drift falls on both alike.

What is measured is the caller's: d2/bench/process.py drains a backlog with each commit's
`d2 worker --drain`; another benchmark compares another command the same way. Every
side's process gets a D2_HOME of its own (a temporary folder), so nothing it writes
lands in either checkout.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from d2 import errors

# The checkout this module runs from (where git finds the commits).
RAIZ = Path(__file__).resolve().parents[2]
# The commit before the address path's work (docs/performance.md, "The worker's start").
PADRAO = "81cd24f"

_T = TypeVar("_T")


@dataclass(frozen=True)
class Code:
    """One side of a comparison: a tree of D-2's source and the commit it is."""

    label: str  # "this checkout", or the baseline's short commit
    commit: str
    root: Path

    def comando(self, *args: str) -> list[str]:
        """`d2 ARGS` of this code, as a process (run it with `ambiente`, cwd=root)."""
        return [sys.executable, "-m", "d2.cli", *args]

    def ambiente(self, home: Path, **variaveis: str) -> dict[str, str]:
        """The environment of a process of this code: its source first on PYTHONPATH
        (before the installed d2), D2_HOME in home, plus variaveis."""
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
    try:
        feito = subprocess.run(
            ["git", "-C", str(RAIZ), *args], capture_output=True, text=True, check=False
        )
    except OSError as exc:
        raise errors.D2Error(f"git is needed to check out a baseline commit: {exc}") from exc
    if feito.returncode != 0:
        linha = (feito.stderr.strip().splitlines() or ["git failed"])[-1]
        raise errors.D2Error(f"git {args[0]}: {linha}")
    return feito.stdout.strip()


def este_checkout() -> Code:
    """The code this module runs from; its label says when it has uncommitted changes."""
    commit = _git("rev-parse", "--short", "HEAD")
    sujo = bool(_git("status", "--porcelain", "--untracked-files=no", "--", "d2", "sql"))
    return Code(f"this checkout ({commit}{', modified' if sujo else ''})", commit, RAIZ)


@contextlib.contextmanager
def checkout(commit: str) -> Iterator[Code]:
    """commit's tree as a detached git worktree in a temporary folder, removed with its
    folder afterwards. Its bytecode is left to Python, as this checkout's is: a first
    run writes it (unless PYTHONDONTWRITEBYTECODE is set, as on the machine of
    docs/performance.md, where both sides compile their modules at every start)."""
    try:
        completo = _git("rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}")
    except errors.D2Error:
        raise errors.InvalidInput(f"no commit {commit!r} in the git of {RAIZ}") from None
    pasta = Path(tempfile.mkdtemp(prefix="d2-baseline-"))
    arvore = pasta / "src"
    _git("worktree", "add", "--detach", str(arvore), completo)
    try:
        yield Code(completo[:7], completo, arvore)
    finally:
        with contextlib.suppress(errors.D2Error):
            _git("worktree", "remove", "--force", str(arvore))
        shutil.rmtree(pasta, ignore_errors=True)
        with contextlib.suppress(errors.D2Error):
            _git("worktree", "prune")


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
