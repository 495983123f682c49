# shellcheck shell=bash
# Sourced by scripts/test: starts a throwaway PostgreSQL 15 cluster, dynalite
# and a Cosmos DB emulator on 127.0.0.1, exports SEQSHIM_TEST_PG,
# SEQSHIM_TEST_DYNAMODB and SEQSHIM_TEST_COSMOS, and stops them when the
# calling shell exits. Everything lives under one temporary
# directory, removed at exit.

seqshim_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SEQSHIM_TEST_TMP=$(mktemp -d /tmp/seqshim-test.XXXXXX)
chmod 755 "$SEQSHIM_TEST_TMP"
export SEQSHIM_TEST_TMP

seqshim_log() { printf 'testenv: %s\n' "$*" >&2; }

# A port nobody listens on, checked by connecting, and below the kernel's
# ephemeral range: a port above it may be the local end of some outgoing
# connection, free to connect to yet impossible to listen on.
seqshim_free_port() {
	local p lo=32768
	read -r lo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
	((lo > 12000)) || lo=32768
	for _ in $(seq 1 100); do
		p=$((10000 + RANDOM % (lo - 10000)))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

seqshim_cleanup() {
	if [[ -n "${SEQSHIM_PG_DATA:-}" && -f "$SEQSHIM_PG_DATA/postmaster.pid" ]]; then
		seqshim_as_pg "$SEQSHIM_PG_BIN/pg_ctl" -D "$SEQSHIM_PG_DATA" -m immediate stop >/dev/null 2>&1 || true
	fi
	if [[ -n "${SEQSHIM_DYNALITE_PID:-}" ]]; then
		kill "$SEQSHIM_DYNALITE_PID" 2>/dev/null || true
	fi
	if [[ -n "${SEQSHIM_COSMOS_PID:-}" ]]; then
		kill "$SEQSHIM_COSMOS_PID" 2>/dev/null || true
	fi
	rm -rf "$SEQSHIM_TEST_TMP"
}
trap seqshim_cleanup EXIT

# initdb refuses root: as root, run the server as user postgres.
seqshim_as_pg() {
	if [[ $(id -u) -eq 0 ]]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

seqshim_start_postgres() {
	SEQSHIM_PG_BIN=${SEQSHIM_PG_BIN:-$(ls -d /usr/lib/postgresql/15/bin 2>/dev/null || dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/x)")}
	if [[ ! -x "$SEQSHIM_PG_BIN/initdb" ]]; then
		seqshim_log "PostgreSQL 15 not found (/usr/lib/postgresql/15/bin); PostgreSQL tests will skip"
		return 0
	fi
	SEQSHIM_PG_DATA="$SEQSHIM_TEST_TMP/pgdata"
	local sock="$SEQSHIM_TEST_TMP/pgsock" port attempt
	mkdir -p "$sock"
	if [[ $(id -u) -eq 0 ]]; then chown postgres "$SEQSHIM_TEST_TMP" "$sock"; fi
	seqshim_as_pg "$SEQSHIM_PG_BIN/initdb" -D "$SEQSHIM_PG_DATA" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$SEQSHIM_TEST_TMP/initdb.log" 2>&1 ||
		{ cat "$SEQSHIM_TEST_TMP/initdb.log" >&2; return 1; }
	# A port free when chosen can be taken before the server binds it: try
	# another one then.
	for attempt in 1 2 3 4 5; do
		port=$(seqshim_free_port)
		if seqshim_as_pg "$SEQSHIM_PG_BIN/pg_ctl" -D "$SEQSHIM_PG_DATA" -l "$SEQSHIM_TEST_TMP/postgres.log" -w -t 60 \
			-o "-c listen_addresses=127.0.0.1 -p $port -k $sock -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" start >/dev/null; then
			break
		fi
		if ((attempt == 5)); then
			cat "$SEQSHIM_TEST_TMP/postgres.log" >&2
			return 1
		fi
		seqshim_log "PostgreSQL did not start on port $port; trying another"
	done
	export SEQSHIM_TEST_PG="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
	seqshim_log "PostgreSQL $("$SEQSHIM_PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$port"
}

# seqshim_serve NAME FN runs "FN PORT" in the background on a free port
# (FN execs a server listening on 127.0.0.1:PORT; its output goes to
# $SEQSHIM_TEST_TMP/NAME.log) and waits until the port answers. A port free
# when chosen can be taken before the server binds it: then another one is
# tried, five times in all. Sets seqshim_pid and seqshim_port.
seqshim_serve() {
	local name=$1 fn=$2 i attempt
	for attempt in 1 2 3 4 5; do
		seqshim_port=$(seqshim_free_port)
		"$fn" "$seqshim_port" >"$SEQSHIM_TEST_TMP/$name.log" 2>&1 &
		seqshim_pid=$!
		for i in $(seq 1 100); do
			if ! kill -0 "$seqshim_pid" 2>/dev/null; then
				break
			fi
			if (exec 3<>"/dev/tcp/127.0.0.1/$seqshim_port") 2>/dev/null; then
				return 0
			fi
			sleep 0.1
		done
		kill "$seqshim_pid" 2>/dev/null || true
		wait "$seqshim_pid" 2>/dev/null || true
		cat "$SEQSHIM_TEST_TMP/$name.log" >&2
		seqshim_log "$name did not start on port $seqshim_port (attempt $attempt of 5)"
	done
	seqshim_pid=
	return 1
}

seqshim_start_dynalite() {
	if ! command -v npm >/dev/null; then
		seqshim_log "npm not found; DynamoDB tests will skip"
		return 0
	fi
	local dir="$seqshim_root/.tmp/dynalite"
	if [[ ! -f "$dir/node_modules/dynalite/cli.js" ]]; then
		mkdir -p "$dir"
		npm install --prefix "$dir" --no-audit --no-fund --silent dynalite@4.0.0 >&2
	fi
	# dynalite throws from a request's 'error' handler when a client closes the
	# connection before the request is complete (a cancelled context, a
	# fault test): uncaught, that kills the server for every later test. Log
	# it and keep serving instead, once listening; a failure to listen (the
	# port was taken meanwhile) still ends the process, and another port is
	# tried.
	local guard="process.on('uncaughtException', function (e) {
		if (e && e.syscall === 'listen') { console.error('dynalite:', e.message); process.exit(1) }
		console.error('dynalite: uncaught:', e && e.message)
	}); require(process.argv[1])"
	# shellcheck disable=SC2317 # run by seqshim_serve
	seqshim_dynalite() {
		exec node -e "$guard" "$dir/node_modules/dynalite/cli.js" --host 127.0.0.1 --port "$1" --createTableMs 0 \
			--deleteTableMs 0 --updateTableMs 0
	}
	seqshim_serve dynalite seqshim_dynalite || return 1
	SEQSHIM_DYNALITE_PID=$seqshim_pid
	export SEQSHIM_TEST_DYNAMODB="http://127.0.0.1:$seqshim_port"
	seqshim_log "dynalite 4.0.0 on 127.0.0.1:$seqshim_port"
}

# The Cosmos DB emulator: @vercel/cosmosdb-server, pinned, on plain HTTP,
# started by scripts/cosmosdb-server.js (which says what it fixes).
seqshim_start_cosmos() {
	if ! command -v npm >/dev/null; then
		seqshim_log "npm not found; Cosmos DB tests will skip"
		return 0
	fi
	local dir="$seqshim_root/.tmp/cosmosdb-server" version=1.0.1
	if [[ ! -f "$dir/node_modules/@vercel/cosmosdb-server/package.json" ]] ||
		! grep -q "\"version\": \"$version\"" "$dir/node_modules/@vercel/cosmosdb-server/package.json"; then
		mkdir -p "$dir"
		npm install --prefix "$dir" --no-audit --no-fund --silent "@vercel/cosmosdb-server@$version" >&2
	fi
	# shellcheck disable=SC2317 # run by seqshim_serve
	seqshim_cosmos() { exec node "$seqshim_root/scripts/cosmosdb-server.js" "$dir/node_modules" 127.0.0.1 "$1"; }
	seqshim_serve cosmosdb-server seqshim_cosmos || return 1
	SEQSHIM_COSMOS_PID=$seqshim_pid
	export SEQSHIM_TEST_COSMOS="http://127.0.0.1:$seqshim_port"
	seqshim_log "cosmosdb-server $version on 127.0.0.1:$seqshim_port"
}

seqshim_start_postgres
seqshim_start_dynalite
seqshim_start_cosmos
