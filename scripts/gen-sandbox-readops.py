#!/usr/bin/env python3
"""Derive the sandbox's read-operation estate (resources/sandbox/readops.json) from the read
operation table (src/broker/readops/read_operations.json), a hand-written seed and the Fabric v4
OpenAPI document.

The seed (scripts/sandbox_readops_seed.py, sandbox_readops_services.py) names, for every entity
the read operations show (routing protocols, routes, route filters and aggregations, router
actions and commands, metrics, streams, cloud events, precision time, applications, marketplace,
LOAs, tags, IP blocks, ...), its realistic fields and how it ties to the estate of
resources/sandbox/estate.json (connection, port, router, network and profile ids);
scripts/sandbox_readops_operations.py says how each operation is served. The spec's response
schema of each entity fills in the fields the spec requires that the seed leaves out (the first
enum value, a fixed date, ...), and every entity is then validated against the response schema
of every operation that serves it, and every sample request against the operation's input
schema: a seed that does not match the spec stops the script.

The output holds:
  collections: {name: [{ids: {pathParam: value}, item: {...}}]}; ids are the path parameter
               values under which an item is found (its own id and its parents').
  operations:  {operationId: {collection?, shape?, status?, query?, echoSort?, sample}}; an
               operation with a collection is served by SandboxReadOps (shape one, page, data or
               file; query maps a query parameter to the JSON pointer it filters on; echoSort:
               the page repeats the search's sort, which the spec requires); one without is
               served by the older handlers of SandboxApi. sample is a request the seed answers
               with success.
  files:       {name: {contentType, base64}} for the "file" answers (the logo).
Hrefs start with ${BASE}, which the sandbox replaces with its own base URL.

  scripts/gen-sandbox-readops.py [--spec FILE]    # regenerate
  scripts/gen-sandbox-readops.py --check [--spec FILE]   # exit 1 when out of date (77: no spec)
"""
import argparse
import base64
import copy
import json
import os
import sys
import warnings

import jsonschema
import yaml

from sandbox_readops_operations import OPERATIONS, SAMPLE_IDS
from sandbox_readops_seed import COLLECTIONS
from sandbox_readops_services import FILES

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TABLE = os.path.join(ROOT, "src", "broker", "readops", "read_operations.json")
OUT = os.path.join(ROOT, "resources", "sandbox", "readops.json")
DATE = "2026-01-15T10:00:00Z"


def load_spec(path):
    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("tag:yaml.org,2002:value", lambda l, n: l.construct_scalar(n))
    Loader.add_constructor("tag:yaml.org,2002:timestamp", lambda l, n: l.construct_scalar(n))
    with open(path, encoding="utf-8") as f:
        return yaml.load(f, Loader=Loader)


