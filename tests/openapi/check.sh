#!/usr/bin/env bash
# Issue 11: the OpenAPI document a real `tidepool serve` answers validates as OpenAPI 3.1
# (openapi-spec-validator), each request example matches its schema, and a Python client
# generated from the document (openapi-python-client) signs in and submits a job against
# that server. The tools come from PyPI at the versions pinned in requirements.txt, in a
# virtual environment kept outside the clone; nothing else is fetched.
# Usage: TIDEPOOL_BIN=path/to/tidepool tests/openapi/check.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${TIDEPOOL_BIN:?set TIDEPOOL_BIN to a built tidepool binary}"
venv="${TIDEPOOL_OPENAPI_VENV:-${CARGO_TARGET_DIR:-$HOME/.cache/tidepool/target}/openapi-venv}"
req=tests/openapi/requirements.txt

# A venv made for other pins is made anew.
if ! cmp -s "$req" "$venv/requirements.txt"; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$req"
  cp "$req" "$venv/requirements.txt"
fi
export PATH="$venv/bin:$PATH"

work=$(mktemp -d)
port=$(python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
TIDEPOOL_ADMIN_PASSWORD=admin-pw "$bin" serve --data-dir "$work/data" --listen "127.0.0.1:$port" \
  >"$work/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
base="http://127.0.0.1:$port"

echo "openapi: fetching the document from $base"
if ! python tests/openapi/document.py "$base" "$work/openapi.json"; then
  cat "$work/server.log" >&2
  exit 1
fi
echo "openapi: validating it as OpenAPI 3.1"
openapi-spec-validator "$work/openapi.json"

echo "openapi: generating a Python client"
mkdir -p "$work/client"
if ! openapi-python-client generate --path "$work/openapi.json" --meta none \
  --config tests/openapi/generator.yaml \
  --output-path "$work/client/tidepool_client" >"$work/generate.log" 2>&1; then
  cat "$work/generate.log" >&2
  exit 1
fi
# A warning means a route or a schema the generator could not read: a hole in the document.
if grep -qi "warning\|will not be generated\|unable to" "$work/generate.log"; then
  echo "openapi: the generator could not read all of the document:" >&2
  cat "$work/generate.log" >&2
  exit 1
fi

echo "openapi: the generated client against the server"
PYTHONPATH="$work/client" python tests/openapi/client_test.py "$base"
