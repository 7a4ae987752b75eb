#!/usr/bin/env bash
# Builds the web app into "$CARGO_TARGET_DIR/web", where `tidepool serve` finds it: the
# app's WebAssembly (release), wasm-bindgen's JavaScript glue, index.html and style.css.
# Installs the WebAssembly target and wasm-bindgen-cli (at the version Cargo.lock pins)
# when missing; no binary is downloaded from anywhere else.
set -euo pipefail
cd "$(dirname "$0")"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/tidepool/target}"
version=$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"/\1/p')
rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || true
if ! wasm-bindgen --version 2>/dev/null | grep -qF "$version"; then
  # Not --locked: its lock file wants a crate version the registry lacks (BUILD-NOTES).
  cargo install wasm-bindgen-cli --version "$version"
fi
cargo build --locked --release --target wasm32-unknown-unknown
out="$CARGO_TARGET_DIR/web"
mkdir -p "$out"
wasm-bindgen --target web --no-typescript --out-name tidepool_web --out-dir "$out" \
  "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/tidepool-web.wasm"
cp index.html style.css "$out/"
echo "web app built into $out"
