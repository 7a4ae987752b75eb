#!/usr/bin/env bash
# Runs Tidepool. Until the server lands, this replays two months of the Philly trace
# through the dispatcher, today's practice (silo) against one shared pool, and prints
# both reports side by side.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/tidepool/target}"
TRACES="${TIDEPOOL_TRACES:-$(cd .. && pwd)/shared/traces}"
SCALE="${1:-0.5}"

cargo build --release --locked -p tidepool
bin="$CARGO_TARGET_DIR/release/tidepool"
for mode in silo pooled; do
  "$bin" simulate --trace "$TRACES/philly/philly.csv" --groups "$TRACES/philly/vc_nodes.csv" \
    --from 2017-10-01 --to 2017-11-30 --capacity-scale "$SCALE" --mode "$mode" --format text
done
