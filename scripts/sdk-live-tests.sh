#!/usr/bin/env bash
# Runs the Python and Go SDK tests against a real `authority serve`: starts the built CLI on a
# temporary embedded (SQLite) data directory on a free port, creates a tenant and an admin key with
# the CLI, exports AUTHORITY_URL, AUTHORITY_TENANT and AUTHORITY_API_KEY, runs
# `python3 -m unittest discover` in sdks/python (Debian's /usr/bin/python3, which has python3-jwt and
# python3-cryptography) and `go test ./...` in sdks/go, prints both summaries and stops the server.
# Needs `npm run build` first. Exits non-zero when either suite fails.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
cli="$root/packages/server/dist/cli/main.js"
python="${SDK_PYTHON:-/usr/bin/python3}"
[ -f "$cli" ] || { echo "FATAL: $cli is missing: run npm run build first" >&2; exit 2; }
command -v go >/dev/null || { echo "FATAL: go is not installed (apt-get install golang-go)" >&2; exit 2; }
"$python" -c 'import jwt, cryptography' 2>/dev/null \
  || { echo "FATAL: $python lacks PyJWT or cryptography (apt-get install python3-jwt python3-cryptography)" >&2; exit 2; }

data="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" && wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$data"
}
trap cleanup EXIT

# Embedded mode only: whatever the caller's environment says about PostgreSQL, Redis or keys.
authority() { env -u DATABASE_URL -u REDIS_URL -u AUTHORITY_MASTER_KEY node "$cli" --data-dir "$data/db" "$@"; }
json_field() { node -e 'let t="";process.stdin.on("data",c=>t+=c).on("end",()=>{let v=JSON.parse(t);for(const k of process.argv[1].split("."))v=v[k];console.log(v)})' "$1"; }

tenant="sdk-tests"
authority tenants create "$tenant" --plan enterprise --rate-limit 100000 > "$data/tenant.json"
authority keys create --tenant "$tenant" --name sdk-live-tests --role admin > "$data/key.json"
api_key="$(json_field key < "$data/key.json")"

# exec: $! is then the server itself, so the cleanup stops it rather than a wrapping subshell.
(exec env -u DATABASE_URL -u REDIS_URL -u AUTHORITY_MASTER_KEY LOG_LEVEL=warn \
  node "$cli" --data-dir "$data/db" serve --port 0 --host 127.0.0.1 > "$data/serve.out" 2> "$data/serve.err") &
server_pid=$!
url=""
for _ in $(seq 1 150); do
  url="$(sed -n 's/^Authority Runtime listening on \(http:[^ ]*\) .*/\1/p' "$data/serve.out")"
  [ -n "$url" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$data/serve.out" "$data/serve.err" >&2; echo "FATAL: serve exited" >&2; exit 1; }
  sleep 0.2
done
[ -n "$url" ] || { cat "$data/serve.err" >&2; echo "FATAL: serve did not start" >&2; exit 1; }
echo "== authority serve at $url (tenant $tenant, data in $data)"

export AUTHORITY_URL="$url" AUTHORITY_TENANT="$tenant" AUTHORITY_API_KEY="$api_key"
status=0

echo "== Python SDK: $python -m unittest discover (sdks/python)"
if (cd sdks/python && "$python" -m unittest discover -v 2> "$data/python.log"); then python_result="passed"; else python_result="FAILED"; status=1; fi
grep -E '^(FAIL|ERROR):' "$data/python.log" || true
[ "$python_result" = "passed" ] || cat "$data/python.log"
python_summary="$(grep -E '^Ran [0-9]+ tests' "$data/python.log" || echo 'no summary'); $(tail -n 1 "$data/python.log")"

echo "== Go SDK: go test ./... (sdks/go)"
if (cd sdks/go && go vet ./... && go test -count=1 -v ./... > "$data/go.log" 2>&1); then go_result="passed"; else go_result="FAILED"; status=1; fi
grep -E '^(--- FAIL|FAIL|ok|panic)' "$data/go.log" || true
[ "$go_result" = "passed" ] || cat "$data/go.log"
go_summary="$(grep -c -- '--- PASS' "$data/go.log" || true) passed, $(grep -c -- '--- FAIL' "$data/go.log" || true) failed, tests and subtests"

echo "== summary"
echo "Python: $python_result ($python_summary)"
echo "Go:     $go_result ($go_summary)"
exit "$status"
