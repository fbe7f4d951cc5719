#!/usr/bin/env bash
# Issue 30: Schemathesis (pinned in tests/conformance/requirements.txt) against a running service and the
# committed openapi.json, with all its default checks; its configuration is tests/conformance/schemathesis.toml
# (which says what it changes, and why) and its one hook tests/conformance/hooks.py. Starts the service on
# 127.0.0.1 with its own embedded PostgreSQL in a throwaway DATA_DIR (demo data seeded, so ids exist) and a
# clean environment, logs in as the admin and fuzzes every operation except the two that end the session
# (logout, refresh). Then short runs, each described where it starts: other callers (a member without
# permissions, no caller at all, an app's API key), requests it must refuse (an unknown query parameter, the
# ingest rate limit, text/plain bodies, bodies over their limit), refresh and logout, stored objects in the states
# some answers need (tests/conformance/stored-objects.ts), and last a database that fails (500, 503). Prints
# the documented statuses no run reached (tests/conformance/status_coverage.py). Exits with Schemathesis' status
# (0: no failure in any run). Run by tests/conformance/schemathesis.hard.ts (npm run test:hard).
# Usage: scripts/schemathesis.sh [max examples per operation of the admin's run, default 20] [more st run options]
# (SECOND_CALLER_EXAMPLES: examples per operation of the runs of the other callers, default 5)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

MAX_EXAMPLES="${1:-20}"
shift || true
SECOND_CALLER_EXAMPLES="${SECOND_CALLER_EXAMPLES:-5}"
ST_OPTIONS=("$@")
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
# The JUnit report and the HAR of every request and response; kept when SCHEMATHESIS_REPORT_DIR names a directory.
REPORT_DIR="${SCHEMATHESIS_REPORT_DIR:-$DATA_DIR/report}"
chmod 755 "$DATA_DIR" # run as root, embedded PostgreSQL initialises it as its own user
PASSWORD="schemathesis-$(date +%s)-pw"
# The ingest limit (CONTRACT §12: per key and minute, configurable, 600 by default), low enough for a short run to
# go over it (the run ingest-rate-limit below); the admin's run sends ingest about 250 requests in 3 minutes.
INGEST_RATE_PER_MINUTE=30
# env -i: nothing of the caller's environment (a DATABASE_URL, WEBHOOK_ALLOW_PRIVATE_HOSTS, limits) reaches it.
# Generated webhook and provider URLs name hosts anywhere: the service looks them up (its address guard) and
# calls some (a test delivery). A slow resolver answer or host must not outlast a request's timeout, so DNS
# gives up after one 1-second try (RES_OPTIONS, read by the C library's resolver) and outbound calls after 2 s.
# start_service [VAR=value ...]: start the service (on the same DATA_DIR, so with what earlier runs left) and wait
# until it is ready; the arguments are settings beyond the run's own
start_service() {
  env -i PATH="$PATH" HOME="$HOME" HOST=127.0.0.1 PORT="$PORT" EMBEDDED_PG_PORT="$PG_PORT" DATA_DIR="$DATA_DIR" \
    ADMIN_PASSWORD="$PASSWORD" SEED_DEMO=true LOG_LEVEL=warn RES_OPTIONS='timeout:1 attempts:1' \
    WEBHOOK_TIMEOUT_MS=2000 ACCOUNTING_PROVIDER_TIMEOUT_MS=2000 INGEST_RATE_PER_MINUTE="$INGEST_RATE_PER_MINUTE" "$@" \
    node --import tsx server/main.ts >>"$DATA_DIR/server.log" 2>&1 &
  SERVER=$!
  local ready=
  for _ in $(seq 1 300); do
    if curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1; then ready=1; break; fi
    sleep 1
  done
  if [ -z "$ready" ]; then
    echo "the service did not become ready in 300 s:" >&2
    cat "$DATA_DIR/server.log" >&2
    exit 1
  fi
}
SERVER=
FUZZER=
cleanup() {
  [ -n "$FUZZER" ] && kill "$FUZZER" 2>/dev/null || true
  [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$DATA_DIR"
}
trap cleanup EXIT
trap 'exit 143' TERM INT # killed (a test's timeout): still stop the fuzzer and the service
start_service
BASE="http://127.0.0.1:$PORT"
# api METHOD PATH JSON-BODY FIELD: print FIELD (a dotted path) of the JSON answer; fail loudly otherwise
api() {
  local auth=() answer
  [ -n "${TOKEN:-}" ] && auth=(-H "Authorization: Bearer $TOKEN")
  answer="$(curl -s -X "$1" "$BASE$2" "${auth[@]}" -H 'Content-Type: application/json' ${3:+-d "$3"})"
  printf '%s' "$answer" | node -e '
    const v = process.argv[1].split(".").reduce((o, k) => o?.[k], JSON.parse(require("fs").readFileSync(0, "utf8")));
    if (v === undefined) process.exit(1);
    console.log(v);' "$4" 2>/dev/null || {
    echo "$1 $2 failed: $answer" >&2
    tail -20 "$DATA_DIR/server.log" >&2
    exit 1
  }
}
TOKEN="$(api POST /auth/login "{\"email\":\"admin@example.com\",\"password\":\"$PASSWORD\"}" access_token)"
# The run's own user, and a spare user (a member of the demo workspace 1 and its project 1) that
# tests/conformance/hooks.py puts in its place where a request would edit, deactivate or remove it.
SCHEMATHESIS_ADMIN_USER_ID="$(api GET /auth/me '' id)"
RUN_ADMIN_ID="$SCHEMATHESIS_ADMIN_USER_ID" # the hook's SCHEMATHESIS_ADMIN_USER_ID names the second caller in its run
SCHEMATHESIS_SPARE_USER_ID="$(api POST /users \
  "{\"email\":\"spare@schemathesis.test\",\"name\":\"Spare\",\"password\":\"$PASSWORD\",\"permissions\":[]}" id)"
