#!/usr/bin/env python3
"""Smoke test of a running Finance Entries Service from Python, standard library only.

Reads the served openapi.json, finds each operation by its operationId (so paths come from the
document, not from this file), and walks the documented flow: login, create a workspace, a
project and an entry, list entries, read a report. Each step asserts the status code and the
fields the document marks as required. Starts nothing itself.

    BASE_URL=http://localhost:3000 EMAIL=admin@example.com PASSWORD=... python3 scripts/python_smoke.py

The user needs workspace.create, workspace.edit and entry.create (the bootstrap admin has them).
Exit status 0 when every step passed, 1 otherwise.
"""

import datetime
import json
import os
import re
import sys
import urllib.error
import urllib.parse
import urllib.request

METHODS = ("get", "put", "post", "delete", "patch")


class SmokeFailure(Exception):
    pass


class Api:
    def __init__(self, base_url):
        self.base_url = base_url.rstrip("/")
        self.token = None
        self.document = self.call_url("GET", "/openapi.json", expected=200)
        self.operations = {}
        for path, item in self.document.get("paths", {}).items():
            for method in METHODS:
                operation = item.get(method)
                if operation and "operationId" in operation:
                    self.operations[operation["operationId"]] = (method.upper(), path, operation)

    def call_url(self, method, path, body=None, expected=200):
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self.base_url + path, data=data, method=method)
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", "Bearer " + self.token)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, text = response.status, response.read().decode("utf-8")
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read().decode("utf-8", "replace")
        if status != expected:
            raise SmokeFailure(f"{method} {path}: expected {expected}, got {status}: {text[:500]}")
        return json.loads(text) if text else None

    def call(self, operation_id, path_params=None, query=None, body=None, expected=200):
        """Calls the operation named operation_id in openapi.json and checks its documented 200 body."""
        if operation_id not in self.operations:
            raise SmokeFailure(f"operationId {operation_id} is not in openapi.json")
        method, template, operation = self.operations[operation_id]
        path_params = path_params or {}

        def substitute(match):
            name = match.group(1)
            if name not in path_params:
                raise SmokeFailure(f"{operation_id}: no value for path parameter {name}")
            return urllib.parse.quote(str(path_params[name]), safe="")

        path = re.sub(r"\{([^}]+)\}", substitute, template)
        if query:
            path += "?" + urllib.parse.urlencode({k: v for k, v in query.items() if v is not None})
        result = self.call_url(method, path, body=body, expected=expected)
        schema = operation.get("responses", {}).get(str(expected), {}).get("content", {}).get("application/json", {}).get("schema")
        if schema is None and expected >= 400:
            schema = {"$ref": "#/components/schemas/Error"}
        self.check_required(operation_id, schema, result)
        print(f"  ok  {method:6} {template:40} {operation_id} -> {expected}")
        return result

    def resolve(self, schema):
        while isinstance(schema, dict) and "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[-1]
            schema = self.document["components"]["schemas"][name]
        return schema

    def check_required(self, operation_id, schema, value):
        schema = self.resolve(schema)
        if not isinstance(schema, dict):
            return
        if schema.get("type") == "object" or "required" in schema:
            if not isinstance(value, dict):
                raise SmokeFailure(f"{operation_id}: expected an object, got {type(value).__name__}")
            missing = [name for name in schema.get("required", []) if name not in value]
            if missing:
                raise SmokeFailure(f"{operation_id}: response lacks documented fields {missing}")
        if schema.get("type") == "array" and not isinstance(value, list):
            raise SmokeFailure(f"{operation_id}: expected an array, got {type(value).__name__}")


def expect(condition, message):
    if not condition:
        raise SmokeFailure(message)


def main():
    base_url = os.environ.get("BASE_URL", "http://localhost:3000")
    email = os.environ.get("EMAIL", "admin@example.com")
    password = os.environ.get("PASSWORD")
    if not password:
        print("Set PASSWORD (and EMAIL, BASE_URL when not the defaults)", file=sys.stderr)
        return 2

    print(f"python smoke against {base_url}")
    api = Api(base_url)
    print(f"  openapi.json: {len(api.operations)} operations")

    api.call("getMe", expected=401)
    login = api.call("login", body={"email": email, "password": password})
    expect(login["token_type"] == "Bearer" and login["access_token"], "login: no bearer token")
    api.token = login["access_token"]
    me = api.call("getMe")
    expect(me["email"].lower() == email.lower(), f"getMe: signed in as {me['email']}, not {email}")

    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d%H%M%S")
    workspace = api.call("createWorkspace", body={"name": f"Python smoke {stamp}", "baseCurrency": "USD"})
    project = api.call("createProject", body={"workspaceId": workspace["id"], "name": "Smoke", "code": "SMOKE"})
    entry_date = "2026-05-20"
    entry = api.call(
        "createEntry",
        body={
            "projectId": project["id"],
            "entryType": "EXPENSE",
            "amountCents": 1999,
            "baseCurrency": "USD",
            "entryDate": entry_date,
            "description": "Python smoke",
        },
    )
    expect(entry["entryStatus"] == "PENDING", f"createEntry: status {entry['entryStatus']}")
    api.call("createEntry", body={"projectId": project["id"], "entryType": "EXPENSE"}, expected=400)

    fetched = api.call("getEntry", path_params={"id": entry["id"]})
    expect(fetched["amountCents"] == 1999, "getEntry: amount differs")
    page = api.call("listEntries", query={"workspaceId": workspace["id"], "limit": 10})
    expect([item["id"] for item in page["items"]] == [entry["id"]], f"listEntries: {page}")
    expect(page["total"] == 1, f"listEntries: total {page['total']}")

    summary = api.call("getSummaryReport", query={"workspaceId": workspace["id"], "from": "2026-01-01", "to": "2026-12-31"})
    expect(summary["totalExpenseCents"] == 1999 and summary["entryCount"] == 1, f"getSummaryReport: {summary}")
    by_project = api.call("getByProjectReport", query={"workspaceId": workspace["id"]})
    expect([row["projectId"] for row in by_project] == [project["id"]], f"getByProjectReport: {by_project}")

    api.call("logout", body={})
    api.call("getMe", expected=401)
    print("python smoke passed")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SmokeFailure as failure:
        print(f"python smoke FAILED: {failure}", file=sys.stderr)
        sys.exit(1)
    except urllib.error.URLError as error:
        print(f"python smoke FAILED: cannot reach the service: {error.reason}", file=sys.stderr)
        sys.exit(1)
