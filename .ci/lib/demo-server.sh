# Sourced by the CI steps that need a live server (.ci/schemathesis, .ci/clients):
#
#   start_demo_server BIN [VAR=VALUE ...]
#
# runs `BIN serve` on a free port with a fresh SQLite database (which seeds the demo agent), the
# extra VAR=VALUE in its environment, and waits until it answers. Then PARLEY_URL, PARLEY_KEY and
# PARLEY_PUBLISHABLE_KEY are set (from the line it prints for the README's first session) and
# DEMO_LOG is its log. The server is stopped and its files removed when the calling script exits.

start_demo_server() {
  local bin="$1"
  shift
  DEMO_WORK="$(mktemp -d)"
  DEMO_LOG="$DEMO_WORK/server.log"
  local port
  port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  # Sandbox deliveries fast, so delivery records move while the step runs. Rate limits off: a
  # step's many requests from one key and one address would otherwise be 429s (documented, but
  # then nothing else would be tested); tests/rate_limits.rs covers them.
  env DATABASE_URL="sqlite://$DEMO_WORK/parley.db" PARLEY_SANDBOX_STEP_MS=100 \
    PARLEY_RATE_LIMIT_PER_MINUTE=0 PARLEY_SEARCH_RATE_LIMIT_PER_MINUTE=0 PARLEY_BAD_KEY_RATE_LIMIT_PER_MINUTE=0 \
    "$@" "$bin" serve --bind "127.0.0.1:$port" >"$DEMO_LOG" 2>&1 &
  DEMO_SERVER=$!
  trap stop_demo_server EXIT

  # A fresh database seeds a demo agent and prints its keys once, in the README's export line.
  local re='^ *export PARLEY_URL=([^ ]+) PARLEY_KEY=(sk_[A-Za-z0-9]+) PARLEY_PUBLISHABLE_KEY=(pk_[A-Za-z0-9]+)$'
  local line=""
  for _ in $(seq 1 120); do
    line="$(grep -m 1 -E "$re" "$DEMO_LOG" || true)"
    if [ -n "$line" ] && curl -sf "http://127.0.0.1:$port/v1/openapi.json" >/dev/null; then break; fi
    if ! kill -0 "$DEMO_SERVER" 2>/dev/null; then cat "$DEMO_LOG"; echo "parley exited"; exit 1; fi
    sleep 0.5
  done
  if [ -z "$line" ]; then cat "$DEMO_LOG"; echo "no demo key printed"; exit 1; fi
  [[ $line =~ $re ]]
  export PARLEY_URL="${BASH_REMATCH[1]}" PARLEY_KEY="${BASH_REMATCH[2]}" PARLEY_PUBLISHABLE_KEY="${BASH_REMATCH[3]}"
  if [ "$PARLEY_URL" != "http://127.0.0.1:$port" ]; then echo "parley printed $PARLEY_URL, not port $port"; exit 1; fi
}

stop_demo_server() {
  kill "$DEMO_SERVER" 2>/dev/null || true
  wait "$DEMO_SERVER" 2>/dev/null || true
  rm -rf "$DEMO_WORK"
}
