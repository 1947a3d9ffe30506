#!/usr/bin/env bash
# A throwaway PostgreSQL server on a loopback port, for the case store's tests and benchmarks.
#
#   eval "$(bash tests/support/pg.sh start)"   # installs (Debian) if needed, starts, exports PROVSCOPE_TEST_PG
#   bash tests/support/pg.sh stop              # stops it and deletes its data
#
# The server runs from $PROVSCOPE_PG_DIR (default /tmp/provscope-pg) on 127.0.0.1:$PROVSCOPE_PG_PORT
# (default 55432), as the `postgres` system user when run as root (initdb refuses root). It
# listens on loopback only; its superuser `provscope` has a password (scram-sha-256), and the
# database `provscope_test` is where tests create one database each. $PROVSCOPE_PG_OPTIONS adds
# server options (for example "-c wal_buffers=16MB" for a benchmark).
set -euo pipefail
cmd=${1:-start}
dir=${PROVSCOPE_PG_DIR:-/tmp/provscope-pg}
port=${PROVSCOPE_PG_PORT:-55432}
password=provscope-test

pgbin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$cmd" in
start)
  if [ -z "$(pgbin)" ] || [ ! -x "$(pgbin)/initdb" ]; then
    echo "installing PostgreSQL from Debian's packages" >&2
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  fi
  bin=$(pgbin)
  if [ -f "$dir/data/postmaster.pid" ] && as_owner "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
    echo "PostgreSQL already running in $dir" >&2
  else
    rm -rf "$dir"
    mkdir -p "$dir"
    printf '%s\n' "$password" > "$dir/pwfile"
    if [ "$(id -u)" = 0 ]; then chown -R postgres:postgres "$dir"; fi
    chmod 700 "$dir"
    as_owner "$bin/initdb" -D "$dir/data" -U provscope --auth=scram-sha-256 \
      --pwfile="$dir/pwfile" -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$dir -c max_connections=200 ${PROVSCOPE_PG_OPTIONS:-}" \
      start >&2 || { cat "$dir/server.log" >&2; exit 1; }
    PGPASSWORD=$password "$bin/psql" -h 127.0.0.1 -p "$port" -U provscope -d postgres -qAt \
      -c "CREATE DATABASE provscope_test" >&2
  fi
  echo "export PROVSCOPE_TEST_PG=postgres://provscope:$password@127.0.0.1:$port/provscope_test"
  ;;
stop)
  bin=$(pgbin)
  if [ -n "$bin" ] && [ -d "$dir/data" ]; then
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
  fi
  rm -rf "$dir"
  ;;
*)
  echo "usage: $0 start|stop" >&2
  exit 2
  ;;
esac