api POST /workspaces/1/members "{\"userId\":\"$SCHEMATHESIS_SPARE_USER_ID\"}" userId >/dev/null
api POST /projects/1/members "{\"userId\":\"$SCHEMATHESIS_SPARE_USER_ID\"}" userId >/dev/null
# The integration whose key the hook puts on the ingest requests (X-API-Key), so that they reach the operation.
SCHEMATHESIS_INGEST_KEY="$(api POST /integrations '{"workspaceId":1,"name":"Schemathesis ingest"}' apiKey)"
export SCHEMATHESIS_ADMIN_USER_ID SCHEMATHESIS_SPARE_USER_ID SCHEMATHESIS_INGEST_KEY
export SCHEMATHESIS_HOOKS=tests/conformance/hooks.py
export HYPOTHESIS_STORAGE_DIRECTORY="$DATA_DIR/hypothesis" # not .hypothesis/ in the repo

# One worker: with two, Schemathesis' threads parse source concurrently (Hypothesis describes its filter
# lambdas with ast.parse), which CPython can fail with "SystemError: AST constructor recursion depth mismatch"
# (seen with 3.11.7; CPython issue gh-106905), ending the run with an internal error. A fixed seed and no
# example database (nothing kept between runs) make every run draw the same cases, as far as the service's
# answers (new ids, times) let it. A request may take 30 s (default 10) before it counts as a network error,
# for a busy machine. The access token lasts 15 minutes (CONTRACT §4): a run must end before that.
# fuzz NAME TOKEN EXAMPLES [st run options]: one run as the caller whose access token is TOKEN (none when empty)
fuzz() {
  local name="$1" examples="$3" auth=()
  [ -n "$2" ] && auth=(-H "Authorization: Bearer $2")
  shift 3
  echo "=== Schemathesis run: $name ==="
  "$VENV/bin/st" --config-file tests/conformance/schemathesis.toml run openapi.json --url "http://127.0.0.1:$PORT" \
    "${auth[@]}" --max-examples "$examples" --seed 1 --workers 1 --generation-database none \
    --request-timeout 30 --no-color --report "${REPORTS:-junit,har}" --report-dir "$REPORT_DIR/$name" "$@" "${ST_OPTIONS[@]}" &
  FUZZER=$! # in the background, so that a TERM is handled at once (bash waits for a foreground command first)
  wait "$FUZZER" || status=$?
  FUZZER=
}
SESSION_ENDS='^/auth/(logout|refresh)$' # logout and refresh end the run's session
# The checks that judge an answer against the document, for the runs whose requests are wrong on purpose (below)
BODY_CHECKS=not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance
fuzz admin "$TOKEN" "$MAX_EXAMPLES" --exclude-path-regex "$SESSION_ENDS"
# The second caller: a user created now (the first run may have deactivated the spare), a member of workspace
# 1 and project 1 without any permission. Its run reaches the 403s of the operations that need a permission
# (the admin holds them all) and checks those answers against the document as the first run checks the rest.
# Its hook guard turns around: a request that would deactivate or remove this user names the admin instead.
if [ "${status:-0}" -eq 0 ]; then
  SECOND_ID="$(api POST /users \
    "{\"email\":\"second@schemathesis.test\",\"name\":\"Second\",\"password\":\"$PASSWORD\",\"permissions\":[]}" id)"
  api POST /workspaces/1/members "{\"userId\":\"$SECOND_ID\"}" userId >/dev/null
  api POST /projects/1/members "{\"userId\":\"$SECOND_ID\"}" userId >/dev/null
  SECOND_TOKEN="$(api POST /auth/login "{\"email\":\"second@schemathesis.test\",\"password\":\"$PASSWORD\"}" access_token)"
  SCHEMATHESIS_SPARE_USER_ID="$SCHEMATHESIS_ADMIN_USER_ID"
  SCHEMATHESIS_ADMIN_USER_ID="$SECOND_ID"
  fuzz without-permissions "$SECOND_TOKEN" "$SECOND_CALLER_EXAMPLES" --exclude-path-regex "$SESSION_ENDS" --phases fuzzing
