"""The hand-written seed of the sandbox's read-operation estate (scripts/gen-sandbox-readops.py).

Ids follow resources/sandbox/estate.json's scheme <kind>-0000-4000-8000-<serial>; what the read
operations show hangs off the estate's own ports (P*), connections (C*), cloud routers (R*),
networks (N*) and service profiles (SP*): the SV router's BGP sessions run on the AWS
connections, its route filter and aggregation are attached there, the metrics and events are
about the estate's ports and connections, and so on.
"""
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(ROOT, "resources", "sandbox", "estate.json"), encoding="utf-8") as f:
    ESTATE = json.load(f)

B = "${BASE}/fabric/v4"
T0 = "2026-01-10T09:00:00Z"
T1 = "2026-01-12T14:30:00Z"
PROJECT = {"projectId": "sandbox-project-1"}
ACCOUNT = {"accountNumber": 100001, "accountName": "Sandbox Account", "orgId": 100001,
           "organizationName": "Sandbox Org", "globalCustId": "sandbox-global"}


def uid(kind, n):
    return f"{kind}-0000-4000-8000-{n:012d}"


def changelog(created=T0, updated=T1):
    return {"createdBy": "sandbox-user", "createdDateTime": created,
            "updatedBy": "sandbox-user", "updatedDateTime": updated}


P = {i: uid("50000000", i) for i in range(1, 8)}
C = {i: uid("c0000000", i) for i in range(1, 5)}
R = {1: uid("a0000000", 1), 2: uid("a0000000", 2)}
N = {1: uid("e0000000", 1), 2: uid("e0000000", 2)}
SP = {i: uid("5e000000", i) for i in range(1, 4)}
CONN = {c["uuid"]: c for c in ESTATE["connections"]}
PORT = {p["uuid"]: p for p in ESTATE["ports"]}

RP = {1: uid("b6000000", 1), 2: uid("b6000000", 2), 3: uid("b6000000", 3)}
RF = {1: uid("f1000000", 1), 2: uid("f1000000", 2)}
RFR = {i: uid("f2000000", i) for i in range(1, 4)}
RA = {1: uid("a6000000", 1)}
RAR = {1: uid("a7000000", 1), 2: uid("a7000000", 2)}
STREAM = {1: uid("5a000000", 1)}
APPD, APPL, APPS, APPSUB = uid("ad000000", 1), uid("a1000000", 1), uid("a5000000", 1), uid("ab000000", 1)
COMPANY = uid("cf000000", 1)
LOGO = uid("10600000", 1)
LOA = uid("da000000", 1)
TS = uid("71000000", 1)


def conn_ref(c):
    return {"uuid": c, "name": CONN[c]["name"], "href": f"{B}/connections/{c}"}


def one(ids, item):
    return (ids, item)


COLLECTIONS = {}

# ---- routing -----------------------------------------------------------------------------
COLLECTIONS["routerPackages"] = [
    one({"routerPackageCode": code}, {
        "href": f"{B}/routerPackages/{code}", "type": "ROUTER_PACKAGE", "code": code,
        "description": desc, "totalIPv4RoutesMax": v4, "totalIPv6RoutesMax": v6,
        "routeFilterSupported": code != "LAB", "vcCountMax": vcs, "crCountMax": 3,
        "vcBandwidthMax": bw, "changeLog": {"createdDateTime": T0, "updatedDateTime": T1}})
    for code, desc, v4, v6, vcs, bw in [
        ("LAB", "Lab package for trying Fabric Cloud Router", 50, 50, 10, 50),
        ("STANDARD", "Standard package", 1000, 100, 10, 10000),
        ("PREMIUM", "Premium package", 10000, 10000, 50, 50000)]]

# BGP on the SV router's AWS connections (primary UP, secondary DOWN) and direct on the LD lab.
RP_SPECS = [(1, C[1], "bgp-aws-primary", "UP", "169.254.10.1", "169.254.10.2"),
            (2, C[3], "bgp-aws-secondary", "DOWN", "169.254.11.1", "169.254.11.2")]
