#!/usr/bin/env bash
# Starts a throw-away PostgreSQL server on loopback for the tests and prints its URL.
# Usage: eval "$(tests/postgres.sh start)"  …  tests/postgres.sh stop "$TIDEPOOL_PGDIR"
set -euo pipefail
port="${TIDEPOOL_PGPORT:-55432}"
case "${1:-start}" in
start)
  if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    (apt-get update -qq && apt-get install -y -qq postgresql >/dev/null) >&2
  fi
  bin=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n 1)")
  dir=$(mktemp -d)
  chmod 755 "$dir"
  # As root the server runs as postgres, from a directory postgres may enter.
  run() { if [ "$(id -u)" = 0 ]; then chown -R postgres:postgres "$dir"; (cd / && runuser -u postgres -- "$@"); else "$@"; fi; }
  run "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
  # fsync off by default: tests check behaviour, not durability's cost. Benchmarks of
  # what users go through start it with TIDEPOOL_PG_FSYNC=on.
  run "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
    -o "-p $port -c listen_addresses=127.0.0.1 -k $dir -c fsync=${TIDEPOOL_PG_FSYNC:-off} -c max_connections=200" start >/dev/null
  echo "export TIDEPOOL_PGDIR='$dir' TIDEPOOL_PGBIN='$bin'"
  echo "export TIDEPOOL_TEST_POSTGRES='postgres://postgres@127.0.0.1:$port/postgres'"
  ;;
stop)
  dir="$2"
  bin="${TIDEPOOL_PGBIN:-$(dirname "$(ls /usr/lib/postgresql/*/bin/pg_ctl | sort -V | tail -n 1)")}"
  if [ "$(id -u)" = 0 ]; then (cd / && runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" stop -m fast >/dev/null); else "$bin/pg_ctl" -D "$dir/data" stop -m fast >/dev/null; fi
  rm -rf "$dir"
  ;;
esac
