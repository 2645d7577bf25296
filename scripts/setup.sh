#!/usr/bin/env bash
# Installs what d2 needs on Debian/Ubuntu: PostgreSQL + PostGIS (system packages) and a
# virtualenv in .venv with d2 and its dev tools. Safe to run again: it skips what is done.
set -eu
cd "$(dirname "$0")/.."

need_apt=""
command -v runuser >/dev/null 2>&1 || need_apt="$need_apt util-linux"
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need_apt="$need_apt postgresql"
# postgresql-postgis picks the PostGIS build for the distribution's PostgreSQL.
ls /usr/share/postgresql/*/extension/postgis.control >/dev/null 2>&1 || need_apt="$need_apt postgresql-postgis"
ls /usr/share/postgresql/*/extension/unaccent.control >/dev/null 2>&1 || need_apt="$need_apt postgresql-contrib"
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need_apt="$need_apt python3-venv"
# Headless Chromium for the map's browser tests (script injection, drawing): without it
# they would skip, and CI would not try the attack.
command -v chromium >/dev/null 2>&1 || need_apt="$need_apt chromium"
# Nominatim's importer (d2 nominatim import, the tests' sample geocoder) runs osm2pgsql.
command -v osm2pgsql >/dev/null 2>&1 || need_apt="$need_apt osm2pgsql"
# PyICU (Nominatim's tokenizer) builds from source against the system's ICU.
pkg-config --exists icu-i18n 2>/dev/null || need_apt="$need_apt libicu-dev pkg-config g++"

# apt-get waits there for another apt or dpkg (a new machine's unattended upgrades) to
# finish, up to D2_APT_LOCK_TIMEOUT seconds. The distribution may start a system cluster;
# d2 does not use it.
[ -z "$need_apt" ] || scripts/apt_install.sh $need_apt

# Exact versions from requirements.lock (scripts/lock.sh writes it from pyproject.toml),
# each file checked against the sha256 the lock holds (--require-hashes: a file swapped on
# the index is refused), then d2 itself without resolving anything; pip check fails when
# the lock misses a dependency pyproject.toml gained (rerun scripts/lock.sh).
if [ ! -x .venv/bin/d2 ] || [ pyproject.toml -nt .venv/.installed ] \
    || [ requirements.lock -nt .venv/.installed ]; then
    echo "setup: creating .venv and installing d2 from requirements.lock" >&2
    python3 -m venv .venv
    .venv/bin/pip install -q --upgrade pip >/dev/null
    .venv/bin/pip install -q --require-hashes -r requirements.lock
    .venv/bin/pip install -q --no-deps -e .
    .venv/bin/pip check >&2 || {
        echo "setup: requirements.lock is out of date with pyproject.toml: run scripts/lock.sh" >&2
        exit 1
    }
    touch .venv/.installed
fi