COLLECTIONS["routingProtocols"] = [
    one({"connectionId": c, "routingProtocolId": RP[n]}, {
        "type": "BGP", "name": name, "uuid": RP[n],
        "href": f"{B}/connections/{c}/routingProtocols/{RP[n]}", "state": "PROVISIONED",
        "bgpIpv4": {"customerPeerIp": cust, "equinixPeerIp": eq, "enabled": True,
                    "routesMax": 1000,
                    "operation": {"operationalStatus": status, "opStatusChangedAt": T1}},
        "customerAsn": 64512, "equinixAsn": 65000, "asOverrideEnabled": False,
        "changelog": changelog(), "connection": {"uuid": c}})
    for n, c, name, status, cust, eq in RP_SPECS] + [
    one({"connectionId": C[1], "routingProtocolId": RP[3]}, {
        "type": "DIRECT", "name": "direct-aws-primary", "uuid": RP[3],
        "href": f"{B}/connections/{C[1]}/routingProtocols/{RP[3]}", "state": "PROVISIONED",
        "directIpv4": {"equinixIfaceIp": "169.254.10.2/30"}, "changelog": changelog(),
        "connection": {"uuid": C[1]}})]
COLLECTIONS["bgpActions"] = [
    one({"connectionId": C[3], "routingProtocolId": RP[2], "actionId": uid("ba000000", 1)}, {
        "href": f"{B}/connections/{C[3]}/routingProtocols/{RP[2]}/actions/{uid('ba000000', 1)}",
        "uuid": uid("ba000000", 1), "type": "RESET_BGPIPV4",
        "description": "Reset of the IPv4 BGP session after it went down", "state": "SUCCEEDED",
        "changelog": changelog(T1, T1)})]
COLLECTIONS["routingProtocolChanges"] = [
    one({"connectionId": c, "routingProtocolId": RP[n], "changeId": uid("c4000000", n)}, {
        "uuid": uid("c4000000", n), "type": "ROUTING_PROTOCOL_CREATION",
        "href": f"{B}/connections/{c}/routingProtocols/{RP[n]}/changes/{uid('c4000000', n)}",
        "status": "COMPLETED", "createdBy": "sandbox-user", "createdDateTime": T0,
        "updatedBy": "sandbox-user", "updatedDateTime": T0,
        "data": {"op": "add", "path": "", "value": {"type": "BGP", "name": name,
                                                     "bgpIpv4": {"customerPeerIp": cust,
                                                                 "enabled": True},
                                                     "customerAsn": 64512}}})
    for n, c, name, status, cust, eq in RP_SPECS]

ROUTES = [("10.10.0.0/16", "169.254.10.1", C[1], ["64512"]),
          ("10.20.0.0/16", "169.254.11.1", C[3], ["64512"]),
          ("172.16.0.0/24", "169.254.10.1", C[1], ["64512", "64513"])]
COLLECTIONS["routerRoutes"] = [
    one({"routerId": R[1]}, {
        "type": "IPv4_BGP_ROUTE", "protocolType": "BGP", "state": "ACTIVE", "prefix": prefix,
        "nextHop": hop, "MED": 0, "localPreference": 100, "asPath": path,
        "connection": conn_ref(c), "changeLog": changelog()})
    for prefix, hop, c, path in ROUTES]
COLLECTIONS["receivedRoutes"] = [
    one({"connectionId": c}, {
        "type": "IPv4_BGP_ROUTE", "protocolType": "BGP", "state": "ACTIVE", "prefix": prefix,
        "nextHop": hop, "MED": 0, "localPreference": 100, "asPath": path,
        "connection": conn_ref(c), "changeLog": changelog()})
    for prefix, hop, c, path in ROUTES]
COLLECTIONS["advertisedRoutes"] = [
    one({"connectionId": c}, {
        "type": "IPv4_BGP_ROUTE", "protocolType": "BGP", "state": "ACTIVE", "prefix": prefix,
        "nextHop": "169.254.10.2", "MED": 0, "localPreference": 100, "asPath": ["65000"],
        "connection": conn_ref(c), "changeLog": changelog()})
    for prefix, c in [("192.168.100.0/24", C[1]), ("192.168.100.0/24", C[3]),
                      ("192.168.0.0/16", C[1])]]
