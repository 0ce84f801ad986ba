#!/usr/bin/env python3
"""Derive the read-operation table (src/broker/readops/read_operations.json) from the Fabric v4
OpenAPI document.

Every non-deprecated read operation of the spec becomes one row: every GET, and every POST whose
path ends in "/search" (the search family only reads). A row names the MCP tool that serves it
(the core catalog's tool where one exists, otherwise fabric_<operation id in snake case>), its
toolset, the HTTP method and path template, and a strict JSON Schema for the tool's arguments:
the path parameters, the query parameters and, for a search, the request body, all derived from
the spec (patterns, formats, enums, bounds), with additionalProperties false on every object and
a bound on every string and array the spec leaves open.

  scripts/gen-read-operations.py [--spec FILE] [--out FILE]   # regenerate the table
  scripts/gen-read-operations.py --check [--spec FILE]        # exit 1 when the table differs
                                                              # (77: no spec here, skipped)

The spec defaults to ../shared/reference/fabric-v4/fabricv4-openapi.yaml (or $FB_SHARED_DIR).
Needs PyYAML (Debian: python3-yaml).
"""
import argparse
import hashlib
import json
import os
import re
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(ROOT, "src", "broker", "readops", "read_operations.json")

# Read operations the core catalog (toolset "read", src/broker/CatalogTable.cpp) already serves,
# with simpler arguments: no second tool is made for them.
CORE = {
    "searchConnections": "fabric_search_connections",
    "getConnectionByUuid": "fabric_get_connection",
    "searchServiceProfiles": "fabric_search_service_profiles",
    "getServiceProfileByUuid": "fabric_get_service_profile",
    "searchNetworks": "fabric_search_networks",
    "getNetworkByUuid": "fabric_get_network",
    "searchServiceTokens": "fabric_search_service_tokens",
    "getServiceTokenByUuid": "fabric_get_service_token",
    "searchCloudRouters": "fabric_search_cloud_routers",
    "searchPrices": "fabric_search_prices",
    "getMetros": "fabric_list_metros",
    "getPorts": "fabric_list_ports",
    "getPortByUuid": "fabric_get_port",
    "getVlans": "fabric_get_port",
}

# Toolset of each spec tag (the tag of the operation's first entry in "tags").
# In the order Settings and --help list them (after "read", before "mutate").
TOOLSETS = {
    "estate": ("What you own or can order, in detail: connections, ports and port "
               "packages, metros, networks, service profiles and tokens, gateways, IP blocks, "
               "Internet access and exchange services, Fabric One interconnects, optical metro "
               "connects.",
               ["Connections", "Ports", "Port Packages", "Metros", "Networks",
                "Service Profiles", "Service Tokens", "Gateways", "IP Blocks",
                "Internet Access Services", "Internet Exchange Services", "Fabric One",
                "Optical Metro Connects", "Prices"]),
    "routing": ("Cloud routers and their routes, actions and commands; routing protocols (BGP "
                "state); route filters, route aggregations and their rules and attachments; "
                "routes advertised and received on connections.",
                ["Cloud Routers", "Routing Protocols", "Route Filters", "Route Filter Rules",
                 "Route Aggregations", "Route Aggregation Rules"]),
    "observability": ("Metrics, port and connection statistics, streams, stream subscriptions "
                      "and alert rules, cloud events, operational events and the service's "
                      "health.",
                      ["Metrics", "Statistics", "Streams", "Stream Subscriptions",
                       "Stream Alert Rules", "Cloud Events", "Health"]),
    "precision-time": ("Precision time services (NTP and PTP), their packages and the "
                       "connections they use.", ["Precision Time"]),
    "marketplace": ("Applications (domains, links, services, subscriptions), marketplace "
                    "subscriptions, company profiles and logos.",
                    ["Application Domains", "Application Links", "Application Services",
                     "Application Subscriptions", "Marketplace Subscriptions", "Company Profiles",
                     "Logos"]),
    "account": ("Letters of authorization (LOAs) and their actions, and tags.", ["Loas", "Tags"]),
}
TAG_TOOLSET = {tag: name for name, (_, tags) in TOOLSETS.items() for tag in tags}
# What each reads, in a few words (Settings shows it beside the toolset's name).
SUMMARIES = {
    "estate": "ports, connections, networks, tokens, gateways, IP blocks, EIA, IX, Fabric One",
    "routing": "cloud routers, routes, BGP, route filters and aggregations",
    "observability": "metrics, streams, alert rules, events, health",
    "precision-time": "NTP and PTP services",
    "marketplace": "applications, subscriptions, company profiles, logos",
    "account": "LOAs and tags",
}

UUID_PATTERN = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
# A path segment Fabric could name; never "." or ".." (a dot segment would leave the operation).
PATH_VALUE_PATTERN = "^(?!\\.\\.?$)[A-Za-z0-9._~:@-]{1,128}$"
MAX_STRING = 1000       # maxLength for a string the spec leaves unbounded
MAX_ARRAY = 100         # maxItems for an array the spec leaves unbounded
MAX_RECURSION = 2       # how often a schema may appear inside itself (and/or filter nesting)
MAX_DESCRIPTION = 400   # characters of the spec's description kept for a tool

