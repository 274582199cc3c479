#!/usr/bin/env bash
# Runs Codali's bundled example end to end: starts `codali up` on an
# embedded JetStream server (random ports, temporary data directory),
# submits the hello example, follows it until its verdict, shows the audit
# history, and stops everything.
set -euo pipefail

codali=${1:-bin/codali}
here=$(cd "$(dirname "$0")/.." && pwd)
data=$(mktemp -d)
up_pid=""
cleanup() {
  if [ -n "$up_pid" ]; then kill "$up_pid" 2>/dev/null || true; wait "$up_pid" 2>/dev/null || true; fi
  rm -rf "$data"
}
trap cleanup EXIT

"$codali" up --data "$data" --listen 127.0.0.1:0 --http 127.0.0.1:0 --log-level warn >"$data/up.out" 2>"$data/up.log" &
up_pid=$!

url=""
for _ in $(seq 1 300); do
  url=$(grep -o 'nats://[0-9.]*:[0-9]*' "$data/up.out" 2>/dev/null || true)
  [ -n "$url" ] && break
  if ! kill -0 "$up_pid" 2>/dev/null; then cat "$data/up.log" >&2; echo "demo: codali up exited" >&2; exit 1; fi
  sleep 0.1
done
[ -n "$url" ] || { echo "demo: codali up did not start" >&2; cat "$data/up.log" >&2; exit 1; }
echo "== codali up is serving at $url"
echo

request='Make Greet return "Hello, <name>!", and "Hello, world!" when the name is empty.'
echo "== codali submit --repo examples/hello --wait \"$request\""
set +e
"$codali" submit --nats "$url" --repo "$here/examples/hello" --wait --timeout 5m "$request" | tee "$data/submit.out"
status=${PIPESTATUS[0]}
set -e
echo
if [ "$status" -ne 0 ]; then
  echo "demo: the run did not pass (exit $status); service log:" >&2
  tail -50 "$data/up.log" >&2
  exit 1
fi
if ! grep -q "critic .*retry" "$data/submit.out"; then
  echo "demo: expected one critic→architect retry before the pass" >&2
  exit 1
fi

run=$(grep -o 'run [0-9a-z]* passed' "$data/submit.out" | awk '{print $2}')
# The recorder writes the history asynchronously; wait until it has the verdict.
for _ in $(seq 1 100); do
  "$codali" runs --nats "$url" --json | grep -q '"status": "passed"' && break
  sleep 0.1
done
echo "== codali runs"
"$codali" runs --nats "$url"
echo
echo "== codali rao replay $run --simulate (timeline)"
"$codali" rao replay --nats "$url" --simulate "$run" | sed -n '1,/^state after/p'
echo "== codali rao verify $run"
"$codali" rao verify --nats "$url" "$run"
echo "== codali rao stats"
"$codali" rao stats --nats "$url"
echo
echo "== codali context export $run (Cognitive Protocol .context/ projected from the audit history)"
"$codali" context export --nats "$url" "$run" "$data/export"
(cd "$data/export/.context" && find . -type f | sort)
echo "== codali rao rerun $run (offline: every model request answered from the recorded exchanges)"
"$codali" rao rerun --nats "$url" "$run"
echo
echo "demo: run $run passed after one critic→architect retry"
