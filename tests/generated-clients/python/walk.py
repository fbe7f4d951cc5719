"""The walk of issue 30 through the client openapi-python-client generated from openapi.json.

Run by tests/generated-clients/python.test.ts with the generated package `finance_client` on
PYTHONPATH and BASE_URL, EMAIL, PASSWORD, HOOK_URL, HOOK_INBOX in the environment. Prints one
`ok <step>` line per step and `walk passed`; exits 1 naming the step that failed.
"""

import datetime
import json
import os
import sys
import urllib.request
import uuid
from http import HTTPStatus

from standardwebhooks import Webhook

from finance_client import AuthenticatedClient, Client
from finance_client.api.auth import login
from finance_client.api.documents import upload_entry_document
from finance_client.api.entries import create_entry, export_entries_csv, get_entry, list_entries, refund_entry
from finance_client.api.projects import create_project
from finance_client.api.webhooks import create_webhook_endpoint, test_webhook_endpoint
from finance_client.api.workspaces import create_workspace
from finance_client.models import (
    CreateEntryBody,
    CreateProjectBody,
    CreateWebhookEndpointBody,
    CreateWorkspaceBody,
    Document,
    DocumentType,
    Entry,
    EntryPage,
    EntryType,
    ErrorBody,
    LoginBody,
    RefundEntryBody,
    TokenResponse,
    UploadEntryDocumentBody,
    WebhookDelivery,
    WebhookEndpointWithSecret,
    Workspace,
)
from finance_client.types import File


def step(name):
    print(f"ok {name}", flush=True)


def fail(name, detail):
    print(f"walk FAILED: {name}: {detail}", file=sys.stderr, flush=True)
    sys.exit(1)


def expect(name, response, status, model):
    if response.status_code != status or not isinstance(response.parsed, model):
        fail(name, f"expected {status} {model.__name__}, got {response.status_code} {response.content[:300]!r}")
    return response.parsed


