"""d2/bench/previous.py: another commit beside this checkout. Its tree comes and goes as a
git worktree of its own, its `d2` runs with its own code first, and the runs of the two
sides alternate so that each goes first as often as the other."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from d2 import errors
from d2.bench import previous


def _worktrees() -> str:
    return subprocess.run(
        ["git", "-C", str(previous.RAIZ), "worktree", "list", "--porcelain"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


@pytest.fixture
def git_checkout() -> None:
    if not (previous.RAIZ / ".git").exists():
        pytest.skip("not a git checkout")


def test_baseline__a_commit_comes_as_a_worktree_and_goes(
    git_checkout: None, tmp_path: Path
) -> None:
    with previous.checkout("HEAD") as antigo:
        assert antigo.root != previous.RAIZ and (antigo.root / "d2" / "cli").is_dir()
        assert str(antigo.root) in _worktrees()
        assert "worker" in antigo.executar("--help", home=tmp_path).stdout
        # Its own code is imported, before the installed d2 (this checkout's), wherever
        # the process runs.
        onde = subprocess.run(
            [sys.executable, "-c", "import d2; print(d2.__file__)"],
            cwd=tmp_path,
            env=antigo.ambiente(tmp_path),
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert onde.startswith(str(antigo.root))
    assert not antigo.root.exists()
    assert str(antigo.root) not in _worktrees()


def test_baseline__an_unknown_commit_is_one_clear_line(git_checkout: None) -> None:
    with pytest.raises(errors.D2Error, match="cannot check out 0000"), previous.checkout("0" * 40):
        pass


def test_baseline__runs_alternate_which_side_goes_first() -> None:
    a = previous.Code("a", "a", Path("/a"))
    b = previous.Code("b", "b", Path("/b"))
    ordem = [lado.label for lado, _ in previous.alternar([a, b], 4, lambda lado: None)]
    assert ordem == ["a", "b", "b", "a", "a", "b", "b", "a"]