COLLECTIONS["routerActions"] = [
    one({"routerId": R[1], "actionId": uid("ac000000", n)}, {
        "type": t, "uuid": uid("ac000000", n), "description": d, "state": "SUCCEEDED",
        "changeLog": changelog(T1, T1), "href": f"{B}/routers/{R[1]}/actions/{uid('ac000000', n)}",
        "connection": {"uuid": c, "href": f"{B}/connections/{c}", "type": "IP_VC"},
        "router": {"uuid": R[1], "href": f"{B}/routers/{R[1]}", "type": "XF_ROUTER"}})
    for n, t, d, c in [(1, "BGP_SESSION_STATUS_UPDATE", "BGP session status refresh", C[3]),
                       (2, "RECEIVED_ROUTE_ENTRY_UPDATE", "Received routes refresh", C[1])]]
COLLECTIONS["routerCommands"] = [
    one({"routerId": R[1], "commandId": uid("cc000000", 1)}, {
        "href": f"{B}/routers/{R[1]}/commands/{uid('cc000000', 1)}", "type": "PING_COMMAND",
        "uuid": uid("cc000000", 1), "name": "ping-aws-peer",
        "description": "Ping of the AWS BGP peer", "state": "SUCCEEDED", "project": PROJECT,
        "request": {"destination": "169.254.10.1",
                    "sourceConnection": {"uuid": C[1]}, "timeout": 5, "dataBytes": 100,
                    "count": 5},
        "changeLog": changelog(T1, T1)})]

RF_SPECS = [(1, "BGP_IPv4_PREFIX_FILTER", "aws-inbound-private", "INBOUND"),
            (2, "BGP_IPv4_PREFIX_FILTER", "aws-outbound-summary", "OUTBOUND")]
COLLECTIONS["routeFilters"] = [
    one({"routeFilterId": RF[n]}, {
        "href": f"{B}/routeFilters/{RF[n]}", "type": t, "uuid": RF[n], "name": name,
        "description": f"{direction.lower()} filter of the SV router's AWS sessions",
        "state": "PROVISIONED", "notMatchedRuleAction": "DENY", "connectionsCount": 2,
        "rulesCount": 2 if n == 1 else 1, "project": {"projectId": PROJECT["projectId"],
                                                      "href": "${BASE}/resourceManager/v1/projects/sandbox-project-1"},
        "changelog": changelog()})
    for n, t, name, direction in RF_SPECS]
COLLECTIONS["routeFilterRules"] = [
    one({"routeFilterId": RF[f], "routeFilterRuleId": RFR[n]}, {
        "href": f"{B}/routeFilters/{RF[f]}/routeFilterRules/{RFR[n]}",
        "type": "BGP_IPv4_PREFIX_FILTER_RULE", "uuid": RFR[n], "name": name,
        "description": f"{action.lower()} {prefix}", "state": "PROVISIONED",
        "prefixMatch": match, "action": action, "prefix": prefix, "changelog": changelog()})
    for n, f, name, prefix, match, action in [
        (1, 1, "permit-10-8", "10.0.0.0/8", "orlonger", "PERMIT"),
        (2, 1, "permit-172-16", "172.16.0.0/12", "orlonger", "PERMIT"),
        (3, 2, "permit-192-168", "192.168.0.0/16", "exact", "PERMIT")]]
COLLECTIONS["routeFilterChanges"] = [
    one({"routeFilterId": RF[n], "changeId": uid("c5000000", n)}, {
        "uuid": uid("c5000000", n), "type": "BGP_IPv4_PREFIX_FILTER_CREATION",
        "href": f"{B}/routeFilters/{RF[n]}/changes/{uid('c5000000', n)}", "status": "COMPLETED",
        "createdBy": "sandbox-user", "createdDateTime": T0, "updatedBy": "sandbox-user",
        "updatedDateTime": T0,
        "data": {"op": "add", "path": "", "value": {"type": t, "name": name, "project": PROJECT}}})
    for n, t, name, direction in RF_SPECS]
