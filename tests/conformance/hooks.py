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


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    _unique_idempotency_key(case)
    _spare_the_admin(case)