def main():
    base = os.environ["BASE_URL"]
    anonymous = Client(base_url=base)
    token = expect(
        "login",
        login.sync_detailed(client=anonymous, body=LoginBody(email=os.environ["EMAIL"], password=os.environ["PASSWORD"])),
        HTTPStatus.OK,
        TokenResponse,
    )
    step("login")
    api = AuthenticatedClient(base_url=base, token=token.access_token)

    workspace = expect(
        "create workspace",
        create_workspace.sync_detailed(client=api, body=CreateWorkspaceBody(name="Python client", base_currency="USD")),
        HTTPStatus.OK,
        Workspace,
    )
    project = create_project.sync_detailed(client=api, body=CreateProjectBody(workspace_id=workspace.id, name="Operations")).parsed
    step("create workspace and project")

    key = str(uuid.uuid4())
    body = CreateEntryBody(
        project_id=project.id,
        entry_type=EntryType.INCOME,
        amount_cents=250_000,
        base_currency="USD",
        entry_date=datetime.date(2026, 2, 14),
        description="Consulting, February",
    )
    first = create_entry.sync_detailed(client=api, body=body, idempotency_key=key)
    entry = expect("create entry", first, HTTPStatus.OK, Entry)
    if first.headers.get("idempotency-replayed") is not None:
        fail("create entry", "the first request was marked replayed")
    step("create entry with Idempotency-Key")
    again = create_entry.sync_detailed(client=api, body=body, idempotency_key=key)
    replayed = expect("replay", again, HTTPStatus.OK, Entry)
    if again.headers.get("idempotency-replayed") != "true" or replayed.id != entry.id or again.content != first.content:
        fail("replay", f"not a replay: {again.headers.get('idempotency-replayed')} {replayed.id} != {entry.id}")
    step("replay")

    for i in range(4):
        expect(
            "create entry",
            create_entry.sync_detailed(
                client=api,
                body=CreateEntryBody(
                    project_id=project.id,
                    entry_type=EntryType.EXPENSE,
                    amount_cents=1_000 + i,
                    base_currency="USD",
                    entry_date=datetime.date(2026, 3, i + 1),
                ),
            ),
            HTTPStatus.OK,
            Entry,
        )
    seen, cursor, pages = [], None, 0
    while True:
        kwargs = {"cursor": cursor} if cursor else {}
        page = expect("page by cursor", list_entries.sync_detailed(client=api, workspace_id=workspace.id, limit=2, **kwargs), HTTPStatus.OK, EntryPage)
        pages += 1
        seen += [e.id for e in page.items]
        if not page.next_cursor:
            break
        cursor = page.next_cursor
    if len(seen) != 5 or len(set(seen)) != 5 or pages != 3:
        fail("page by cursor", f"{pages} pages, ids {seen}")
    step("page by cursor")

    document = expect(
        "upload document",
        upload_entry_document.sync_detailed(
            entry.id,
            client=api,
            workspace_id=workspace.id,
            body=UploadEntryDocumentBody(
                file=File(payload=b"Invoice 2026-014\nConsulting, February: 2,500.00 USD\n", file_name="invoice.txt"),
                document_type=DocumentType.BASIS,
            ),
        ),
        HTTPStatus.OK,
        Document,
    )
    if document.document_name != "invoice.txt" or document.status.value != "UPLOADED":
        fail("upload document", f"{document.document_name} {document.status}")
    step("upload document")

    csv = export_entries_csv.sync_detailed(client=api, workspace_id=workspace.id)
    lines = csv.content.decode("utf-8").strip().splitlines()
    if csv.status_code != 200 or not lines[0].startswith("ID,Date,Type,Status,Amount") or len(lines) != 6:
        fail("download csv", f"{csv.status_code} {lines[:2]}")
    step("download csv")

    refused = refund_entry.sync_detailed(entry.id, client=api, body=RefundEntryBody(amount_cents=250_001))
    error = expect("refund above amount", refused, HTTPStatus.CONFLICT, ErrorBody)
    if error.code != "CONFLICT":
        fail("refund above amount", error.code)
    step("refund above amount is a typed 409")

    # a failed call's §2 error body {message, code, issues?}: `parsed` is the generated ErrorBody
    missing = expect("missing entry", get_entry.sync_detailed(9_007_199_254_740_991, client=api), HTTPStatus.NOT_FOUND, ErrorBody)
    if missing.code != "NOT_FOUND" or not missing.message:
        fail("missing entry", f"{missing.code} {missing.message!r}")
    step("a missing entry is a typed 404")

    endpoint = expect(
        "create webhook endpoint",
        create_webhook_endpoint.sync_detailed(
            client=api, body=CreateWebhookEndpointBody(workspace_id=workspace.id, url=os.environ["HOOK_URL"])
        ),
        HTTPStatus.OK,
        WebhookEndpointWithSecret,
    )
    delivery = expect("test webhook", test_webhook_endpoint.sync_detailed(endpoint.id, client=api), HTTPStatus.OK, WebhookDelivery)
    if delivery.status.value != "SUCCEEDED":
        fail("test webhook", f"delivery {delivery.status} {delivery.last_error}")
    with urllib.request.urlopen(os.environ["HOOK_INBOX"]) as inbox:
        received = json.load(inbox)
    payload = Webhook(endpoint.secret).verify(received["body"], received["headers"])
    if payload["type"] != "webhook.test" or payload["id"] != received["headers"]["webhook-id"]:
        fail("webhook signature verified", payload)
    try:
        Webhook(endpoint.secret).verify(received["body"] + " ", received["headers"])
        fail("webhook signature verified", "a changed body verified")
    except Exception as refused_body:  # standardwebhooks raises WebhookVerificationError
        if type(refused_body).__name__ != "WebhookVerificationError":
            raise
    step("webhook signature verified")
    print("walk passed", flush=True)


if __name__ == "__main__":
    main()