COLLECTIONS["routeFilterRuleChanges"] = [
    one({"routeFilterId": RF[1], "routeFilterRuleId": RFR[1], "changeId": uid("c6000000", 1)}, {
        "uuid": uid("c6000000", 1), "type": "BGP_IPv4_PREFIX_FILTER_RULE_CREATION",
        "href": f"{B}/routeFilters/{RF[1]}/routeFilterRules/{RFR[1]}/changes/{uid('c6000000', 1)}",
        "status": "COMPLETED", "createdBy": "sandbox-user", "createdDateTime": T0,
        "updatedBy": "sandbox-user", "updatedDateTime": T0,
        "data": {"op": "add", "path": "",
                 "value": {"name": "permit-10-8", "prefix": "10.0.0.0/8",
                           "type": "BGP_IPv4_PREFIX_FILTER_RULE"}}})]
COLLECTIONS["routeFilterAttachments"] = [
    one({"connectionId": c, "routeFilterId": RF[n], "routerId": R[1]}, {
        "href": f"{B}/routeFilters/{RF[n]}", "type": "BGP_IPv4_PREFIX_FILTER", "uuid": RF[n],
        "attachmentStatus": "ATTACHED", "direction": direction, "changeLog": changelog()})
    for n, t, name, direction in RF_SPECS for c in (C[1], C[3])]
COLLECTIONS["routeFilterConnections"] = [
    one({"routeFilterId": RF[n]}, {"href": f"{B}/connections/{c}", "type": "IP_VC", "uuid": c,
                                   "name": CONN[c]["name"]})
    for n, t, name, direction in RF_SPECS for c in (C[1], C[3])]

COLLECTIONS["routeAggregations"] = [
    one({"routeAggregationId": RA[1]}, {
        "href": f"{B}/routeAggregations/{RA[1]}", "type": "BGP_IPv4_PREFIX_AGGREGATION",
        "uuid": RA[1], "name": "aws-summary", "description": "Summarises the SV prefixes to AWS",
        "state": "PROVISIONED", "connectionsCount": 1, "rulesCount": 2,
        "project": {"projectId": PROJECT["projectId"]}, "changeLog": changelog()})]
COLLECTIONS["routeAggregationRules"] = [
    one({"routeAggregationId": RA[1], "routeAggregationRuleId": RAR[n]}, {
        "href": f"{B}/routeAggregations/{RA[1]}/routeAggregationRules/{RAR[n]}",
        "type": "BGP_IPv4_PREFIX_AGGREGATION_RULE", "uuid": RAR[n], "name": name,
        "description": f"aggregate {prefix}", "state": "PROVISIONED", "prefix": prefix,
        "changeLog": changelog()})
    for n, name, prefix in [(1, "sv-192-168", "192.168.0.0/16"), (2, "sv-10-20", "10.20.0.0/16")]]
COLLECTIONS["routeAggregationChanges"] = [
    one({"routeAggregationId": RA[1], "changeId": uid("c7000000", 1)}, {
        "uuid": uid("c7000000", 1), "type": "BGP_IPv4_PREFIX_AGGREGATION_CREATION",
        "href": f"{B}/routeAggregations/{RA[1]}/changes/{uid('c7000000', 1)}",
        "status": "COMPLETED", "createdBy": "sandbox-user", "createdDateTime": T0,
        "updatedBy": "sandbox-user", "updatedDateTime": T0,
        "data": {"op": "add", "path": "",
                 "value": {"type": "BGP_IPv4_PREFIX_AGGREGATION", "name": "aws-summary",
                           "project": PROJECT}}})]
