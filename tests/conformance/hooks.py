"""Schemathesis hook of the conformance run (scripts/schemathesis.sh sets SCHEMATHESIS_HOOKS to this file).

It changes five things in the requests Schemathesis generates: the first three so that the runs reach the
operations instead of the consequences of their own earlier requests, the fourth for the runs that send requests
the service must refuse, the fifth for the runs that need stored objects. It adds one check (6) and touches none
of Schemathesis' own.

1. Idempotency keys. Every POST takes an optional Idempotency-Key (CONTRACT §1): a key the same caller
   already used for a different request is a 409. Hypothesis draws few distinct keys (it shrinks them
   towards "0"), so most generated POSTs reused one and ended in that 409 before their body was read (two
   thirds of them in a measured run). A valid key (1..255 characters, the whole of its schema) gets a
   unique suffix and stays valid, so the request reaches the operation's own rules, whether the case is
   meant to be valid or breaks some other part of the request. The suffix carries a token of this process:
   the script runs Schemathesis several times as one caller, and a key of an earlier run would be a 409 of its
   own. The headers of a case that breaks its
   headers are sent as generated: an invalid key (empty, too long) is still checked for its 400, and a case
   without `Authorization` stays one (Schemathesis re-judges a case whose headers a hook edits, and would
   take it for a valid one, sending the token again).

2. The ingest key. POST /api/v1/ingest authenticates with an integration's X-API-Key, which Schemathesis can
   only make up: every such request was a 401. Where a case sends an X-API-Key and keeps its headers valid,
   the key is that of the integration the script created (SCHEMATHESIS_INGEST_KEY). A case without the header
   stays one.

3. The run's own user. PATCH /users/{id} can take a user's permissions or deactivate it, DELETE /users/{id}
   deactivates it, the member DELETEs remove a membership. Aimed at the admin the run is logged in as
   (its id is also an example value of the document, and links hand it on), they take the run's access
   away halfway through: every later request is a 401 or 403 and tests nothing. When such a request names
   that admin, it names a spare user instead (created by the script, a member of workspace 1 and project
   1). Any other id, valid or not, is sent as generated.

4. Requests the service must turn away (only in the runs that set SCHEMATHESIS_BODY_MODE; scripts/schemathesis.sh
   runs them with the checks that judge an answer against the document, not the ones that judge whether a
   request should have been accepted). Every operation that documents the status gets:
   - `unsupported-media-type` (415): the body as text/plain, where the operation reads JSON or a multipart
     form, or reads no body at all;
   - `too-large` (413): a JSON body one byte over its limit (CONTRACT §12: 1 MiB, 10 MiB for ingest), or a file
     one byte over the upload limit (25 MiB) in a multipart form.
   - `unknown-query-parameter` (400): a query parameter the operation does not declare (CONTRACT §1: a 400, never
     ignored), added to every request of an operation that documents a 400.
   Three upload operations look up stored objects before they read the file (a 404 otherwise): they name the bank
   account, the REQUESTED document and the entry (with its workspace) the script created for these runs.
   The statuses answered in these runs (and in the stored and fault runs below) are written to
   SCHEMATHESIS_STATUS_LOG (one "METHOD /path STATUS" line per call), not to a HAR file, which would hold every
   oversized body.

5. Stored objects (only in the runs `stored-a`, `stored-b` and `stored-c`, SCHEMATHESIS_STORED_RUN): some
   documented answers need an object in a given state, which tests/conformance/stored-objects.ts makes before
   these runs. Its plan names, per operation, the path and query parameters, headers, the body or the form fields
   and file that reach them; the requests of that operation get them in place of the generated ones.

6. One check of its own, `fault_answers`, for the runs in which the script makes the database fail
   (SCHEMATHESIS_FAULT; it passes everything in the other runs):
   - `database-misconfigured` (the service's tables cannot be found): a 500 says only what CONTRACT §2 lets it
     say, `{"message": "Internal server error", "code": "INTERNAL_SERVER_ERROR"}`, nothing of the SQL or the error;
   - `database-down` (PostgreSQL stopped): never a 500 (§22: "503 with Retry-After, never a 500"); a 503 says the
     database is unavailable. Retry-After itself is the document's required header, which
     `response_headers_conformance` checks.
"""

