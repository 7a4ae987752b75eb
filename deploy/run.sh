#!/usr/bin/env bash
# Runs Tidepool on this machine: the web app, the API and the live dispatcher on one
# address, an embedded SQLite file (./data), the initial admin and a seeded demo
# organisation whose nodes run agents with fake GPUs (jobs really run, checkpoint and
# finish). Set TIDEPOOL_ADMIN_PASSWORD to choose the admin's password (else one is
# generated and printed once), TIDEPOOL_LISTEN to change the address.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/tidepool/target}"
# The demo's agents run each job in a bubblewrap sandbox as an unprivileged account.
if ! command -v bwrap >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  (apt-get update -qq && apt-get install -y -qq bubblewrap >/dev/null) >&2
fi
frontend/build.sh
cargo build --release --locked -p tidepool
exec "$CARGO_TARGET_DIR/release/tidepool" serve \
  --listen "${TIDEPOOL_LISTEN:-127.0.0.1:8080}" --data-dir "${TIDEPOOL_DATA:-data}" --demo-agents "$@"
