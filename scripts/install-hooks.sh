#!/usr/bin/env bash
# Installs the git pre-commit hook: every `git commit` first runs scripts/check.sh (ruff
# check, ruff format --check, mypy) and stops on what it finds (`git commit --no-verify`
# skips it). It runs the tools scripts/setup.sh put in .venv: nothing is downloaded, and
# nothing is added to the dependencies. It never replaces a pre-commit hook it did not
# write. With pre-commit installed, `pre-commit install` runs the same checks from
# .pre-commit-config.yaml instead.
set -eu
cd "$(dirname "$0")/.."
hook="$(git rev-parse --git-path hooks/pre-commit)"
mark="# Written by D-2's scripts/install-hooks.sh."
if [ -e "$hook" ] && ! grep -qxF "$mark" "$hook"; then
    echo "install-hooks: $hook exists and was not written by this script; move it away first" >&2
    exit 1
fi
mkdir -p "$(dirname "$hook")"
cat >"$hook" <<HOOK
#!/bin/sh
$mark
# The checks a reviewer runs, before each commit (git commit --no-verify skips them).
cd "\$(git rev-parse --show-toplevel)" && exec scripts/check.sh
HOOK
chmod +x "$hook"
echo "install-hooks: $hook runs scripts/check.sh before each commit" >&2