SCHEMA_KEYS = ("type", "enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
               "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems")
FORMATS = ("uuid", "date-time", "email")


class Spec:
    def __init__(self, doc):
        self.doc = doc

    def resolve(self, node):
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            if not ref.startswith("#/"):
                raise ValueError("external $ref " + ref)
            target = self.doc
            for part in ref[2:].split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            node = target
        return node


def snake(op_id):
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", op_id)
    s = re.sub(r"(?<=[A-Z])([A-Z][a-z])", r"_\1", s)
    return s.lower()


def clean_text(text, limit):
    text = re.sub(r"<[^>]*>", "", text or "")            # HTML tags in descriptions
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # Markdown links
    text = re.sub(r"\s+", " ", text).strip()
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "\u2026"
    return text


def strict(spec, node, stack, name=None):
    """The spec schema `node` as a strict, self-contained JSON Schema (draft 2020-12 subset)."""
    ref = node.get("$ref") if isinstance(node, dict) else None
    if ref:
        if stack.count(ref) >= MAX_RECURSION:
            return False  # nesting deeper than MAX_RECURSION is refused
        return strict(spec, spec.resolve(node), stack + [ref], name)
    if not isinstance(node, dict):
        return {}
    if "allOf" in node:
        merged = {"type": "object", "properties": {}, "required": []}
        for part in node["allOf"]:
            sub = strict(spec, part, stack)
            if not isinstance(sub, dict):
                continue
            merged["properties"].update(sub.get("properties", {}))
            merged["required"] += [r for r in sub.get("required", []) if r not in merged["required"]]
            for k in SCHEMA_KEYS:
                if k in sub and k != "type":
                    merged[k] = sub[k]
        merged["properties"].update(
            strict(spec, {"type": "object", "properties": node.get("properties", {})}, stack)
            .get("properties", {}))
        if not merged["required"]:
            del merged["required"]
        merged["additionalProperties"] = False
        return merged
    for comb in ("oneOf", "anyOf"):
        if comb in node:
            branches = [strict(spec, b, stack) for b in node[comb]]
            return {"anyOf": [b for b in branches if b is not False] or [False]}
    out = {}
    for k in SCHEMA_KEYS:
        if k in node:
            out[k] = node[k]
    if node.get("format") in FORMATS:
        out["format"] = node["format"]
    t = node.get("type")
    if t is None and "properties" in node:
        t = out["type"] = "object"
    if t == "object":
        props = {}
        for prop, sub in (node.get("properties") or {}).items():
            if isinstance(sub, dict) and spec.resolve(sub).get("readOnly"):
                continue
            props[prop] = strict(spec, sub, stack, prop)
        out["properties"] = props
        req = [r for r in node.get("required", []) if r in props]
        if req:
            out["required"] = req
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and not props:
            out["additionalProperties"] = strict(spec, extra, stack)
            out["maxProperties"] = MAX_ARRAY
        else:
            out["additionalProperties"] = False
    elif t == "array":
        out["items"] = strict(spec, node.get("items", {}), stack)
        out.setdefault("maxItems", MAX_ARRAY)
    elif t == "string":
        if "enum" not in out and "format" not in out:
            out.setdefault("maxLength", MAX_STRING)
    elif t in ("integer", "number") and name in ("limit", "offset"):
        # Bounds the spec leaves open: a page of at most 1000, offsets from 0.
        out.setdefault("minimum", 1 if name == "limit" else 0)
        out.setdefault("maximum", 1000 if name == "limit" else 2147483647)
    if node.get("nullable") and "type" in out:
        out["type"] = [out["type"], "null"]
    return out


def parameter_schema(spec, prm):
    sch = strict(spec, prm.get("schema", {"type": "string"}), [], prm["name"])
    if prm["in"] == "path":
        if sch.get("format") == "uuid":
            sch = {"type": "string", "pattern": UUID_PATTERN}
        elif sch.get("type", "string") == "string" and "enum" not in sch:
            sch = {"type": "string", "pattern": sch.get("pattern", PATH_VALUE_PATTERN)}
    if prm["in"] == "query" and sch.get("type") in ("integer", "number"):
        # Bounds the spec leaves open: offsets and counts from 0, at most 2^31 - 1.
        sch.setdefault("minimum", 0)
        sch.setdefault("maximum", 2147483647)
    if not sch.get("type") and "enum" not in sch and "anyOf" not in sch:
        sch["type"] = "string"
        sch.setdefault("maxLength", MAX_STRING)
    desc = clean_text(prm.get("description", ""), 200)
    if desc:
        sch["description"] = desc
    return sch


