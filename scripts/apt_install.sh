#!/usr/bin/env bash
# Installs Debian packages with apt-get (scripts/setup.sh runs it: scripts/apt_install.sh
# PACKAGE...), first waiting for any other apt or dpkg to finish: a fresh Ubuntu machine
# runs its unattended upgrades in its first minutes, and apt-get fails at once (exit 100)
# on the lock they hold. It says on stderr which process it waits for (one line per
# holder); past D2_APT_LOCK_TIMEOUT seconds (600) it gives up with one line and exit 1.
# D2_APT_LOCKS lists the lock files waited for (apt's and dpkg's by default), so that a
# test can hold locks of its own.
set -eu

timeout="${D2_APT_LOCK_TIMEOUT:-600}"
locks="${D2_APT_LOCKS:-/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock}"
case "$timeout" in
    '' | *[!0-9]*)
        echo "setup: D2_APT_LOCK_TIMEOUT must be a whole number of seconds, not '$timeout'" >&2
        exit 2
        ;;
esac
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
errors="$(mktemp)"
trap 'rm -f "$errors"' EXIT

# Which lock file is held, and by whom. apt and dpkg take POSIX (fcntl) locks, which
# flock(1) does not see, so they are looked up in /proc/locks (readable by anyone, unlike
# the lock files) by the file's device and inode. Prints nothing while every lock is free.
holder() {
    local file dev ino major minor _n kind _mode _rw pid where hmajor hminor hino name
    [ -r /proc/locks ] || return 0
    for file in $locks; do
        [ -e "$file" ] || continue
        read -r dev ino < <(stat -L -c '%d %i' "$file") || continue
        major=$(((dev >> 8) & 0xfff))
        minor=$(((dev & 0xff) | ((dev >> 12) & 0xfff00)))
        while read -r _n kind _mode _rw pid where _; do
            # "->" marks a process waiting for a lock, not holding it.
            [ "$kind" != "->" ] || continue
            IFS=: read -r hmajor hminor hino <<<"$where"
            [[ "$hmajor:$hminor" =~ ^[0-9a-f]+:[0-9a-f]+$ ]] || continue
            [ "$hino" = "$ino" ] && [ $((16#$hmajor)) -eq "$major" ] \
                && [ $((16#$hminor)) -eq "$minor" ] || continue
            if [[ "$pid" =~ ^[1-9][0-9]*$ ]] && name="$(cat "/proc/$pid/comm" 2>/dev/null)"; then
                echo "$file, held by process $pid ($name)"
            else
                echo "$file, held by another process"
            fi
            return 0
        done </proc/locks
    done
}

give_up() {
    echo "setup: gave up after $timeout s waiting for ${1:-the apt lock}; run scripts/setup.sh again once it is done (D2_APT_LOCK_TIMEOUT sets the wait)" >&2
    exit 1
}

wait_for_locks() {
    local said="" who
    while who="$(holder)" && [ -n "$who" ]; do
        [ "$SECONDS" -lt "$timeout" ] || give_up "$who"
        if [ "$who" != "$said" ]; then
            echo "setup: another apt or dpkg is at work (a new machine's unattended upgrades, say): waiting up to $timeout s for $who" >&2
            said="$who"
        fi
        sleep 1
    done
}

# apt-get waits for dpkg's lock by itself for DPkg::Lock::Timeout seconds (apt >= 1.9.11;
# older ones ignore the option), but `apt-get update` fails at once on the lists' lock
# (apt 2.6 too), and another apt may take either between the wait above and the call: a
# failure on a lock is waited out and the call made again, within the same bound.
apt_get() {
    local rc
    while :; do
        wait_for_locks
        rc=0
        $sudo env DEBIAN_FRONTEND=noninteractive \
            apt-get -o DPkg::Lock::Timeout=$((timeout > SECONDS ? timeout - SECONDS : 0)) "$@" \
            >/dev/null 2>"$errors" || rc=$?
        if [ "$rc" -ne 0 ] \
            && grep -qE 'Could not get lock|Unable to acquire the dpkg frontend lock|Unable to lock' "$errors"; then
            [ "$SECONDS" -lt "$timeout" ] || give_up "$(holder)"
            sleep 1
            continue
        fi
        cat "$errors" >&2
        return "$rc"
    done
}

echo "setup: installing system packages: $*" >&2
apt_get update -qq
apt_get install -y -qq "$@"
