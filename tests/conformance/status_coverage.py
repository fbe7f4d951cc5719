"""Which documented statuses the Schemathesis runs reached (issue 30: "enough examples per operation to cover
every documented status"). Reads openapi.json and the HAR files the runs wrote (scripts/schemathesis.sh,
--report har), or the status logs of its body runs (tests/conformance/hooks.py: "METHOD /path STATUS" lines), and
prints one JSON object: per operation, the statuses documented and never answered.

Usage: python3 status_coverage.py OPENAPI_JSON HAR_OR_STATUS_LOG [HAR_OR_STATUS_LOG ...]
"""

import json
import re
import sys
from urllib.parse import urlsplit

METHODS = {"get", "put", "post", "patch", "delete", "head", "options"}


def operations(document):
    """(method, path regex, label, documented statuses) of every operation, literal paths before templated ones."""
    found = []
    for path, item in document["paths"].items():
        pattern = "^" + re.sub(r"\\{[^}]+\\}", "[^/]+", re.escape(path)) + "$"
        for method, operation in item.items():
            if method in METHODS:
                statuses = {code for code in operation.get("responses", {}) if code.isdigit()}
                found.append((method.upper(), re.compile(pattern), f"{method.upper()} {path}", statuses, path.count("{")))
    return sorted(found, key=lambda o: o[4])


def calls(name):
    """(method, path, status) of every call a HAR file or a status log holds."""
    with open(name, encoding="utf-8") as f:
        if name.endswith(".json"):
            for entry in json.load(f)["log"]["entries"]:
                yield entry["request"]["method"].upper(), urlsplit(entry["request"]["url"]).path, entry["response"]["status"]
        else:
            for line in f:
                method, path, status = line.split()
                yield method, urlsplit(path).path, status


def answered(files, known):
    """label -> the statuses answered to it."""
    seen = {}
    for name in files:
        for method, path, status in calls(name):
            for op_method, pattern, label, _, _ in known:
                if op_method == method and pattern.match(path):
                    seen.setdefault(label, set()).add(str(status))
                    break
    return seen


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        known = operations(json.load(f))
    seen = answered(sys.argv[2:], known)
    missing = {}
    for _, _, label, documented, _ in known:
        gap = sorted(documented - seen.get(label, set()))
        if gap:
            missing[label] = gap
    documented_total = sum(len(o[3]) for o in known)
    missing_total = sum(len(g) for g in missing.values())
    by_status = {}
    for gap in missing.values():
        for status in gap:
            by_status[status] = by_status.get(status, 0) + 1
    print(
        json.dumps(
            {
                "operations": len(known),
                "operationsFullyCovered": len(known) - len(missing),
                "documentedStatuses": documented_total,
                "reachedStatuses": documented_total - missing_total,
                "missingByStatus": dict(sorted(by_status.items())),
                "missing": missing,
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