fi
# No caller at all: every operation but the public ones is a 401 (the runs above send a token with nearly
# every request they make), logout and refresh included, as no session can end.
[ "${status:-0}" -eq 0 ] && fuzz without-token '' "$SECOND_CALLER_EXAMPLES" --phases fuzzing
# An app's API key (CONTRACT §19) in place of a session: it acts for workspace 1 with the permissions below, and the
# operations of a session (GET /auth/me, POST /auth/logout, /auth/refresh) refuse it. It ends nothing.
if [ "${status:-0}" -eq 0 ]; then
  APP_KEY="$(api POST /api-keys \
    '{"workspaceId":1,"name":"Schemathesis app","permissions":["entry.create","entry.edit","entry.note","party.create"]}' apiKey)"
  fuzz app-key "$APP_KEY" "$SECOND_CALLER_EXAMPLES" --phases examples,fuzzing
fi
# Query parameters no operation declares (CONTRACT §1: an unknown query parameter is a 400), as the admin: the hook
# adds one to every GET that documents a 400; those without parameters of their own reach their 400 only so.
if [ "${status:-0}" -eq 0 ]; then
  mkdir -p "$REPORT_DIR/unknown-query-parameter"
  REPORTS=junit SCHEMATHESIS_BODY_MODE=unknown-query-parameter \
    SCHEMATHESIS_STATUS_LOG="$REPORT_DIR/unknown-query-parameter/statuses.log" \
    fuzz unknown-query-parameter "$TOKEN" 1 --phases examples,fuzzing --checks "$BODY_CHECKS" --include-method GET
fi
# The ingest rate limit: a key of its own gets three times the limit of requests in one run of a few seconds, so
# whichever minutes they fall in, one minute has more than the limit (429 with Retry-After).
if [ "${status:-0}" -eq 0 ]; then
  RATE_KEY="$(api POST /integrations '{"workspaceId":1,"name":"Schemathesis rate limit"}' apiKey)"
  SCHEMATHESIS_INGEST_KEY="$RATE_KEY" fuzz ingest-rate-limit "$TOKEN" "$((INGEST_RATE_PER_MINUTE * 3))" \
    --phases fuzzing --include-name "POST /api/v1/ingest"
