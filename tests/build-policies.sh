#!/usr/bin/env bash
# Builds every policy module the tests and the simulator load into
# "$CARGO_TARGET_DIR/policies": the defaults, the examples and the test suite's hostile
# modules. Each crate is built on its own so the SDK's world features never unify.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/tidepool/target}"
rustup target add wasm32-unknown-unknown wasm32-wasip2 >/dev/null 2>&1 || true
out="$CARGO_TARGET_DIR/policies"
mkdir -p "$out"
cargo build --locked -q -p tidepool
bin="$CARGO_TARGET_DIR/debug/tidepool"
build() { "$bin" policy build "$1" --out "$out/$2.wasm" >/dev/null; }
build policies/priority priority
build policies/quota quota
build policies/reclaim reclaim
for dir in policies/examples/*/ tests/policies/hostile/; do
  [ -f "$dir/Cargo.toml" ] || continue
  build "$dir" "$(basename "$dir")"
done
# Built for WASI on purpose: std then imports filesystem, clocks, random and sockets.
cargo build --locked -q --release --target wasm32-wasip2 -p tidepool-wasi-snoop-policy
cp "$CARGO_TARGET_DIR/wasm32-wasip2/release/tidepool_wasi_snoop_policy.wasm" "$out/wasi-snoop.wasm"
ls -l "$out"
