#!/usr/bin/env bash
# Makes the upgrade test's fixture: a small database made by THIS release's binary with a
# scripted scenario, written as SQL text per engine (tests/upgrade/sqlite.sql,
# tests/upgrade/postgres.sql). server/tests/upgrade.rs loads it and starts the next
# release's server on it. Rerun it at each release, right after tagging, so the fixture
# is always the previous release's database (see tests/upgrade/README.md).
#
#   tests/upgrade/make-fixture.sh sqlite
#   tests/upgrade/make-fixture.sh postgres   # needs TIDEPOOL_TEST_POSTGRES (tests/postgres.sh start)
#
# The scenario: users of each role (two admins, two managers, a member) in two groups,
# quotas (one with a budget) proposed and approved, a template, jobs in every state
# (succeeded, failed, timed-out, cancelled, running, pending with its wait), receipts,
# an approved loan, a policy version in shadow, and an agent's usage samples. Nothing in
# it may change with the time that passes until the next release: the budget is large
# and the loan lasts as long as a loan may (a year); the test serves it with a node-lost
# delay of years, so the running job stays running.
set -eEuo pipefail
trap 'echo "make-fixture: failed at line $LINENO" >&2' ERR
cd "$(dirname "$0")/../.."
root=$PWD
engine=${1:?usage: make-fixture.sh sqlite|postgres}
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/tidepool/target}"
bin="${TIDEPOOL_BIN:-$CARGO_TARGET_DIR/debug/tidepool}"
fifo="${TIDEPOOL_POLICY_DIR:-$CARGO_TARGET_DIR/policies}/fifo.wasm"
[ -x "$bin" ] && [ -f "$fifo" ] || { echo "needs $bin and $fifo (tests/build-policies.sh)" >&2; exit 2; }

work=$(mktemp -d)
cd "$work"
on=(--data-dir data)
serve_on=(--data-dir data)
if [ "$engine" = postgres ]; then
  base=${TIDEPOOL_TEST_POSTGRES:?start PostgreSQL with tests/postgres.sh}
  PGOPTIONS=--client-min-messages=warning psql -q "$base" -c 'DROP DATABASE IF EXISTS tidepool_fixture' -c 'CREATE DATABASE tidepool_fixture'
  url="${base%/*}/tidepool_fixture"
  on=(--database-url "$url")
  serve_on=(--data-dir data --database-url "$url")
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
S=http://127.0.0.1:$port
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null; rm -rf "$work"' EXIT

TIDEPOOL_ADMIN_PASSWORD=admin-pw "$bin" serve --no-demo "${serve_on[@]}" --listen "127.0.0.1:$port" \
  --dispatch-interval-s 1 --min-runtime-s 0 --grace-s 2 >server.log 2>&1 &
pids+=($!)
until curl -sf "$S/readyz" >/dev/null; do sleep 0.2; done

adm() { RUST_LOG=warn "$bin" admin "${on[@]}" "$@" >/dev/null; }
adm add-group vision
adm add-group speech
TIDEPOOL_NEW_PASSWORD=grace-pw adm add-user --role admin grace
TIDEPOOL_NEW_PASSWORD=vision-lead-pw adm add-user --role manager --group vision vision-lead
TIDEPOOL_NEW_PASSWORD=speech-lead-pw adm add-user --role manager --group speech speech-lead
TIDEPOOL_NEW_PASSWORD=ada-pw adm add-user --role member --group vision ada
# The first admin is written just after the server starts listening: sign-in is retried.
token() {
  local i
  for i in $(seq 50); do
    curl -sS --fail-with-body -XPOST "$S/api/auth/login" -H 'content-type: application/json' \
      -d "{\"username\":\"$1\",\"password\":\"$2\"}" | jq -er .access_token && return
    sleep 0.2
  done
  return 1
}
call() { # call TOKEN METHOD PATH [JSON]
  curl -sS --fail-with-body -X"$2" "$S$3" -H "authorization: Bearer $1" ${4:+-H "content-type: application/json" -d "$4"}; }