fi
# Bodies the service must turn away, as the admin: each operation that documents a 415 (413) gets a text/plain
# body (one over its size limit) from tests/conformance/hooks.py. These requests are wrong on purpose, so the
# checks are the ones that judge the answer against the document (documented status, content type, headers,
# schema, no 5xx), not the ones that judge whether the request should have been accepted. Logout and refresh are
# fuzzed too: their bodies are refused before the session is read. The documented examples come first (the upload
# operations need the ids of stored objects before they read a file). The statuses go to a log, not a HAR file,
# which would hold every oversized body.
# The two upload operations that read stored objects before the body get these ids from the hook in these runs.
SCHEMATHESIS_BODY_ACCOUNT_ID="$(api POST /bank-accounts \
  '{"workspaceId":1,"projectId":1,"name":"Schemathesis bodies","currency":"EUR"}' id)"
SCHEMATHESIS_BODY_ENTRY_ID="$(api POST /entries \
  "{\"projectId\":1,\"entryType\":\"EXPENSE\",\"baseCurrency\":\"EUR\",\"amountCents\":100,\"entryDate\":\"$(date +%F)\"}" id)"
SCHEMATHESIS_BODY_DOCUMENT_ID="$(api POST "/entries/$SCHEMATHESIS_BODY_ENTRY_ID/documents/request" \
  '{"documentName":"Receipt","documentType":"PAYMENT_PROOF"}' id)"
export SCHEMATHESIS_BODY_ACCOUNT_ID SCHEMATHESIS_BODY_ENTRY_ID SCHEMATHESIS_BODY_DOCUMENT_ID
for mode in unsupported-media-type too-large; do
  [ "${status:-0}" -eq 0 ] || break
  mkdir -p "$REPORT_DIR/$mode"
  REPORTS=junit SCHEMATHESIS_BODY_MODE="$mode" SCHEMATHESIS_STATUS_LOG="$REPORT_DIR/$mode/statuses.log" \
    fuzz "$mode" "$TOKEN" 1 --phases examples,fuzzing --checks "$BODY_CHECKS" \
    --include-method POST --include-method PUT --include-method PATCH
done
# The two operations that end a session, each with a new session of the admin's: refresh, then logout.
for ending in refresh logout; do
  [ "${status:-0}" -eq 0 ] || break
  SESSION_TOKEN="$(api POST /auth/login "{\"email\":\"admin@example.com\",\"password\":\"$PASSWORD\"}" access_token)"
  fuzz "session-$ending" "$SESSION_TOKEN" 1 --phases examples --include-path "/auth/$ending"
done
# The stored runs need one object only an external system makes (a sync record in CONFLICT): the setup reaches the
# tests' emulator of a custom provider on loopback, which the service calls only with ACCOUNTING_ALLOW_PRIVATE_HOSTS.
# So the service is restarted with it for the runs that follow (the fuzzing runs above had the default, off).
if [ "${status:-0}" -eq 0 ]; then
  kill "$SERVER"
  wait "$SERVER" 2>/dev/null || true
  start_service ACCOUNTING_ALLOW_PRIVATE_HOSTS=true
