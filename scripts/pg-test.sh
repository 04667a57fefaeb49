#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster for the tests that need one (internal/store/postgres) and
# exports PLANDASH_TEST_PG, its URL. The cluster lives in a temporary directory, listens on a free
# loopback port only, and is stopped and removed when the shell that started it exits.
#
#   source scripts/pg-test.sh          in a script (scripts/test.sh does this): the rest of the
#                                      script sees PLANDASH_TEST_PG; the cluster ends with it
#   scripts/pg-test.sh CMD ARGS...     runs CMD with PLANDASH_TEST_PG set, then stops the cluster
#   scripts/pg-test.sh                 prints the export line and keeps the cluster until Ctrl-C
#
# Installs Debian's postgresql when no initdb is found (as root, or through sudo). initdb and the
# server refuse to run as root, so as root they run as the postgres user the package creates.
# The cluster is tuned for tests, not for keeping data: fsync is off.

# pg_test_fail reports and gives up, without ending a shell that sourced this file by mistake.
pg_test_fail() {
	printf 'pg-test: %s\n' "$*" >&2
	return 1
}

# pg_test_bin finds PostgreSQL's server binaries: on PATH, else Debian's newest version.
pg_test_bin() {
	if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then
		dirname "$(command -v initdb)"
		return
	fi
	local d
	d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
	[ -n "$d" ] && [ -x "$d/initdb" ] && echo "$d"
}

# pg_test_install installs Debian's postgresql, with sudo only when not root.
pg_test_install() {
	local sudo=()
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null || { pg_test_fail "installing postgresql needs root or sudo"; return 1; }
		sudo=(sudo)
	fi
	command -v apt-get >/dev/null || { pg_test_fail "no PostgreSQL and no apt-get: install PostgreSQL by hand"; return 1; }
	echo "pg-test: installing postgresql" >&2
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
		"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
}

# pg_test_as runs a command as the cluster's owner: postgres when we are root, else ourselves.
pg_test_as() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# pg_test_port_free reports whether nothing listens on the loopback port. A port found free can
# still be taken before the server binds it; pg_test_start then tries another.
pg_test_port_free() {
	! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# pg_test_stop stops the cluster and removes its directory; safe to call twice.
pg_test_stop() {
	if [ -n "${PG_TEST_DIR:-}" ] && [ -d "$PG_TEST_DIR" ]; then
		pg_test_as "$PG_TEST_BIN/pg_ctl" -D "$PG_TEST_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
		rm -rf "$PG_TEST_DIR"
	fi
	PG_TEST_DIR=""
}

pg_test_start() {
	PG_TEST_BIN="$(pg_test_bin)"
	if [ -z "$PG_TEST_BIN" ]; then
		pg_test_install || return 1
		PG_TEST_BIN="$(pg_test_bin)"
		[ -n "$PG_TEST_BIN" ] || { pg_test_fail "initdb is still missing after installing postgresql"; return 1; }
	fi
	if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
		pg_test_fail "running as root but there is no postgres user to run the server as"
		return 1
	fi
	PG_TEST_DIR="$(mktemp -d "${TMPDIR:-/tmp}/plandash-pg.XXXXXX")" || return 1
	if [ "$(id -u)" -eq 0 ]; then chown postgres: "$PG_TEST_DIR"; fi
	# A random password, so that other users of this machine cannot use the cluster through its
	# TCP port; the Unix socket sits in the private directory.
	local pass
	pass="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
	printf '%s\n' "$pass" | pg_test_as tee "$PG_TEST_DIR/pw" >/dev/null
	if ! pg_test_as "$PG_TEST_BIN/initdb" -D "$PG_TEST_DIR/data" -U plandash --pwfile="$PG_TEST_DIR/pw" \
		--auth-local=trust --auth-host=scram-sha-256 -E UTF8 --no-locale >"$PG_TEST_DIR/initdb.log" 2>&1; then
		cat "$PG_TEST_DIR/initdb.log" >&2
		pg_test_stop
		pg_test_fail "initdb failed"
		return 1
	fi
	local port try
	for try in 1 2 3 4 5; do
		port=$((20000 + RANDOM % 30000))
		pg_test_port_free "$port" || continue
		if pg_test_as "$PG_TEST_BIN/pg_ctl" -D "$PG_TEST_DIR/data" -l "$PG_TEST_DIR/server.log" -w -t 60 \
			-o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$PG_TEST_DIR -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
			start >/dev/null; then
			export PLANDASH_TEST_PG="postgres://plandash:$pass@127.0.0.1:$port/postgres?sslmode=disable"
			echo "pg-test: PostgreSQL $("$PG_TEST_BIN/pg_ctl" --version | awk '{print $3}') on 127.0.0.1:$port ($PG_TEST_DIR)" >&2
			return 0
		fi
	done
	cat "$PG_TEST_DIR/server.log" >&2 2>/dev/null
	pg_test_stop
	pg_test_fail "the server did not start"
}

# pg_test_on_exit adds pg_test_stop to the EXIT trap, keeping whatever trap was there.
pg_test_on_exit() {
	local prev
	prev="$(trap -p EXIT | sed -e "s/^trap -- '//" -e "s/' EXIT\$//")"
	# shellcheck disable=SC2064 # the previous trap is expanded now, on purpose
	trap "pg_test_stop; ${prev:-:}" EXIT
}

if [ "${BASH_SOURCE[0]}" != "$0" ]; then
	# Sourced: the cluster lives as long as the sourcing shell.
	pg_test_start && pg_test_on_exit
else
	set -euo pipefail
	trap pg_test_stop EXIT
	trap 'exit 130' INT TERM
	pg_test_start
	if [ "$#" -gt 0 ]; then
		"$@"
	else
		printf 'export PLANDASH_TEST_PG=%q\n' "$PLANDASH_TEST_PG"
		echo "pg-test: press Ctrl-C to stop the cluster" >&2
		sleep infinity &
		pg_test_sleep=$!
		# The sleeper must not outlive the script: end it too on Ctrl-C or kill.
		trap 'kill "$pg_test_sleep" 2>/dev/null; exit 130' INT TERM
		wait "$pg_test_sleep"
	fi
fi
