"""Schemathesis hook of the conformance run (scripts/schemathesis.sh sets SCHEMATHESIS_HOOKS to this file).

It changes two things in the requests Schemathesis generates, both so that the run keeps testing the
operations instead of the consequences of its own earlier requests. No check is touched.

1. Idempotency keys. Every POST takes an optional Idempotency-Key (CONTRACT §1): a key the same caller
   already used for a different request is a 409. Hypothesis draws few distinct keys (it shrinks them
   towards "0"), so most generated POSTs reused one and ended in that 409 before their body was read (two
   thirds of them in a measured run). A valid key (1..255 characters, the whole of its schema) gets a
   unique suffix and stays valid, so the request reaches the operation's own rules, whether the case is
   meant to be valid or breaks some other part of the request. The headers of a case that breaks its
   headers are sent as generated: an invalid key (empty, too long) is still checked for its 400, and a case
   without `Authorization` stays one (Schemathesis re-judges a case whose headers a hook edits, and would
   take it for a valid one, sending the token again).

2. The run's own user. PATCH /users/{id} can take a user's permissions or deactivate it, DELETE /users/{id}
   deactivates it, the member DELETEs remove a membership. Aimed at the admin the run is logged in as
   (its id is also an example value of the document, and links hand it on), they take the run's access
   away halfway through: every later request is a 401 or 403 and tests nothing. When such a request names
   that admin, it names a spare user instead (created by the script, a member of workspace 1 and project
   1). Any other id, valid or not, is sent as generated.

3. Bodies the service must turn away (only in the runs that set SCHEMATHESIS_BODY_MODE; scripts/schemathesis.sh
   runs them with the checks that judge an answer against the document, not the ones that judge whether a
   request should have been accepted). Every operation that documents the status gets, in place of its body:
   - `unsupported-media-type` (415): the body as text/plain, where the operation reads JSON or a multipart
     form, or reads no body at all;
   - `too-large` (413): a JSON body one byte over its limit (CONTRACT §12: 1 MiB, 10 MiB for ingest), or a file
     one byte over the upload limit (25 MiB) in a multipart form.
   Two upload operations look up stored objects before they read the file (a 404 otherwise): they name the bank
   account and the REQUESTED document the script created for these runs.
   The statuses answered in these runs are written to SCHEMATHESIS_STATUS_LOG (one "METHOD /path STATUS" line per
   call), not to a HAR file, which would hold every oversized body.
"""

import os
from itertools import count

import schemathesis
from schemathesis.core.parameters import ParameterLocation

IDEMPOTENCY_KEY = "idempotency-key"
MAX_KEY_LENGTH = 255
_serial = count(1)

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
    suffix = f"~{next(_serial)}"
    headers[name] = key[: MAX_KEY_LENGTH - len(suffix)] + suffix


def _spare_the_admin(case):
    parameter = USER_PARAMETER.get(case.operation.label)
    value = (case.path_parameters or {}).get(parameter)
    if isinstance(value, str) and value.lower() == ADMIN_ID:
        case.path_parameters[parameter] = SPARE_ID


BODY_MODE = os.environ.get("SCHEMATHESIS_BODY_MODE", "")
STATUS_LOG = os.environ.get("SCHEMATHESIS_STATUS_LOG", "")
MiB = 1 << 20
JSON_LIMIT, INGEST_LIMIT, UPLOAD_LIMIT = MiB, 10 * MiB, 25 * MiB  # CONTRACT §12, the service's defaults


def _documents(case, status):
    return status in case.operation.definition.raw.get("responses", {})


# operation label -> the path parameters naming the stored objects it reads before the body (body runs only)
STORED_OBJECTS = {
    "POST /bank-accounts/{id}/statements": {"id": os.environ.get("SCHEMATHESIS_BODY_ACCOUNT_ID")},
    "POST /entries/{entryId}/documents/{documentId}/fulfill": {
        "entryId": os.environ.get("SCHEMATHESIS_BODY_ENTRY_ID"),
        "documentId": os.environ.get("SCHEMATHESIS_BODY_DOCUMENT_ID"),
    },
}


def _break_body(case):
    if BODY_MODE:
        case.path_parameters.update(STORED_OBJECTS.get(case.operation.label, {}))
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


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    _unique_idempotency_key(case)
    _spare_the_admin(case)
    _break_body(case)


@schemathesis.hook
def after_call(ctx, case, response):
    if STATUS_LOG:
        with open(STATUS_LOG, "a", encoding="utf-8") as log:
            log.write(f"{case.method.upper()} {case.formatted_path} {response.status_code}\n")
