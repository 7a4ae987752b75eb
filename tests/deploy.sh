#!/usr/bin/env bash
# Checks the deploy kit (deploy/) for real, as far as this machine allows:
# 1. the systemd units pass `systemd-analyze verify` (any warning fails) in a root that
#    holds the binary they start, and their exposure score is printed;
# 2. the Containerfile's runtime stage builds with podman from a base assembled here (no
#    registry: busybox, bash and the shared libraries the binary needs, imported as a
#    tarball) and a binary, web app and policy modules built already (this script builds
#    nothing with cargo): the image then serves /healthz and the web app, runs as its
#    non-root user, passes its own HEALTHCHECK, holds valid default modules and stops
#    cleanly on its STOPSIGNAL;
# 3. podman-compose reads deploy/compose.yaml (it is not brought up: see deploy/README.md).
# The builder stage (a Rust toolchain image from a registry) is not run here.
# Takes the binary from TIDEPOOL_BIN, else $CARGO_TARGET_DIR/debug (or release); the web
# app from TIDEPOOL_WEB_DIR, else $CARGO_TARGET_DIR/web; the modules from
# TIDEPOOL_POLICY_DIR, else $CARGO_TARGET_DIR/policies. Without podman it skips parts 2-3
# (and fails instead when TIDEPOOL_REQUIRE_TOOLS=1, as the test command sets).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
target="${CARGO_TARGET_DIR:-$HOME/.cache/tidepool/target}"
bin="${TIDEPOOL_BIN:-}"
if [ -z "$bin" ]; then
  bin="$target/debug/tidepool"
  [ -x "$bin" ] || bin="$target/release/tidepool"
fi
web="${TIDEPOOL_WEB_DIR:-$target/web}"
policies="${TIDEPOOL_POLICY_DIR:-$target/policies}"
for need in "$bin" "$web/index.html" "$policies/priority.wasm"; do
  [ -e "$need" ] || { echo "deploy test: $need is missing (build the server, frontend/build.sh, tests/build-policies.sh)" >&2; exit 1; }
done
started=$(date +%s)
work=$(mktemp -d)
tag="deploy-test-$$"
cleanup() {
  if command -v podman >/dev/null; then
    podman rm -f -t 0 "tidepool-$tag" >/dev/null 2>&1 || true
    podman rmi -f "localhost/tidepool:$tag" "localhost/tidepool-base:$tag" "localhost/tidepool-artifacts:$tag" >/dev/null 2>&1 || true
    podman volume rm -f "tidepool-data-$tag" >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "deploy test FAILED: $*" >&2; exit 1; }
missing() {
  if [ "${TIDEPOOL_REQUIRE_TOOLS:-}" = 1 ]; then fail "$1 is not installed"; fi
  echo "deploy test: SKIPPED $2: $1 is not installed"
}

