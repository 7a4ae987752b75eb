#!/usr/bin/env bash
# Makes (once per pin) the virtual environment holding the test SMTP server (aiosmtpd, at
# the version pinned in requirements.txt) outside the clone, and prints its python, which
# tests/run.sh exports as TIDEPOOL_TEST_SMTPD for server/tests/reports_delivery.rs.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv="${TIDEPOOL_SMTP_VENV:-${CARGO_TARGET_DIR:-$HOME/.cache/tidepool/target}/smtp-venv}"
req=tests/smtp/requirements.txt
# A venv made for other pins is made anew.
if ! cmp -s "$req" "$venv/requirements.txt"; then
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$req" >&2
  cp "$req" "$venv/requirements.txt"
fi
echo "$venv/bin/python"
