#!/usr/bin/env bash
# Runs the handbook (docs/) as a reader would: every fenced `sh` block of every page, in
# the order docs/README.md links the pages, in one shell (variables set by one block are
# there in the next), against the real binary, from a fresh folder, on a free port. A
# `text` block right after an `sh` block is its expected output: each of its lines must
# appear, in order, in what the block printed (`…` matches anything). A block preceded by
# `<!-- not-run: REASON -->` or `<!-- not-run-yet: REASON -->` is skipped and listed.
# A failure names the page and line of the block, and shows what it printed.
#
#   tests/docs.sh            # TIDEPOOL_BIN, else $CARGO_TARGET_DIR/debug/tidepool
#   tests/docs.sh --list     # only list the blocks and what happens to each
#   TIDEPOOL_DOCS_SHOW=1 tests/docs.sh   # also print what each block printed (to write a page)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/tidepool/target}"
bin="${TIDEPOOL_BIN:-$CARGO_TARGET_DIR/debug/tidepool}"
list_only=0
[ "${1:-}" = "--list" ] && list_only=1
[ -x "$bin" ] || { echo "docs: no tidepool binary at $bin (build it, or set TIDEPOOL_BIN)" >&2; exit 2; }

# The pages, in the index's order; a page the index does not link is an error, so no
# page escapes the test.
pages=(docs/README.md)
while IFS= read -r p; do
  [[ " ${pages[*]} " == *" docs/$p "* ]] || pages+=("docs/$p")
done < <(grep -oE '\]\([a-z0-9-]+\.md' docs/README.md | sed 's/^](//')
for f in docs/*.md; do
  [[ " ${pages[*]} " == *" $f "* ]] || { echo "docs: $f is not linked from docs/README.md" >&2; exit 1; }
done

work=$(mktemp -d)
# Two free ports stand for the handbook's 127.0.0.1:8080 and 127.0.0.1:8081.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(free_port)
port2=$(free_port)
ports() { sed "s/127\\.0\\.0\\.1:8080/127.0.0.1:$port/g; s/127\\.0\\.0\\.1:8081/127.0.0.1:$port2/g"; }
script="$work/handbook.sh"
skipped="$work/skipped"
: >"$skipped"
mkdir -p "$work/bin" "$work/expect" "$work/home" "$work/tmp"
ln -s "$bin" "$work/bin/tidepool"

# One pass over the pages writes the script: each `sh` block in a brace group whose
# output is kept (the group runs in the same shell, so its variables stay), then the
# check of its `text` block when one follows.
{
  cat "$root/tests/docs/prelude.sh"
  n=0
  for page in "${pages[@]}"; do
    lineno=0 in_block="" lang="" start=0 skip="" last="" after_sh=""
    while IFS= read -r line || [ -n "$line" ]; do
      lineno=$((lineno + 1))
      if [ -z "$in_block" ]; then
        if [[ $line =~ ^\`\`\`([a-z]*) ]]; then
          in_block=1 lang=${BASH_REMATCH[1]} start=$lineno body=""
          skip=""
          [[ $last =~ ^\<\!--\ (not-run(-yet)?):\ (.*)\ --\>$ ]] && skip="${BASH_REMATCH[1]}: ${BASH_REMATCH[3]}"
        elif [ -n "$line" ]; then
          last=$line after_sh=""
        fi
        continue
      fi
      if [ "$line" = '```' ]; then
        in_block=""
        at="$page:$start"
        if [ "$lang" = sh ] && [ -n "$skip" ]; then
          printf '%s\t%s\n' "$at" "$skip" >>"$skipped"
          last="" after_sh=""
        elif [ "$lang" = sh ]; then
          n=$((n + 1))
          printf '\n__tp_begin %q\n{\n%s\n} >"$__tp_out" 2>&1 </dev/null\n__tp_end\n' "$at" "$(ports <<<"$body")"
          last="" after_sh=$n
        elif [ "$lang" = text ] && [ -n "$after_sh" ]; then
          ports <<<"$body" >"$work/expect/$after_sh"
          printf '__tp_expect %q %q\n' "$at" "$work/expect/$after_sh"
          last="" after_sh=""
        else
          last="" after_sh=""
        fi
        continue
      fi
      body+="$line"$'\n'
    done <"$page"
  done
  echo '__tp_done'
} >"$script"

if [ "$list_only" = 1 ]; then
  grep -o '^__tp_begin .*' "$script" | sed 's/^__tp_begin /run      /'
  sed 's/^/skipped  /' "$skipped"
  exit 0
fi

echo "docs: running the handbook's blocks against $bin on 127.0.0.1:$port in $work"
# The reader's shell: their PATH holds tidepool, their session lives in a fresh home.
status=0
env -i PATH="$work/bin:$PATH" HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" \
  LANG="${LANG:-C.UTF-8}" TMPDIR="$work/tmp" TIDEPOOL_DOCS_WORK="$work" \
  CARGO_TARGET_DIR="$CARGO_TARGET_DIR" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" \
  CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" TIDEPOOL_DOCS_SHOW="${TIDEPOOL_DOCS_SHOW:-}" \
  timeout "${TIDEPOOL_DOCS_TIMEOUT_S:-900}" bash "$script" || status=$?
if [ -s "$skipped" ]; then
  echo "docs: blocks not run, and why:"
  sed 's/^/  /' "$skipped"
fi
[ "$status" = 0 ] || { echo "docs: FAILED (exit $status)" >&2; exit 1; }
rm -rf "$work"
echo "docs: every block ran as written"
