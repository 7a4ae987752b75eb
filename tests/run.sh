#!/usr/bin/env bash
# Runs Tidepool's whole test suite on a fresh clone: checks formatting and lints, then
# every test (unit, simulator acceptance on the Philly trace, command line, the policy
# sandbox with real compiled modules, the API on SQLite and on a PostgreSQL server it
# starts itself, agents running real processes, the web app in headless Chromium, and the
# OpenAPI document through a registry's validator and a client generated from it).
# Installs nothing by hand: everything it needs is fetched or built here.
set -euo pipefail
cd "$(dirname "$0")/.."

# One cargo target dir outside the clone, reused between runs and clones.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/tidepool/target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

# The Philly trace lives beside the checkout (../shared/traces/philly) unless told otherwise.
export TIDEPOOL_TRACES="${TIDEPOOL_TRACES:-$(cd .. && pwd)/shared/traces}"
if [ ! -f "$TIDEPOOL_TRACES/philly/philly.csv" ]; then
  echo "error: the Philly trace is missing at $TIDEPOOL_TRACES/philly/philly.csv (set TIDEPOOL_TRACES)" >&2
  exit 1
fi

rustup component add rustfmt clippy >/dev/null 2>&1 || true

echo "== policy modules"
tests/build-policies.sh
export TIDEPOOL_POLICY_DIR="$CARGO_TARGET_DIR/policies"
echo "== web app"
frontend/build.sh
export TIDEPOOL_WEB_DIR="$CARGO_TARGET_DIR/web"

echo "== format"
cargo fmt --all -- --check
cargo fmt --manifest-path frontend/Cargo.toml -- --check
echo "== lints"
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo clippy --manifest-path frontend/Cargo.toml --target wasm32-unknown-unknown --locked -- -D warnings
# The shared API types are read by the web app too: they must build for wasm32.
cargo check -p tidepool-api --target wasm32-unknown-unknown --locked
echo "== PostgreSQL for the API tests"
# A server that does not start (the port is taken, initdb fails) stops the run here
# rather than letting the API tests pass on SQLite alone.
pg_env=$(tests/postgres.sh start) || { echo "cannot start PostgreSQL (port ${TIDEPOOL_PGPORT:-55432})" >&2; exit 1; }
eval "$pg_env"
# The API tests on PostgreSQL use it, and so does the failover drill (server/tests/failover_drill.rs:
# real servers and agents on one database, the leader SIGKILLed mid-burst).
trap 'tests/postgres.sh stop "$TIDEPOOL_PGDIR"' EXIT

echo "== tests"
# Jobs run in bubblewrap sandboxes, or in images under podman (runc; busybox for the test image).
if ! command -v bwrap >/dev/null || ! command -v podman >/dev/null || ! command -v runc >/dev/null || ! command -v busybox >/dev/null; then
  (apt-get update -qq && apt-get install -y -qq bubblewrap podman runc busybox-static >/dev/null) >&2
fi
# Prometheus' own checker for the /metrics test (promtool, in the distribution's `prometheus`);
# the tests that need such a tool fail rather than skip when it is missing here.
if ! command -v promtool >/dev/null; then
  (apt-get update -qq && apt-get install -y -qq prometheus >/dev/null) >&2
fi
export TIDEPOOL_REQUIRE_TOOLS=1
# A real SMTP server for the mail-delivery tests (aiosmtpd, pinned, in a venv outside the clone).
TIDEPOOL_TEST_SMTPD=$(tests/smtp/venv.sh)
export TIDEPOOL_TEST_SMTPD
cargo test --workspace --locked --no-fail-fast
# The web app's pure parts (charts, tables, CSV, weeks, the wait timeline) on the host.
cargo test --manifest-path frontend/Cargo.toml --lib --locked

echo "== the web app in a browser"
if ! command -v chromium >/dev/null || ! command -v node >/dev/null; then
  (apt-get update -qq && apt-get install -y -qq chromium nodejs npm >/dev/null) >&2
fi
(cd tests/web && npm ci --silent --no-audit --no-fund)
cargo build --locked -p tidepool
TIDEPOOL_BIN="$CARGO_TARGET_DIR/debug/tidepool" node tests/web/e2e.mjs

echo "== the deploy kit: systemd units, the image's runtime stage run under podman, the compose file"
tests/deploy.sh

echo "== the OpenAPI document: validated as 3.1, and a client generated from it"
TIDEPOOL_BIN="$CARGO_TARGET_DIR/debug/tidepool" tests/openapi/check.sh
echo "== the handbook: every command in docs/ against a real server"
TIDEPOOL_BIN="$CARGO_TARGET_DIR/debug/tidepool" tests/docs.sh
echo "== all tests passed"