import json
import os
import secrets
from itertools import count

import schemathesis
from schemathesis.core.parameters import ParameterLocation

IDEMPOTENCY_KEY = "idempotency-key"
MAX_KEY_LENGTH = 255
_serial = count(1)
_RUN = secrets.token_hex(4)  # keys stay unique across the script's runs (see 1.)

ADMIN_ID = os.environ["SCHEMATHESIS_ADMIN_USER_ID"].lower()
SPARE_ID = os.environ["SCHEMATHESIS_SPARE_USER_ID"]
# operation label -> the path parameter naming the user it acts on
USER_PARAMETER = {
    "PATCH /users/{id}": "id",
    "DELETE /users/{id}": "id",
    "DELETE /workspaces/{id}/members/{userId}": "userId",
    "DELETE /projects/{id}/members/{userId}": "userId",
}


def _breaks_headers(case):
    meta = case.meta
    if meta is None:
        return False
    component = meta.components.get(ParameterLocation.HEADER)
    if component is not None and component.mode.is_negative:
        return True
    return meta.generation.mode.is_negative and getattr(meta.phase.data, "parameter_location", None) == ParameterLocation.HEADER


def _unique_idempotency_key(case):
    headers = case.headers
    if not headers or _breaks_headers(case):
        return
    name = next((name for name in headers if name.lower() == IDEMPOTENCY_KEY), None)
    if name is None:
        return
    key = headers[name]
    if not isinstance(key, str) or not 1 <= len(key) <= MAX_KEY_LENGTH:
        return
    suffix = f"~{_RUN}.{next(_serial)}"
    headers[name] = key[: MAX_KEY_LENGTH - len(suffix)] + suffix


INGEST_KEY = os.environ.get("SCHEMATHESIS_INGEST_KEY", "")
INGEST_KEY_HEADER = "x-api-key"


def _ingest_key(case):
    """A generated X-API-Key is a key no integration has: the ingest request gets the run's own in its place."""
    if case.operation.label != "POST /api/v1/ingest" or not INGEST_KEY or not case.headers or _breaks_headers(case):
        return
    name = next((name for name in case.headers if name.lower() == INGEST_KEY_HEADER), None)
    if name is not None:
        case.headers[name] = INGEST_KEY


def _spare_the_admin(case):
    parameter = USER_PARAMETER.get(case.operation.label)
    value = (case.path_parameters or {}).get(parameter)
    if isinstance(value, str) and value.lower() == ADMIN_ID:
        case.path_parameters[parameter] = SPARE_ID


BODY_MODE = os.environ.get("SCHEMATHESIS_BODY_MODE", "")
STATUS_LOG = os.environ.get("SCHEMATHESIS_STATUS_LOG", "")
MiB = 1 << 20
JSON_LIMIT, INGEST_LIMIT, UPLOAD_LIMIT = MiB, 10 * MiB, 25 * MiB  # CONTRACT §12, the service's defaults


UNKNOWN_QUERY_PARAMETER = "schemathesis_unknown"


def _documents(case, status):
    return status in case.operation.definition.raw.get("responses", {})


# operation label -> the path parameters naming the stored objects it reads before the body (body runs only)
STORED_OBJECTS = {
    "POST /bank-accounts/{id}/statements": {"id": os.environ.get("SCHEMATHESIS_BODY_ACCOUNT_ID")},
    "POST /entries/{entryId}/documents/{documentId}/fulfill": {
        "entryId": os.environ.get("SCHEMATHESIS_BODY_ENTRY_ID"),
        "documentId": os.environ.get("SCHEMATHESIS_BODY_DOCUMENT_ID"),
    },
    "POST /entries/{entryId}/documents/upload": {"entryId": os.environ.get("SCHEMATHESIS_BODY_ENTRY_ID")},
}
# operation label -> the query naming the workspace of those objects (the upload reads its workspaceId first)
STORED_QUERIES = {"POST /entries/{entryId}/documents/upload": {"workspaceId": "1"}}


