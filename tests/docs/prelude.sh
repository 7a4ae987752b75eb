# The top of the script tests/docs.sh writes from the handbook: the reader's shell, with
# the checks between blocks. Functions and variables start with __tp_ so no block's meet them.
set -eo pipefail
# The runner's stderr, kept: a failing block exits while its own output is redirected.
exec 3>&2
__tp_at="(before the first block)"
__tp_out="$TIDEPOOL_DOCS_WORK/out"
__tp_n=0
__tp_begin() { __tp_at=$1; __tp_n=$((__tp_n + 1)); echo "  block $__tp_n at $1" >&2; }
# Each line of the expected text, in order, must match a later line of the output; `…`
# stands for anything. Trailing blanks are ignored on both sides.
__tp_expect() {
  local want=$2 got=() i=0 line pat seg first rest
  mapfile -t got <"$__tp_out"
  while IFS= read -r line || [ -n "$line" ]; do
    line="${line%"${line##*[! ]}"}"
    [ -n "$line" ] || continue
    pat="" rest=$line
    while [[ $rest == *…* ]]; do
      seg=${rest%%…*}; rest=${rest#*…}
      pat+="$(printf '%q' "$seg")*"
    done
    [ -n "$rest" ] && pat+="$(printf '%q' "$rest")"
    [ -z "$pat" ] && pat='*'
    while :; do
      if [ "$i" -ge "${#got[@]}" ]; then
        echo "docs: the output of the block at $__tp_at lacks, in order, the line of $1:" >&3
        echo "    $line" >&3
        exit 1
      fi
      first="${got[$i]%"${got[$i]##*[! ]}"}"
      i=$((i + 1))
      eval "[[ \$first == $pat ]]" && break
    done
  done <"$want"
}
__tp_end() { [ -z "$TIDEPOOL_DOCS_SHOW" ] || sed 's/^/    | /' "$__tp_out" >&2; }
__tp_done() { __tp_at="(done)"; }
__tp_exit() {
  local rc=$?
  if [ "$__tp_at" != "(done)" ] && [ "$rc" != 0 ]; then
    echo "docs: the block at $__tp_at failed (exit $rc); it printed:" >&3
    sed 's/^/    | /' "$__tp_out" >&3 || true
  fi
  # Stop what the blocks started in the background (servers, agents), by their ids.
  local pids
  pids=$(jobs -p)
  [ -z "$pids" ] || kill $pids 2>/dev/null || true
  wait 2>/dev/null || true
  exit "$rc"
}
trap __tp_exit EXIT
