"""Fetches the OpenAPI document from a running server (waiting for it to start) and
checks that every request example and every shared error example matches its schema,
with a JSON Schema 2020-12 validator: an example naming a field the type refuses fails.
Usage: python document.py BASE_URL OUT_FILE"""

import json
import sys
import time
import urllib.request

from jsonschema import Draft202012Validator


def fetch(base: str, deadline_s: float = 60.0) -> dict:
    start = time.monotonic()
    while True:
        try:
            with urllib.request.urlopen(base + "/api/openapi.json", timeout=5) as r:
                return json.load(r)
        except OSError as e:
            if time.monotonic() - start > deadline_s:
                sys.exit(f"the server at {base} did not answer in {deadline_s:.0f} s: {e}")
            time.sleep(0.3)


def check(doc: dict, schema: dict, example, where: str) -> int:
    # The schema's $refs point into #/components: validate against a root that holds them.
    validator = Draft202012Validator({**schema, "components": doc["components"]})
    errors = list(validator.iter_errors(example))
    for e in errors:
        print(f"{where}: the example does not match its schema: {e.message}", file=sys.stderr)
    return len(errors)


def main() -> None:
    base, out = sys.argv[1], sys.argv[2]
    doc = fetch(base)
    failures, examples = 0, 0
    for path, item in doc["paths"].items():
        for method, op in item.items():
            json_body = op.get("requestBody", {}).get("content", {}).get("application/json")
            if json_body is None:
                continue
            if "example" not in json_body:
                print(f"{method} {path}: a JSON body without an example", file=sys.stderr)
                failures += 1
                continue
            examples += 1
            failures += check(doc, json_body["schema"], json_body["example"], f"{method} {path}")
    for name, response in doc["components"]["responses"].items():
        body = response["content"]["application/json"]
        failures += check(doc, body["schema"], body["example"], f"response {name}")
    if failures:
        sys.exit(f"{failures} problems in the document")
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
    print(f"openapi: {len(doc['paths'])} paths; {examples} request examples match their schemas")


if __name__ == "__main__":
    main()