class Spec:
    def __init__(self, doc):
        self.doc = doc

    def resolve(self, s):
        while isinstance(s, dict) and "$ref" in s:
            node = self.doc
            for part in s["$ref"][2:].split("/"):
                node = node[part]
            s = node
        return s

    def response(self, row):
        op = self.doc["paths"][row["path"]][row["method"].lower()]
        code = sorted(c for c in op["responses"] if c.startswith("2"))[0]
        r = self.resolve(op["responses"][code])
        content = r.get("content", {})
        ctype = next(iter(content), None)
        return int(code), ctype, (content[ctype].get("schema", {}) if ctype else {})

    def synth(self, s, depth=0):
        """The smallest instance of s with every required field (first enum value, fixed
        dates); None when s has no type to fill."""
        s = self.resolve(s)
        if depth > 12:
            return None
        for key in ("allOf",):
            if key in s:
                out = {}
                for part in s[key]:
                    v = self.synth(part, depth + 1)
                    if isinstance(v, dict):
                        out.update(v)
                base = {k: v for k, v in s.items() if k != key}
                v = self.synth(base, depth + 1) if base.get("properties") else None
                if isinstance(v, dict):
                    out.update(v)
                return out
        if "oneOf" in s or "anyOf" in s:
            first = (s.get("oneOf") or s.get("anyOf"))[0]
            v = self.synth(first, depth + 1)
            return v
        if "enum" in s:
            return s["enum"][0]
        t = s.get("type", "object" if "properties" in s else None)
        if t == "object":
            props = s.get("properties", {})
            return {k: self.synth(props.get(k, {}), depth + 1) for k in s.get("required", [])}
        if t == "array":
            n = s.get("minItems", 0)
            return [self.synth(s.get("items", {}), depth + 1) for _ in range(n)]
        if t == "string":
            fmt = s.get("format")
            if fmt == "date-time":
                return DATE
            if fmt == "uuid":
                return "00000000-0000-4000-8000-000000000000"
            if fmt in ("ipv4",):
                return "192.0.2.1"
            if fmt == "uri":
                return "${BASE}/fabric/v4"
            return "sandbox"
        if t in ("integer", "number"):
            return s.get("minimum", 1)
        if t == "boolean":
            return False
        return None

    def validator(self, schema):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            resolver = jsonschema.RefResolver("", self.doc)
            return jsonschema.Draft4Validator(schema, resolver=resolver)


def merge(base, overlay):
    if isinstance(base, dict) and isinstance(overlay, dict):
        out = dict(base)
        for k, v in overlay.items():
            out[k] = merge(base.get(k), v) if k in base else copy.deepcopy(v)
        return out
    return copy.deepcopy(overlay)


def item_schema(spec, row, shape, schema):
    s = spec.resolve(schema)
    if shape == "one":
        return s
    data = spec.resolve(s["properties"]["data"])
    return data["items"]


def shape_of(spec, row, schema):
    """one: an entity (a path ending in its id, or no list); page: {pagination, data}; data:
    {data} without pagination."""
    if row["path"].endswith("}"):
        return "one"
    s = spec.resolve(schema)
    props = s.get("properties", {})
    data = spec.resolve(props["data"]) if "data" in props else {}
    if data.get("type") == "array":
        return "page" if "pagination" in props else "data"
    return "one"


def sample_of(row, entry, collections):
    """The request of the operation's sample: path with the seed's ids, query, body."""
    ids = dict(SAMPLE_IDS)
    items = collections.get(entry.get("collection"), [])
    for it in items:
        if all(p in it["ids"] for p in row["pathParams"]):
            ids.update(it["ids"])
            break
    path = row["path"]
    for p in row["pathParams"]:
        if p not in ids:
            return None, f"no id for {p}"
        path = path.replace("{" + p + "}", ids[p])
    sample = {"path": path}
    given = entry.get("sample", {})
    if given.get("query"):
        sample["query"] = given["query"]
    if row["body"]:
        sample["body"] = given.get("body", {})
    args = {p: ids[p] for p in row["pathParams"]}
    args.update(sample.get("query", {}))
    if "body" in sample:
        args["body"] = sample["body"]
    schema = row.get("inputSchema", {})
    problems = [e.message[:200] for e in jsonschema.Draft7Validator(schema).iter_errors(args)]
    return sample, "; ".join(problems)