def _break_body(case):
    if BODY_MODE:
        case.path_parameters.update(STORED_OBJECTS.get(case.operation.label, {}))
        if case.operation.label in STORED_QUERIES:
            case.query = {**(case.query or {}), **STORED_QUERIES[case.operation.label]}
    if BODY_MODE == "unsupported-media-type" and _documents(case, "415"):
        case.media_type = "text/plain"
        case.body = "a text body where the operation reads JSON, a form or nothing"
    elif BODY_MODE == "too-large" and _documents(case, "413"):
        if case.media_type == "multipart/form-data":
            case.body = {**(case.body if isinstance(case.body, dict) else {}), "file": b"x" * (UPLOAD_LIMIT + 1)}
        else:
            limit = INGEST_LIMIT if case.path.endswith("/ingest") else JSON_LIMIT
            case.media_type = "application/json"
            case.body = {"padding": "x" * limit}
    elif BODY_MODE == "unknown-query-parameter" and _documents(case, "400"):
        case.query = {**(case.query or {}), UNKNOWN_QUERY_PARAMETER: "1"}


STORED_RUN = os.environ.get("SCHEMATHESIS_STORED_RUN", "")
# operation label -> {path?, query?, body?, file?} of the run (tests/conformance/stored-objects.ts)
STORED_PLAN = {}
if STORED_RUN:
    with open(os.environ["SCHEMATHESIS_STORED_PLAN"], encoding="utf-8") as plan:
        STORED_PLAN = json.load(plan)[STORED_RUN]


def _stored_request(case):
    planned = STORED_PLAN.get(case.operation.label)
    if planned is None:
        return
    case.path_parameters = {**(case.path_parameters or {}), **planned.get("path", {})}
    case.query = dict(planned.get("query", {}))
    if "headers" in planned:
        case.headers = {**(case.headers or {}), **planned["headers"]}
    if "file" in planned:
        case.media_type = "multipart/form-data"
        case.body = {**planned.get("body", {}), "file": planned["file"].encode()}
    elif "body" in planned:
        case.media_type = "application/json"
        case.body = planned["body"]


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    _unique_idempotency_key(case)
    _ingest_key(case)
    _spare_the_admin(case)
    _break_body(case)
    _stored_request(case)


FAULT = os.environ.get("SCHEMATHESIS_FAULT", "")
INTERNAL_ERROR_BODY = {"message": "Internal server error", "code": "INTERNAL_SERVER_ERROR"}


@schemathesis.check
def fault_answers(ctx, response, case):
    """The 5xx answers of the runs with a failing database say what CONTRACT §2 and §22 promise."""
    if FAULT == "database-misconfigured" and response.status_code == 500:
        body = response.json()
        if body != INTERNAL_ERROR_BODY:
            raise AssertionError(f"a 500 must say only {INTERNAL_ERROR_BODY}, not {body}")
    if FAULT == "database-down":
        if response.status_code == 500:
            raise AssertionError(f"a 500 while the database is down (CONTRACT §22: 503, never 500): {response.text}")
        if response.status_code == 503:
            body = response.json()
            if body.get("code") != "SERVICE_UNAVAILABLE" or "database" not in body.get("message", "").lower():
                raise AssertionError(f"a 503 while the database is down must say so: {body}")


@schemathesis.hook
def after_call(ctx, case, response):
    if STATUS_LOG:
        with open(STATUS_LOG, "a", encoding="utf-8") as log:
            log.write(f"{case.method.upper()} {case.formatted_path} {response.status_code}\n")
