"""The pre-commit hook (CONTRIBUTING.md): scripts/install-hooks.sh writes a git hook that
runs scripts/check.sh from the top of the work tree and stops the commit on a finding,
and never replaces a hook it did not write; .pre-commit-config.yaml, the same checks for
pre-commit, runs exactly scripts/check.sh's commands.

The hook is tried in a throw-away repository (hooks are shared by every work tree of a
clone, so installing it here would change the developer's own), where scripts/check.sh
is a stand-in that records where it ran and exits as told: the real one lints this
repository, which CI runs on its own."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

RAIZ = Path(__file__).resolve().parents[2]

CHECK = """#!/bin/sh
pwd >> "$(dirname "$0")/../ran"
exit "$(cat "$(dirname "$0")/../check-exit")"
"""


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
    }
    return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    (tmp_path / "scripts").mkdir()
    shutil.copy(RAIZ / "scripts" / "install-hooks.sh", tmp_path / "scripts")
    (tmp_path / "scripts" / "check.sh").write_text(CHECK)
    (tmp_path / "scripts" / "check.sh").chmod(0o755)
    (tmp_path / "check-exit").write_text("0\n")
    (tmp_path / "sub").mkdir()
    assert _git(tmp_path, "init", "-q").returncode == 0
    return tmp_path


def _instalar(repo: Path) -> subprocess.CompletedProcess[str]:
    script = repo / "scripts" / "install-hooks.sh"
    return subprocess.run([str(script)], cwd=repo / "sub", capture_output=True, text=True)


def _commit(repo: Path, nome: str) -> subprocess.CompletedProcess[str]:
    (repo / "sub" / nome).write_text("x\n")
    _git(repo, "add", "-A")
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", nome],
        cwd=repo / "sub",  # from a subfolder: the hook still checks from the top
        env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"},
        capture_output=True,
        text=True,
    )


def test_install_hooks__a_commit_runs_the_checks_and_stops_on_a_finding(repo: Path) -> None:
    assert _instalar(repo).returncode == 0
    (repo / "check-exit").write_text("1\n")
    assert _commit(repo, "a").returncode != 0
    assert _git(repo, "rev-list", "--all").stdout == ""  # nothing committed
    (repo / "check-exit").write_text("0\n")
    assert _commit(repo, "b").returncode == 0
    assert len(_git(repo, "rev-list", "--all").stdout.split()) == 1
    # Ran twice, from the top of the work tree, whatever folder the commit came from.
    assert (repo / "ran").read_text().split() == [str(repo)] * 2
    # Running it again rewrites its own hook.
    assert _instalar(repo).returncode == 0


def test_install_hooks__a_hook_it_did_not_write_is_left_alone(repo: Path) -> None:
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho mine\n")
    saida = _instalar(repo)
    assert saida.returncode == 1
    assert saida.stderr.strip() == (
        f"install-hooks: {hook.relative_to(repo)} exists and was not written by this script;"
        " move it away first"
    )
    assert hook.read_text() == "#!/bin/sh\necho mine\n"


def test_install_hooks__pre_commit_runs_what_check_sh_runs() -> None:
    entradas = re.findall(r"^\s+entry: (.+)$", (RAIZ / ".pre-commit-config.yaml").read_text(), re.M)
    comandos = [
        linha
        for linha in (RAIZ / "scripts" / "check.sh").read_text().splitlines()
        if linha.startswith(".venv/bin/")
    ]
    assert len(comandos) == 3
    assert entradas == comandos
    assert "repo: local" in (RAIZ / ".pre-commit-config.yaml").read_text()