ADMIN=$(token admin admin-pw) GRACE=$(token grace grace-pw) ADA=$(token ada ada-pw)
LEAD=$(token vision-lead vision-lead-pw) SPEECH=$(token speech-lead speech-lead-pw)

call "$ADMIN" PUT /api/quotas '{"group":"vision","category":"training","guaranteed":4,"budget_gpu_h":100000,"why":"vision trains"}' >/dev/null
call "$ADMIN" PUT /api/quotas '{"group":"speech","category":"training","guaranteed":4,"lend_limit":4,"why":"speech trains"}' >/dev/null
call "$GRACE" POST /api/changes/1/approve '{"note":"agreed"}' >/dev/null
call "$GRACE" POST /api/changes/2/approve '{"note":"agreed"}' >/dev/null

node_token=$(RUST_LOG=warn "$bin" admin "${on[@]}" node-token node-1 --pool east | grep -o 'tpn_[^ ]*')
TIDEPOOL_NODE_TOKEN=$node_token "$bin" agent --server "$S" --fake-gpus 8xA100-80G --state-dir node-1 \
  --checkpoint-root checkpoints --wait-s 1 --sandbox none >agent.log 2>&1 &
pids+=($!)
# Specs may name only GPU models the cluster has: wait for the node.
until [ "$(call "$ADA" GET /api/nodes | jq '.nodes | length')" -gt 0 ] 2>/dev/null; do sleep 0.2; done

call "$ADA" POST /api/templates '{"name":"eval-1gpu","gpus":1,"category":"training","class":"experiment","command":"echo eval"}' >/dev/null
submit() { call "$ADA" POST /api/jobs "$1" | jq -r .id; }
state() { call "$ADA" GET "/api/jobs/$1" | jq -r .state; }
until_state() { until [ "$(state "$1")" = "$2" ]; do sleep 0.5; done; }
ok=$(submit '{"name":"ok","command":"echo done","gpus":1,"tags":["baseline"]}')
fail=$(submit '{"name":"fails","command":"echo oops; exit 3","gpus":1}')
slow=$(submit '{"name":"too-slow","command":"sleep 600","gpus":1,"time_limit_s":60}')
until_state "$ok" succeeded
until_state "$fail" failed
until_state "$slow" timed-out
gone=$(submit '{"name":"cancelled","command":"sleep 600","gpus":2}')
until_state "$gone" running
call "$ADA" POST "/api/jobs/$gone/cancel" >/dev/null
runs=$(submit '{"name":"runs","command":"sleep 3000","gpus":4,"checkpointable":true}')
until_state "$runs" running
waits=$(submit '{"name":"waits","command":"sleep 3000","gpus":4}')
until [ "$(call "$ADA" GET "/api/jobs/$waits" | jq -r '.reason // empty')" != "" ]; do sleep 0.5; done
call "$SPEECH" POST /api/loans "{\"lender\":\"vision\",\"gpus\":2,\"ends_at\":$(($(date +%s) + 360 * 86400)),\"why\":\"evaluation\"}" >/dev/null
call "$LEAD" POST /api/loans/1/approve '{"note":"approved"}' >/dev/null
curl -sf -XPOST "$S/api/policies?note=fifo%20trial" -H "authorization: Bearer $ADMIN" --data-binary "@$fifo" >/dev/null
call "$ADMIN" POST "/api/policies/$(sha256sum "$fifo" | cut -c1-64)/shadow" >/dev/null
sleep 3   # a few agent syncs: usage samples
kill "${pids[@]}"
wait 2>/dev/null || true
pids=()

out="$root/tests/upgrade"
if [ "$engine" = sqlite ]; then
  sqlite3 data/tidepool.db .dump >"$out/sqlite.sql"
else
  # Plain INSERTs (no COPY) and no psql meta-commands: the test runs it as one SQL script.
  pg_dump --inserts --no-owner --no-privileges --dbname="$url" | grep -v '^\\' >"$out/postgres.sql"
  psql -q "$base" -c 'DROP DATABASE tidepool_fixture'
fi
echo "wrote tests/upgrade/$engine.sql ($(wc -c <"$out/$engine.sql") bytes) with $("$bin" --version)"