fi
# Stored objects, as the admin: tests/conformance/stored-objects.ts makes the objects some documented answers need
# (an open review to reject, a revoked integration to revoke again: a 409) and prints, for three runs, the requests
# that name them; the hook puts them into the requests of each named operation in that run. The checks are
# those of the body runs: whether a request should have been accepted is the plan's, not Schemathesis', to say.
if [ "${status:-0}" -eq 0 ]; then
  STORED_PLAN="$DATA_DIR/stored-objects.json"
  node --import tsx tests/conformance/stored-objects.ts "$BASE" "$TOKEN" "$RUN_ADMIN_ID" >"$STORED_PLAN"
  for run in stored-a stored-b stored-c; do
    [ "${status:-0}" -eq 0 ] || break
    names=()
    while IFS= read -r label; do names+=(--include-name "$label"); done < <(
      node -e 'for (const label of Object.keys(require(process.argv[1])[process.argv[2]])) console.log(label)' "$STORED_PLAN" "$run"
    )
    mkdir -p "$REPORT_DIR/$run"
    REPORTS=junit SCHEMATHESIS_STORED_PLAN="$STORED_PLAN" SCHEMATHESIS_STORED_RUN="$run" \
      SCHEMATHESIS_STATUS_LOG="$REPORT_DIR/$run/statuses.log" \
      fuzz "$run" "$TOKEN" 1 --phases examples,fuzzing --checks "$BODY_CHECKS" "${names[@]}"
  done
fi
# Server faults, as the admin, last: every operation documents 500 and 503, and a correct service answers them only
# when something outside it fails. So these runs make the database fail for real, then send each operation its
# documented examples (and one generated case), with the same checks as the body runs minus not_a_server_error,
# plus the hook's fault_answers (tests/conformance/hooks.py), which judges the 5xx answers against CONTRACT §2 and §22.
# - database-misconfigured: the service's database gets a search_path naming no schema, and its connections are
#   ended, so every new one finds none of the service's tables. Each request that reaches them is a 500, and the
#   500 says nothing but "Internal server error". The setting is then taken back.
# - database-down: PostgreSQL is stopped (a fast shutdown, as when the primary dies). Each request that needs it
#   is a 503 with Retry-After, never a 500 (§22). The run ends the script's use of the service.
# Logout and refresh are in both: with the database failing, neither can end the session.
PG_URL="postgres://postgres:$(cat "$DATA_DIR/pg-password")@127.0.0.1:$PG_PORT/finance"
# sql STATEMENT...: run each statement on the service's database as the superuser
sql() {
  node -e '
    const pg = require("pg");
    (async () => {
      const client = new pg.Client({ connectionString: process.argv[1] });
      await client.connect();
      for (const statement of process.argv.slice(2)) await client.query(statement);
      await client.end();
    })().catch((err) => { console.error(String(err)); process.exit(1); });' "$PG_URL" "$@"
}
END_SERVICE_CONNECTIONS="SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'finance' AND pid <> pg_backend_pid()"
FAULT_CHECKS="${BODY_CHECKS#not_a_server_error,},fault_answers"
fault_run() {
  local fault="$1"
  mkdir -p "$REPORT_DIR/$fault"
  REPORTS=junit SCHEMATHESIS_FAULT="$fault" SCHEMATHESIS_STATUS_LOG="$REPORT_DIR/$fault/statuses.log" \
    fuzz "$fault" "$TOKEN" 1 --phases examples,fuzzing --checks "$FAULT_CHECKS"
}
if [ "${status:-0}" -eq 0 ]; then
  sql "ALTER DATABASE finance SET search_path TO schemathesis_no_such_schema" "$END_SERVICE_CONNECTIONS"
  fault_run database-misconfigured
  sql "ALTER DATABASE finance RESET search_path" "$END_SERVICE_CONNECTIONS"
fi
if [ "${status:-0}" -eq 0 ]; then
  POSTMASTER="$(head -1 "$DATA_DIR/pg/postmaster.pid")"
  kill -INT "$POSTMASTER"
  while kill -0 "$POSTMASTER" 2>/dev/null; do sleep 0.2; done
  fault_run database-down
fi
if [ "${status:-0}" -ne 0 ]; then
  echo "--- last lines of the service log ---" >&2
  tail -40 "$DATA_DIR/server.log" >&2
else
  # the documented statuses no run reached, per operation (informational: see tests/conformance/status_coverage.py)
  echo "status coverage: $(python3 tests/conformance/status_coverage.py openapi.json "$REPORT_DIR"/*/har-*.json "$REPORT_DIR"/*/statuses.log | tr -d '\n')"
fi
exit "${status:-0}"