COLLECTIONS["routeAggregationRuleChanges"] = [
    one({"routeAggregationId": RA[1], "routeAggregationRuleId": RAR[1],
         "changeId": uid("c8000000", 1)}, {
        "uuid": uid("c8000000", 1), "type": "BGP_IPv4_PREFIX_AGGREGATION_RULE_CREATION",
        "href": f"{B}/routeAggregations/{RA[1]}/routeAggregationRules/{RAR[1]}/changes/{uid('c8000000', 1)}",
        "status": "COMPLETED", "createdBy": "sandbox-user", "createdDateTime": T0,
        "updatedBy": "sandbox-user", "updatedDateTime": T0,
        "data": {"op": "add", "path": "",
                 "value": {"name": "sv-192-168", "prefix": "192.168.0.0/16",
                           "type": "BGP_IPv4_PREFIX_AGGREGATION_RULE"}}})]
COLLECTIONS["routeAggregationAttachments"] = [
    one({"connectionId": C[1], "routeAggregationId": RA[1], "routerId": R[1]}, {
        "href": f"{B}/routeAggregations/{RA[1]}", "type": "BGP_IPv4_PREFIX_AGGREGATION",
        "uuid": RA[1], "attachmentStatus": "ATTACHED", "changeLog": changelog()})]
COLLECTIONS["routeAggregationConnections"] = [
    one({"routeAggregationId": RA[1]}, {"href": f"{B}/connections/{C[1]}", "type": "IP_VC",
                                        "uuid": C[1], "name": CONN[C[1]]["name"]})]

# ---- observability -----------------------------------------------------------------------
COLLECTIONS["health"] = [one({}, {
    "href": f"{B}/health", "version": "4.31", "release": "sandbox", "state": "OK",
    "apiServices": {"route": "/fabric/v4", "status": "UP", "changedDateTime": T1}})]


def series(base):
    return [{"startDateTime": f"2026-01-15T10:{m:02d}:00Z", "endDateTime": f"2026-01-15T10:{m + 5:02d}:00Z",
             "value": base + m * 1.5} for m in (0, 5, 10)]


METRICS = []
for asset, aid, kind in [("ports", P[1], "port"), ("ports", P[3], "port"),
                         ("connections", C[1], "connection"), ("connections", C[2], "connection")]:
    name = PORT[aid]["name"] if asset == "ports" else CONN[aid]["name"]
    for direction, base in (("rx", 120.0), ("tx", 80.0)):
        METRICS.append(one({"asset": asset, "assetId": aid}, {
            "type": "GAUGE", "name": f"equinix.fabric.{kind}.bandwidth_{direction}.usage",
            "unit": "Mbps", "interval": "5m",
            "resource": {"href": f"{B}/{asset}/{aid}", "uuid": aid,
                         "type": "XF_PORT" if asset == "ports" else "EVPL_VC",
                         "state": "ACTIVE" if asset == "ports" else "PROVISIONED", "name": name},
            "summary": f"{direction} bandwidth of {name}", "datapoints": series(base)}))
METRO = {m["code"]: m["name"] for m in ESTATE["metros"]}
for a, z, ms in [("SV", "DC", 62.4), ("SV", "NY", 68.9), ("LD", "AM", 6.1)]:
    METRICS.append(one({}, {
        "type": "GAUGE", "name": f"equinix.fabric.metro.{a.lower()}_{z.lower()}.latency",
        "unit": "ms", "interval": "5m",
        "resource": {"href": f"{B}/metros/{a}", "type": "XF_METRO", "name": a,
                     "description": f"{METRO[a]} to {METRO[z]} intermetro latency, average in milliseconds"},
        "datapoints": [{"endDateTime": "2026-01-15T10:05:00Z", "value": ms}]}))
COLLECTIONS["metrics"] = METRICS