echo "-- systemd units"
if command -v systemd-analyze >/dev/null; then
  root="$work/root"
  mkdir -p "$root/usr/local/bin" "$root/etc/systemd/system" "$root/usr/lib/systemd"
  cp -r /usr/lib/systemd/system "$root/usr/lib/systemd/"
  # verify wants an executable where ExecStart points (a link out of the root is not one).
  ln "$(readlink -f "$bin")" "$root/usr/local/bin/tidepool" 2>/dev/null || cp "$bin" "$root/usr/local/bin/tidepool"
  cp deploy/systemd/*.service "$root/etc/systemd/system/"
  for unit in tidepool-server.service tidepool-agent.service; do
    out=$(systemd-analyze verify --root="$root" "$unit" 2>&1) || fail "systemd-analyze verify $unit: $out"
    [ -z "$out" ] || fail "systemd-analyze verify $unit warns: $out"
    score=$(systemd-analyze security --offline=yes --root="$root" "$unit" 2>&1 | tail -n 1)
    echo "$unit: verified; ${score#→ }"
  done
else
  missing systemd-analyze "the units' check"
fi

if ! command -v podman >/dev/null || ! command -v runc >/dev/null || ! command -v busybox >/dev/null; then
  missing "podman, runc or busybox" "the image and compose checks"
  exit 0
fi
# runc: crun cannot run under cgroup v1 controllers; no default ulimits: some sandboxes
# refuse setrlimit (see deploy/README.md).
printf '[containers]\ndefault_ulimits = []\n' >"$work/containers.conf"
export CONTAINERS_CONF="$work/containers.conf"
# Without systemd, podman cannot add the timer that repeats a HEALTHCHECK and says so;
# the test runs the check itself (podman healthcheck run).
pm() { podman --runtime runc "$@" 2> >(grep -v 'systemd connection' >&2); }

echo "-- the base image (busybox, bash, the binary's libraries)"
base="$work/base"
mkdir -p "$base/bin" "$base/etc" "$base/tmp" "$base/usr/sbin"
chmod 1777 "$base/tmp"
cp "$(command -v busybox)" "$base/bin/busybox"
for applet in $(busybox --list); do [ -e "$base/bin/$applet" ] || ln -s busybox "$base/bin/$applet"; done
cp "$(readlink -f "$(command -v bash)")" "$base/bin/bash"
ln -s /bin/false "$base/usr/sbin/nologin"
for lib in $( (ldd "$bin"; ldd "$(command -v bash)") | grep -o '/[^ ]*' | sort -u); do
  mkdir -p "$base$(dirname "$lib")"
  cp -L "$lib" "$base$lib"
done
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$base/etc/passwd"
printf 'root:x:0:\n' >"$base/etc/group"
tar -C "$base" -cf "$work/base.tar" .
pm import -q --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin' "$work/base.tar" "localhost/tidepool-base:$tag" >/dev/null

echo "-- the artifacts image (binary without debug info, web app, modules)"
art="$work/artifacts/out"
mkdir -p "$art/bin" "$art/web" "$art/policies"
objcopy --strip-debug "$bin" "$art/bin/tidepool" 2>/dev/null || cp "$bin" "$art/bin/tidepool"
shim="$(dirname "$bin")/tidepool-shim"
objcopy --strip-debug "$shim" "$art/bin/tidepool-shim" 2>/dev/null || cp "$shim" "$art/bin/tidepool-shim"
cp -r "$web/." "$art/web/"
# The defaults and the examples; not the test suite's hostile modules.
for module in "$policies"/*.wasm; do
  case "$(basename "$module")" in hostile*|wasi-snoop*) ;; *) cp "$module" "$art/policies/" ;; esac
done
tar -C "$work/artifacts" -cf "$work/artifacts.tar" .
pm import -q "$work/artifacts.tar" "localhost/tidepool-artifacts:$tag" >/dev/null

echo "-- podman build --target runtime (deploy/Containerfile)"
mkdir -p "$work/context"
build_started=$(date +%s)
pm build -q --pull=never --format docker --network none --target runtime \
  --build-arg "RUNTIME_IMAGE=localhost/tidepool-base:$tag" \
  --build-arg "ARTIFACTS=localhost/tidepool-artifacts:$tag" \
  -f deploy/Containerfile -t "localhost/tidepool:$tag" "$work/context" >/dev/null \
  || fail "podman build"
build_s=$(($(date +%s) - build_started))
image_size=$(podman image inspect -f '{{.Size}}' "localhost/tidepool:$tag")
base_size=$(podman image inspect -f '{{.Size}}' "localhost/tidepool-base:$tag")
echo "image built in ${build_s}s: $((image_size / 1000000)) MB (of which the test base $((base_size / 1000000)) MB)"
[ "$(podman image inspect -f '{{.Config.User}}' "localhost/tidepool:$tag")" = "10001:10001" ] || fail "the image's USER is not 10001:10001"

echo "-- the image's default modules are valid"
for module in priority quota reclaim; do
  pm run --rm --network none --no-healthcheck --entrypoint tidepool "localhost/tidepool:$tag" \
    policy check "/usr/share/tidepool/policies/$module.wasm" >/dev/null || fail "$module.wasm in the image does not pass policy check"
done

echo "-- the container serves"
port=$((20000 + $$ % 20000))
pm run -d --name "tidepool-$tag" -p "127.0.0.1:$port:8080" -v "tidepool-data-$tag:/var/lib/tidepool" \
  -e TIDEPOOL_ADMIN_PASSWORD=deploy-test-password "localhost/tidepool:$tag" >/dev/null
for _ in $(seq 1 150); do
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  sleep 0.2
done
curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null || { podman logs "tidepool-$tag" >&2; fail "no /healthz"; }
curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null || fail "/readyz is not 200"
curl -fsS "http://127.0.0.1:$port/" | grep -q tidepool_web || fail "/ does not serve the web app"
curl -fsS "http://127.0.0.1:$port/tidepool_web_bg.wasm" -o /dev/null || fail "the web app's module is not served"
pid=$(podman inspect -f '{{.State.Pid}}' "tidepool-$tag")
uid=$(awk '/^Uid:/ {print $3}' "/proc/$pid/status")
[ "$uid" = 10001 ] || fail "the server runs as uid $uid, not the image's user 10001"
pm exec "tidepool-$tag" sh -c '[ -f /var/lib/tidepool/secret ] && [ -f /var/lib/tidepool/tidepool.db ]' \
  || fail "the data volume lacks the secret or the database"
pm healthcheck run "tidepool-$tag" >/dev/null || fail "the image's HEALTHCHECK does not pass"
echo "healthz, readyz, web app: ok; runs as uid $uid; HEALTHCHECK healthy"
pm stop -t 20 "tidepool-$tag" >/dev/null
code=$(podman inspect -f '{{.State.ExitCode}}' "tidepool-$tag")
[ "$code" = 0 ] || fail "the server did not stop cleanly on its STOPSIGNAL (exit code $code)"

echo "-- deploy/compose.yaml"
# podman-compose (TIDEPOOL_PODMAN_COMPOSE, else on PATH, else pinned in a venv) reads and interpolates it with the
# example env file. Not brought up here: podman 4.3 cannot wait for a healthy service and
# fails to start services whose dependencies have exited (deploy/README.md, "Checked").
compose="${TIDEPOOL_PODMAN_COMPOSE:-$(command -v podman-compose || true)}"
if [ -z "$compose" ]; then
  # From the package index, pinned, in a venv outside the clone (made once per pin).
  venv="$target/podman-compose-1.6.0"
  if [ ! -x "$venv/bin/podman-compose" ]; then
    rm -rf "$venv"
    { python3 -m venv "$venv" && "$venv/bin/pip" install --quiet --disable-pip-version-check --no-input podman-compose==1.6.0; } >&2 \
      || rm -rf "$venv"
  fi
  [ -x "$venv/bin/podman-compose" ] && compose="$venv/bin/podman-compose"
fi
if [ -n "$compose" ]; then
  out=$("$compose" -f deploy/compose.yaml --env-file deploy/compose.env.example config 2>&1) \
    || fail "podman-compose cannot read deploy/compose.yaml: $out"
  for service in postgres tokens server-1 server-2 agent-a agent-b; do
    grep -q "^  $service:" <<<"$out" || fail "compose.yaml has no service $service"
  done
  grep -q -- "--server http://server-1:8080,http://server-2:8080" <<<"$out" || fail "the agents do not list both servers"
  echo "compose.yaml: read by $("$compose" --version 2>/dev/null | head -n 1)"
else
  echo "deploy test: compose.yaml not read: podman-compose is not installed"
fi
echo "deploy test passed in $(($(date +%s) - started))s"