def operations(spec):
    rows = []
    for path, item in spec.doc["paths"].items():
        common = item.get("parameters", [])
        for method, op in item.items():
            if method not in ("get", "post"):
                continue
            if method == "post" and not path.endswith("/search"):
                continue
            if op.get("deprecated"):
                continue
            op_id = op["operationId"]
            tag = op.get("tags", ["?"])[0]
            if tag not in TAG_TOOLSET:
                raise SystemExit("no toolset for tag %r (%s)" % (tag, op_id))
            params = [spec.resolve(p) for p in common + op.get("parameters", [])]
            props, required, path_params, query_params = {}, [], [], []
            for prm in params:
                if prm["in"] not in ("path", "query"):
                    continue
                name = prm["name"]
                props[name] = parameter_schema(spec, prm)
                if prm["in"] == "path":
                    path_params.append(name)
                    required.append(name)
                else:
                    sch = spec.resolve(prm.get("schema", {}))
                    style = "csv" if sch.get("type") == "array" and prm.get("explode") is False \
                        else ("multi" if sch.get("type") == "array" else "")
                    query_params.append({"name": name, "array": style} if style else {"name": name})
                    if prm.get("required"):
                        required.append(name)
            body = None
            if "requestBody" in op:
                rb = spec.resolve(op["requestBody"])
                media = rb.get("content", {}).get("application/json")
                if media:
                    props["body"] = strict(spec, media.get("schema", {}), [])
                    props["body"]["description"] = clean_text(
                        rb.get("description", "The search request."), 200)
                    body = "required" if rb.get("required") else "optional"
                    if rb.get("required"):
                        required.append("body")
            props["projection"] = {
                "type": "array", "maxItems": 32, "uniqueItems": True,
                "description": "JSON pointers of the parts to keep, e.g. /data/*/name",
                "items": {"type": "string", "pattern": "^(/[^/]{0,100}){1,12}$"},
            }
            schema = {"type": "object", "properties": props, "additionalProperties": False}
            if required:
                schema["required"] = required
            answer = "json"
            for code, resp in op.get("responses", {}).items():
                if str(code).startswith("2"):
                    content = spec.resolve(resp).get("content", {})
                    if content and not any(ct.startswith("application/json") for ct in content):
                        answer = "file"
            title = clean_text(op.get("summary", op_id), 80)
            desc = clean_text(op.get("description", ""), MAX_DESCRIPTION)
            rows.append({
                "operationId": op_id,
                "tool": CORE.get(op_id, "fabric_" + snake(op_id)),
                "core": op_id in CORE,
                "toolset": "read" if op_id in CORE else TAG_TOOLSET[tag],
                "tag": tag,
                "method": method.upper(),
                "path": path,
                "pathParams": path_params,
                "queryParams": query_params,
                "body": body,
                "answer": answer,
                "title": title,
                "description": desc if desc and desc != title else title,
            })
            if op_id not in CORE:
                rows[-1]["inputSchema"] = schema
    order = ["read"] + list(TOOLSETS)
    rows.sort(key=lambda r: (order.index(r["toolset"]), r["tag"], r["path"], r["method"]))
    return rows


def build(spec_path):
    with open(spec_path, "rb") as f:
        raw = f.read()

    class Loader(yaml.SafeLoader):
        pass

    # The spec uses "=" as a map key, which plain YAML reads as the value tag.
    Loader.add_constructor("tag:yaml.org,2002:value", lambda l, n: l.construct_scalar(n))
    doc = yaml.load(raw, Loader=Loader)
    spec = Spec(doc)
    rows = operations(spec)
    names = [r["tool"] for r in rows if not r["core"]]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise SystemExit("tool names collide: %s" % sorted(dup))
    if any(len(n) > 64 for n in names):
        raise SystemExit("tool name over 64 characters")
    table = {
        "generatedBy": "scripts/gen-read-operations.py",
        "spec": {"title": doc["info"]["title"], "version": str(doc["info"]["version"]),
                 "sha256": hashlib.sha256(raw).hexdigest()},
        "toolsets": [{"name": name, "summary": SUMMARIES[name], "description": d, "tags": tags}
                     for name, (d, tags) in TOOLSETS.items()],
        "operations": rows,
    }
    return json.dumps(table, indent=1, ensure_ascii=True, sort_keys=False) + "\n"


def default_spec():
    shared = os.environ.get("FB_SHARED_DIR", os.path.join(ROOT, "..", "shared"))
    return os.path.join(shared, "reference", "fabric-v4", "fabricv4-openapi.yaml")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", default=default_spec())
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--check", action="store_true",
                    help="compare with the checked-in table; exit 1 when they differ")
    a = ap.parse_args()
    if not os.path.exists(a.spec):
        print("gen-read-operations: SKIPPED: no spec at %s (set FB_SHARED_DIR)" % a.spec,
              file=sys.stderr)
        return 77 if a.check else 2
    text = build(a.spec)
    if a.check:
        with open(a.out, encoding="utf-8") as f:
            current = f.read()
        if current != text:
            print("gen-read-operations: %s does not match %s; run scripts/gen-read-operations.py"
                  % (os.path.relpath(a.out, ROOT), a.spec), file=sys.stderr)
            return 1
        print("gen-read-operations: the table matches the spec")
        return 0
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