def build(spec, table):
    rows = {r["operationId"]: r for r in table["operations"]}
    missing = sorted(set(rows) - set(OPERATIONS))
    extra = sorted(set(OPERATIONS) - set(rows))
    if missing or extra:
        sys.exit(f"seed operations differ from the table: missing {missing}, unknown {extra}")
    errors = []
    schemas = {}  # collection -> [(item schema, operation)]
    ops = {}
    for op_id, row in rows.items():
        entry = dict(OPERATIONS[op_id])
        status, ctype, schema = spec.response(row)
        if entry.get("collection"):
            if row["answer"] == "file":
                entry["shape"] = "file"
            else:
                entry["shape"] = shape_of(spec, row, schema)
                extra = set(spec.resolve(schema).get("required", [])) - {"data", "pagination"}
                if entry["shape"] != "one" and extra - {"sort"}:
                    errors.append(f"{op_id}: the answer requires {sorted(extra)}")
                if entry["shape"] != "one" and "sort" in extra:
                    entry["echoSort"] = True
                schemas.setdefault(entry["collection"], []).append(
                    (item_schema(spec, row, entry["shape"], schema), op_id))
            if status != 200:
                entry["status"] = status
        ops[op_id] = entry
    collections = {}
    for name, items in COLLECTIONS.items():
        if name not in schemas and name != "logos":
            errors.append(f"collection {name}: no operation serves it")
            continue
        checks = schemas.get(name, [])
        out = []
        for i, (ids, overlay) in enumerate(items):
            item = merge(spec.synth(checks[0][0]) or {}, overlay) if checks else overlay
            for schema, op_id in checks:
                for e in spec.validator(schema).iter_errors(item):
                    path = "/".join(str(p) for p in e.absolute_path)
                    errors.append(f"{name}[{i}] ({op_id}) /{path}: {e.message[:200]}")
            out.append({"ids": ids, "item": item})
        collections[name] = out
    for op_id, entry in ops.items():
        c = entry.get("collection")
        if c and not c.startswith("@") and c not in collections:
            errors.append(f"{op_id}: collection {c} is not seeded")
        sample, problem = sample_of(rows[op_id], entry, collections)
        if problem:
            errors.append(f"{op_id}: sample: {problem}")
        entry["sample"] = sample
    if errors:
        sys.exit("seed does not match the spec:\n  " + "\n  ".join(errors))
    files = {k: {"contentType": v[0], "base64": base64.b64encode(v[1]).decode()}
             for k, v in FILES.items()}
    return {
        "format": "fabric-broker-sandbox-readops/1",
        "generatedBy": "scripts/gen-sandbox-readops.py",
        "spec": table["spec"],
        "collections": collections,
        "operations": dict(sorted(ops.items())),
        "files": files,
    }


def dump(doc):
    """JSON with one collection item, operation or file a line."""
    def line(v):
        return json.dumps(v, separators=(",", ":"), ensure_ascii=False)

    out = ["{"]
    keys = list(doc)
    for i, k in enumerate(keys):
        v = doc[k]
        comma = "," if i + 1 < len(keys) else ""
        if k not in ("collections", "operations", "files"):
            out.append(f" {line(k)}: {line(v)}{comma}")
            continue
        out.append(f" {line(k)}: {{")
        names = list(v)
        for j, name in enumerate(names):
            c2 = "," if j + 1 < len(names) else ""
            if k == "collections":
                out.append(f"  {line(name)}: [")
                items = v[name]
                out.extend(f"   {line(it)}{',' if n + 1 < len(items) else ''}"
                           for n, it in enumerate(items))
                out.append(f"  ]{c2}")
            else:
                out.append(f"  {line(name)}: {line(v[name])}{c2}")
        out.append(f" }}{comma}")
    out.append("}")
    return "\n".join(out) + "\n"


def default_spec():
    shared = os.environ.get("FB_SHARED_DIR") or os.path.join(os.path.dirname(ROOT), "shared")
    return os.path.join(shared, "reference", "fabric-v4", "fabricv4-openapi.yaml")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--spec", default=default_spec())
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    if not os.path.exists(a.spec):
        print("gen-sandbox-readops: SKIPPED: no spec at %s (set FB_SHARED_DIR)" % a.spec,
              file=sys.stderr)
        sys.exit(77 if a.check else 2)
    with open(TABLE, encoding="utf-8") as f:
        table = json.load(f)
    doc = build(Spec(load_spec(a.spec)), table)
    text = dump(doc)
    if a.check:
        with open(a.out, encoding="utf-8") as f:
            if f.read() != text:
                sys.exit(f"{a.out} is out of date: run {sys.argv[0]}")
        return
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
