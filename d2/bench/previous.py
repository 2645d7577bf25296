"""Another commit's d2 beside this one, for benchmarks that compare a change with the code
before it in the same run: the commit checked out as a git worktree in a temporary
folder (removed afterwards), and its worker run as a process with that tree first on
PYTHONPATH and this interpreter, against a database this run prepared.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from d2 import errors

# The checkout this d2 runs from (a benchmark compares it with another of its commits).
RAIZ = Path(__file__).resolve().parents[2]


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
