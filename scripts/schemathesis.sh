#!/usr/bin/env bash
# Issue 30: Schemathesis (pinned in tests/conformance/requirements.txt) against a running service and the
# committed openapi.json, with all its default checks. Starts the service on 127.0.0.1 with its own
# embedded PostgreSQL in a throwaway DATA_DIR (demo data seeded, so ids exist), logs in as the admin and
# fuzzes every operation except the two that end the session (logout, refresh). Exits with
# Schemathesis' status (0: no failure). Usage: scripts/schemathesis.sh [max examples per operation, default 20]
# [more st run options, e.g. --exclude-checks positive_data_acceptance]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

MAX_EXAMPLES="${1:-20}"
shift || true
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/finance-entries/clients"
VENV="$CACHE/schemathesis-venv"
REQUIREMENTS=tests/conformance/requirements.txt
if ! cmp -s "$REQUIREMENTS" "$VENV/requirements.txt" 2>/dev/null; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQUIREMENTS"
  cp "$REQUIREMENTS" "$VENV/requirements.txt"
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
PORT="$(free_port)"
PG_PORT="$(free_port)"
DATA_DIR="$(mktemp -d)"
chmod 755 "$DATA_DIR" # run as root, embedded PostgreSQL initialises it as its own user
PASSWORD="schemathesis-$(date +%s)-pw"
HOST=127.0.0.1 PORT="$PORT" EMBEDDED_PG_PORT="$PG_PORT" DATA_DIR="$DATA_DIR" ADMIN_PASSWORD="$PASSWORD" SEED_DEMO=true LOG_LEVEL=warn \
  node --import tsx server/main.ts >"$DATA_DIR/server.log" 2>&1 &
SERVER=$!
cleanup() { kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; rm -rf "$DATA_DIR"; }
trap cleanup EXIT

ready=
for _ in $(seq 1 300); do
  if curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1; then ready=1; break; fi
  sleep 1
done
if [ -z "$ready" ]; then
  echo "the service did not become ready in 300 s:" >&2
  cat "$DATA_DIR/server.log" >&2
  exit 1
fi
LOGIN="$(curl -s -X POST "http://127.0.0.1:$PORT/auth/login" -H 'Content-Type: application/json' \
  -d "{\"email\":\"admin@example.com\",\"password\":\"$PASSWORD\"}")"
TOKEN="$(printf '%s' "$LOGIN" | node -pe 'JSON.parse(require("fs").readFileSync(0)).access_token' 2>/dev/null)" || {
  echo "login failed: $LOGIN" >&2
  tail -20 "$DATA_DIR/server.log" >&2
  exit 1
}

"$VENV/bin/st" run openapi.json --url "http://127.0.0.1:$PORT" -H "Authorization: Bearer $TOKEN" \
  --max-examples "$MAX_EXAMPLES" --seed 1 --workers 2 --exclude-path-regex '^/auth/(logout|refresh)$' \
  --report junit --report-dir "$DATA_DIR/report" "$@"