EVENTS = []
for n, (asset, aid, etype, msg, sev) in enumerate([
        ("connections", C[1], "equinix.fabric.connection.state.provisioned",
         "Connection sv-aws-primary provisioned", "INFO"),
        ("connections", C[3], "equinix.fabric.connection.bgp_ipv4_session_status.down",
         "BGP IPv4 session of sv-aws-secondary is down", "WARNING"),
        ("ports", P[1], "equinix.fabric.port.status.up", "Port SV-DOT1Q-PRI is up", "INFO"),
        ("routers", R[1], "equinix.fabric.router.state.provisioned",
         "Cloud router sandbox-fcr-sv provisioned", "INFO")], start=1):
    eid = uid("ce000000", n)
    EVENTS.append(one({"cloudEventId": eid, "asset": asset, "assetId": aid}, {
        "spec": "1.0", "source": "https://api.equinix.com/fabric/v4", "id": eid, "type": etype,
        "subject": f"/fabric/v4/{asset}/{aid}", "time": f"2026-01-15T0{n}:00:00Z",
        "dataschema": "https://equinix.github.io/equinix-cloud-events/fabric/v1/EventData.json",
        "datacontenttype": "application/json", "severitynumber": "9" if sev == "INFO" else "13",
        "severitytext": sev, "equinixproject": PROJECT["projectId"], "authtype": "system",
        "authid": "equinix",
        "data": {"message": msg, "resource": {"href": f"{B}/{asset}/{aid}", "uuid": aid,
                                              "type": asset, "name": msg.split()[1]}}}))
COLLECTIONS["cloudEvents"] = EVENTS

STREAM_ID = STREAM[1]
COLLECTIONS["streams"] = [one({"streamId": STREAM_ID}, {
    "href": f"{B}/streams/{STREAM_ID}", "uuid": STREAM_ID, "type": "TELEMETRY_STREAM",
    "name": "sandbox-telemetry", "description": "Metrics and events of the SV estate",
    "project": PROJECT, "state": "PROVISIONED", "assetsCount": 3, "streamSubscriptionsCount": 1,
    "alertRulesCount": 1, "changeLog": changelog()})]
COLLECTIONS["streamAssets"] = [
    one({"streamId": STREAM_ID, "asset": asset, "assetId": aid}, {
        "href": f"{B}/streams/{STREAM_ID}/{asset}/{aid}", "uuid": aid, "streamUuid": STREAM_ID,
        "type": t, "metricsEnabled": True, "attachmentStatus": "ATTACHED",
        "projectId": PROJECT["projectId"]})
    for asset, aid, t in [("ports", P[1], "XF_PORT"), ("connections", C[1], "EVPL_VC"),
                          ("routers", R[1], "XF_ROUTER")]]
COLLECTIONS["streamSubscriptions"] = [one(
    {"streamId": STREAM_ID, "subscriptionId": uid("5b000000", 1)}, {
        "href": f"{B}/streams/{STREAM_ID}/subscriptions/{uid('5b000000', 1)}",
        "uuid": uid("5b000000", 1), "type": "STREAM_SUBSCRIPTION", "name": "sandbox-webhook",
        "description": "Sends the stream to the operations webhook", "state": "PROVISIONED",
        "enabled": True, "metricSelector": {"include": ["equinix.fabric.connection.*"]},
        "eventSelector": {"include": ["equinix.fabric.connection.*"]},
        "sink": {"uri": "https://hooks.example.com/fabric", "type": "WEBHOOK",
                 "batchEnabled": False},
        "changeLog": changelog()})]
COLLECTIONS["streamAlertRules"] = [one(
    {"streamId": STREAM_ID, "alertRuleId": uid("5c000000", 1)}, {
        "href": f"{B}/streams/{STREAM_ID}/alertRules/{uid('5c000000', 1)}",
        "uuid": uid("5c000000", 1), "type": "METRIC_ALERT", "name": "sv-aws-primary-rx-high",
        "description": "Warns when sv-aws-primary receives above 800 Mbps", "state": "ACTIVE",
        "enabled": True,
        "metricSelector": {"include": ["equinix.fabric.connection.bandwidth_rx.usage"]},
        "resourceSelector": {"include": [f"/fabric/v4/connections/{C[1]}"]},
        "detectionMethod": {"type": "THRESHOLD", "windowSize": "PT15M", "operand": "ABOVE",
                            "warningThreshold": "800", "criticalThreshold": "950"},
        "changeLog": changelog()})]
