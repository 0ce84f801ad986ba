"""The hand-written seed of the sandbox's read-operation estate (scripts/gen-sandbox-readops.py).

Ids follow resources/sandbox/estate.json's scheme <kind>-0000-4000-8000-<serial>; what the read
operations show hangs off the estate's own ports (P*), connections (C*), cloud routers (R*),
networks (N*) and service profiles (SP*): the SV router's BGP sessions run on the AWS
connections, its route filter and aggregation are attached there, the metrics and events are
about the estate's ports and connections, and so on.
"""
import json
import os
import struct
import zlib

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

# ---- precision time ----------------------------------------------------------------------
COLLECTIONS["timeServicePackages"] = [
    one({"packageCode": code}, {
        "href": f"{B}/timeServicePackages/{code}", "type": "TIME_SERVICE_PACKAGE", "code": code,
        "bandwidth": bw, "clientsPerSecondMax": cps, "redundancySupported": True,
        "multiSubnetSupported": code.endswith("ENTERPRISE"), "accuracySlaUnit": "microseconds",
        "accuracySla": sla, "changelog": changelog()})
    for code, bw, cps, sla in [("NTP_STANDARD", 1, 1000, -1), ("NTP_ENTERPRISE", 5, 5000, -1),
                               ("PTP_STANDARD", 5, 10, 50), ("PTP_ENTERPRISE", 10, 20, 1)]]
COLLECTIONS["timeServices"] = [one({"serviceId": TS}, {
    "href": f"{B}/timeServices/{TS}", "type": "NTP", "name": "sandbox-ntp-sv", "uuid": TS,
    "state": "PROVISIONED",
    "package": {"href": f"{B}/timeServicePackages/NTP_STANDARD", "code": "NTP_STANDARD"},
    "connections": [{"href": f"{B}/connections/{C[2]}", "type": "EVPL_VC", "uuid": C[2]}],
    "ipv4": {"primary": "192.168.254.241", "secondary": "192.168.254.242",
             "networkMask": "255.255.255.240", "defaultGateway": "192.168.254.254"},
    "project": PROJECT, "account": {"accountNumber": 100001}, "changeLog": changelog()})]
COLLECTIONS["timeServiceConnections"] = [one({"serviceId": TS}, {
    "href": f"{B}/connections/{C[2]}", "type": "EVPL_VC", "uuid": C[2]})]

# ---- marketplace -------------------------------------------------------------------------
COLLECTIONS["appDomains"] = [one({"appDomainId": APPD}, {
    "href": f"{B}/appDomains/{APPD}", "type": "APP_DOMAIN", "uuid": APPD,
    "name": "sandbox-apps", "description": "Application domain of the SV estate",
    "state": "PROVISIONED", "project": PROJECT, "changeLog": changelog()})]
APP_LINK = {"href": f"{B}/appLinks/{APPL}", "type": "APP_LINK", "uuid": APPL,
            "name": "sandbox-app-link-sv", "description": "App link on the SV cloud router",
            "state": "PROVISIONED",
            "router": {"href": f"{B}/routers/{R[1]}", "type": "XF_ROUTER", "uuid": R[1]},
            "ipv4Address": "10.250.0.1", "bandwidth": 100, "project": PROJECT}
APP_SERVICE = {"href": f"{B}/appServices/{APPS}", "type": "APP_SERVICE", "uuid": APPS,
               "name": "sandbox-saas-crm", "description": "CRM service reached over the app link",
               "state": "PROVISIONED", "endpoint": "crm.example.com",
               "sourceDomains": ["example.com"], "project": PROJECT}
COLLECTIONS["appLinks"] = [one({"appLinkId": APPL}, dict(APP_LINK, changeLog=changelog()))]
COLLECTIONS["appDomainAppLinks"] = [one({"appDomainId": APPD}, APP_LINK)]
COLLECTIONS["appServiceAppLinks"] = [one({"appServiceId": APPS}, APP_LINK)]
COLLECTIONS["appLinkAppDomains"] = [one({"appLinkId": APPL}, {
    "href": f"{B}/appDomains/{APPD}", "type": "APP_DOMAIN", "uuid": APPD, "name": "sandbox-apps",
    "state": "PROVISIONED", "project": PROJECT, "attachmentStatus": "ATTACHED"})]
COLLECTIONS["appLinkDomainAttachments"] = [one({"appLinkId": APPL, "appDomainId": APPD}, {
    "href": f"{B}/appLinks/{APPL}/appDomains/{APPD}", "type": "APP_DOMAIN", "uuid": APPD,
    "name": "sandbox-apps", "attachmentStatus": "ATTACHED", "changeLog": changelog()})]
COLLECTIONS["appLinkAppServices"] = [one({"appLinkId": APPL}, dict(
    APP_SERVICE, geoScope="AMER", destinationIp="10.250.1.10", attachmentStatus="ATTACHED"))]
COLLECTIONS["appLinkServiceAttachments"] = [one({"appLinkId": APPL, "appServiceId": APPS}, {
    "href": f"{B}/appLinks/{APPL}/appServices/{APPS}", "type": "APP_SERVICE", "uuid": APPS,
    "geoScope": "AMER", "destinationIp": "10.250.1.10", "attachmentStatus": "ATTACHED",
    "changeLog": changelog()})]
COLLECTIONS["appServices"] = [one({"appServiceId": APPS}, dict(
    APP_SERVICE, account=ACCOUNT, changeLog=changelog()))]
COLLECTIONS["appServiceSubscriptions"] = [one({"appServiceId": APPS}, {
    "href": f"{B}/appSubscriptions/{APPSUB}", "type": "APP_SUBSCRIPTION", "uuid": APPSUB,
    "state": "PROVISIONED", "account": ACCOUNT})]
COLLECTIONS["appSubscriptions"] = [one({"appSubscriptionId": APPSUB}, {
    "href": f"{B}/appSubscriptions/{APPSUB}", "type": "APP_SUBSCRIPTION", "uuid": APPSUB,
    "source": {"appLink": {"href": f"{B}/appLinks/{APPL}", "uuid": APPL},
               "ipSubnets": ["10.10.0.0/16"]},
    "target": {"appService": {"href": f"{B}/appServices/{APPS}", "uuid": APPS},
               "geoScope": "AMER", "prioritization": "LATENCY"},
    "state": "PROVISIONED", "project": PROJECT, "changeLog": changelog()})]

TAGS = [(uid("7a000000", 1), "CLOUD", "Cloud", "APPROVED", True),
        (uid("7a000000", 2), "NETWORK", "Network services", "APPROVED", True),
        (uid("7a000000", 3), "SECURITY", "Security", "PENDING_APPROVAL", False)]
COLLECTIONS["tags"] = [
    one(dict({"uuid": t}, **({"companyProfileId": COMPANY} if on else {})), {
        "href": f"{B}/tags/{t}", "uuid": t, "type": "COMPANY_PROFILE", "name": name,
        "displayName": display, "state": state, "changeLog": changelog()})
    for t, name, display, state, on in TAGS]
COLLECTIONS["companyProfiles"] = [one({"companyProfileId": COMPANY}, {
    "href": f"{B}/companyProfiles/{COMPANY}", "uuid": COMPANY, "type": "COMPANY_PROFILE",
    "name": "Sandbox Managed Services", "summary": "Layer 2 managed services in the sandbox",
    "description": "The seller of the sandbox's generic layer 2 service profile",
    "state": "ACTIVE", "account": {"organizationName": "Sandbox Managed Services"},
    "metros": [{"href": f"{B}/metros/{m['code']}", "metroCode": m["code"]}
               for m in ESTATE["serviceProfiles"][2]["metros"]],
    "logo": {"href": f"{B}/logos/{LOGO}", "uuid": LOGO, "extensionType": "png"},
    "serviceProfiles": [{"href": f"{B}/serviceProfiles/{SP[3]}", "uuid": SP[3]}],
    "privateServices": [{"href": f"{B}/serviceProfiles/{SP[1]}", "uuid": SP[1]}],
    "webUrl": "https://managed.example.com", "changeLog": changelog()})]
COLLECTIONS["companyServiceProfiles"] = [one({"companyProfileId": COMPANY}, {
    "href": f"{B}/serviceProfiles/{SP[3]}", "uuid": SP[3]})]
COLLECTIONS["companyPrivateServices"] = [one({"companyProfileId": COMPANY}, {
    "href": f"{B}/serviceProfiles/{SP[1]}", "uuid": SP[1]})]
SUB = uid("b5000000", 1)
COLLECTIONS["marketplaceSubscriptions"] = [one({"subscriptionId": SUB}, {
    "href": f"{B}/marketplaceSubscriptions/{SUB}", "uuid": SUB, "state": "ACTIVE",
    "marketplace": "AWS", "offerType": "PUBLIC", "isAutoRenew": True, "offerId": "sandbox-fcr-offer",
    "metroCodes": ["SV", "LD"],
    "entitlements": [{"uuid": uid("b5100000", 1), "quantityEntitled": 2, "quantityConsumed": 2,
                      "quantityAvailable": 0,
                      "asset": {"type": "XF_ROUTER", "package": {"code": "STANDARD"}}}],
    "changelog": changelog()})]


def png_1x1():
    """A 16x16 PNG in the sandbox's colour, built here (no binary file in the repository)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    raw = b"".join(b"\x00" + bytes([0xd1, 0x0f, 0x2a]) * 16 for _ in range(16))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 16, 16, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


FILES = {LOGO: ("image/png", png_1x1())}
COLLECTIONS["logos"] = [one({"uuid": LOGO}, {"file": LOGO})]

# ---- account, ports, networks, services --------------------------------------------------
LOA_ACTION = uid("da100000", 1)
DEMARC = {"cageUniqueSpaceId": "SV1:01:002174", "patchPanelId": "PP:0101:1234",
          "patchPanelPortA": 1, "patchPanelPortB": 2, "connectorType": "LC"}
COLLECTIONS["loas"] = [one({"loaId": LOA}, {
    "href": f"{B}/loas/{LOA}", "uuid": LOA, "type": "PATCH_PANEL_PORT_LOA",
    "name": "sv1-cross-connect-loa", "description": "LOA for the cross connect to SV-DOT1Q-PRI",
    "authorizedProductType": "XC", "state": "ACTIVE",
    "requestor": {"email": "requestor@example.com", "orgId": 100001, "orgName": "Sandbox Org"},
    "issuer": {"email": "issuer@example.com", "orgId": 100002, "orgName": "Sandbox Colo Tenant"},
    "demarcationPoint": DEMARC, "location": {"ibxCode": "SV1"},
    "expirationDateTime": "2026-12-31T00:00:00Z", "changeLog": changelog()})]
COLLECTIONS["loaActions"] = [one({"loaId": LOA, "actionId": LOA_ACTION}, {
    "href": f"{B}/loas/{LOA}/actions/{LOA_ACTION}", "uuid": LOA_ACTION, "state": "COMPLETED",
    "type": "LOA_ISSUER_AUTHORIZATION",
    "data": {"demarcationPoint": DEMARC, "expirationDateTime": "2026-12-31T00:00:00Z"},
    "changeLog": changelog(T1, T1)})]
COLLECTIONS["loaConsumers"] = [one({"loaId": LOA}, {
    "href": f"{B}/ports/{P[1]}", "uuid": P[1], "type": "XF_PORT", "changeLog": changelog()})]
COLLECTIONS["loaNotes"] = [one({"loaId": LOA}, {
    "type": "ISSUER", "href": f"{B}/loas/{LOA}/notes/{uid('da200000', 1)}",
    "uuid": uid("da200000", 1), "comments": "Patch panel ports 1 and 2 reserved",
    "createdDateTime": T1})]

IC = uid("1c000000", 1)
IC_PACKAGE = {"href": f"{B}/interconnectPackages/IC_STANDARD", "type": "INTERCONNECT_PACKAGE",
              "uuid": uid("1c100000", 1), "code": "IC_STANDARD",
              "description": "Standard Fabric One interconnect", "routesMax": 1000,
              "bandwidthMax": 10000, "isRemote": False}
COLLECTIONS["interconnectPackages"] = [one({}, IC_PACKAGE)]
COLLECTIONS["interconnects"] = [one({"interconnectId": IC}, {
    "href": f"{B}/interconnects/{IC}", "uuid": IC, "type": "XF_IC", "name": "sandbox-ic-sv",
    "description": "Fabric One interconnect in Silicon Valley", "state": "PROVISIONED",
    "location": {"href": f"{B}/metros/SV", "metroCode": "SV"}, "usedBandwidth": 1000,
    "package": IC_PACKAGE, "account": ACCOUNT, "project": PROJECT, "changeLog": changelog()})]
GW = uid("6a000000", 1)
COLLECTIONS["gateways"] = [one({"gatewayId": GW}, {
    "href": f"{B}/gateways/{GW}", "type": "VPN_GW", "uuid": GW, "name": "sandbox-vpn-sv",
    "description": "VPN gateway on the SV cloud router", "state": "PROVISIONED",
    "bandwidth": 1000, "localAsn": 65000,
    "router": {"href": f"{B}/routers/{R[1]}", "uuid": R[1], "type": "XF_ROUTER"},
    "ipv4": {"primaryIp": "203.0.113.10", "secondaryIp": "203.0.113.11"},
    "project": PROJECT, "changeLog": changelog()})]
IPB = uid("1b000000", 1)
EIA = uid("ea000000", 1)
COLLECTIONS["ipBlocks"] = [one({"uuid": IPB}, {
    "uuid": IPB, "href": f"{B}/ipBlocks/{IPB}", "type": "IPV4_IP_BLOCK", "state": "ACTIVE",
    "ownership": "EQUINIX", "location": {"metroHref": f"{B}/metros/SV", "metroCode": "SV"},
    "prefixLength": 29, "prefix": "203.0.113.0/29",
    "order": {"href": "${BASE}/orders/sandbox-ipb-1", "orderNumber": "sandbox-ipb-1"},
    "account": {"accountNumber": "100001"}, "project": PROJECT,
    "assets": [{"type": "EIA", "uuid": EIA, "href": f"{B}/internetAccessServices/{EIA}"}],
    "changeLog": {"createdDateTime": T0, "updatedDateTime": T1}})]
COLLECTIONS["internetAccessServices"] = [one({"uuid": EIA}, {
    "href": f"{B}/internetAccessServices/{EIA}", "type": "SINGLE_IA", "uuid": EIA,
    "name": "sandbox-internet-sv", "bandwidth": 1000, "bandwidthCommit": 500,
    "state": "PROVISIONED", "change": {"href": f"{B}/internetAccessServices/{EIA}/changes/1"},
    "routingProtocol": {"type": "DIRECT",
                        "customerRoutes": [{"ipBlock": {"href": f"{B}/ipBlocks/{IPB}",
                                                        "uuid": IPB}}],
                        "connections": [{"href": f"{B}/connections/{C[1]}", "uuid": C[1]}]},
    "billing": {"type": "FIXED", "enabled": True, "startDate": T0},
    "account": {"accountNumber": "100001"}, "project": PROJECT,
    "order": {"orderNumber": "sandbox-eia-1"}, "changeLog": changelog(), "useCase": "MAIN"})]
IX = uid("e5000000", 1)
COLLECTIONS["exchangeServices"] = [one({"exchangeServiceId": IX}, {
    "href": f"{B}/exchangeServices/{IX}", "uuid": IX, "type": "IX", "name": "sandbox-ix-sv",
    "bandwidth": 1000, "description": "Internet Exchange port in Silicon Valley",
    "state": "PROVISIONED",
    "location": {"metroHref": f"{B}/metros/SV", "region": "AMER", "metroName": "Silicon Valley",
                 "metroCode": "SV", "ibx": "SV1"},
    "routingProtocol": {"customerAsn": "64512", "vlan": 100, "routeServerAsn": 24115},
    "project": PROJECT, "account": ACCOUNT})]
OC = uid("0c000000", 1)
COLLECTIONS["opticalConnects"] = [one({"opticalConnectId": OC}, {
    "href": f"{B}/opticalConnects/{OC}", "uuid": OC, "type": "OC", "name": "sandbox-oc-sv1-sv5",
    "state": "PROVISIONED", "bandwidth": 10000, "connectionDestinationType": "COLO",
    "pathType": "PROTECTED",
    "aSide": {"patchPanelId": "PP:0101:1234", "patchPanelPortA": "3", "connectorType": "LC",
              "cageUniqueSpaceId": "SV1:01:002174", "location": {"ibxCode": "SV1"}},
    "zSide": {"patchPanelId": "PP:0505:4321", "patchPanelPortA": "7", "connectorType": "LC",
              "cageUniqueSpaceId": "SV5:02:001122", "location": {"ibxCode": "SV5"}},
    "account": ACCOUNT, "changeLog": changelog()})]
COLLECTIONS["portPackages"] = [
    one({}, {"href": f"{B}/portPackages/{code}", "type": "PORT_PACKAGE", "code": code,
             "vcBandwidthMax": bw, "vcRemoteSupported": remote, "supportedServiceTypes": [],
             "supportedSourceTypes": sources,
             "supportedMetros": sorted(m["code"] for m in ESTATE["metros"])})
    for code, bw, remote, sources in [("STANDARD", 10000, True, ["COLO", "REMOTE"]),
                                      ("UNLIMITED", 100000, True, ["COLO", "REMOTE", "BMMR"])]]

NET_CHANGE = uid("c9000000", 1)
COLLECTIONS["networkChanges"] = [
    one({"networkId": n, "changeId": uid("c9000000", i)}, {
        "href": f"{B}/networks/{n}/changes/{uid('c9000000', i)}", "uuid": uid("c9000000", i),
        "type": "NETWORK_CREATION", "status": "COMPLETED", "createdDateTime": T0,
        "updatedDateTime": T0,
        "data": [{"op": "add", "path": "", "value": {"name": net["name"], "type": net["type"]}}]})
    for i, (n, net) in enumerate(zip((N[1], N[2]), ESTATE["networks"]), start=1)]
EVPLAN = uid("c0000000", 90)
COLLECTIONS["networkConnections"] = [one({"networkId": N[1]}, {
    "href": f"{B}/connections/{EVPLAN}", "type": "EVPLAN_VC", "uuid": EVPLAN,
    "name": "dc-evplan-member", "state": "ACTIVE", "bandwidth": 100,
    "aSide": {"accessPoint": {"type": "COLO", "port": {"uuid": P[3], "href": f"{B}/ports/{P[3]}"},
                              "linkProtocol": {"type": "DOT1Q", "vlanTag": 250}}},
    "zSide": {"accessPoint": {"type": "NETWORK",
                              "network": {"uuid": N[1], "href": f"{B}/networks/{N[1]}"}}},
    "changeLog": changelog()})]

COLLECTIONS["serviceProfileMetros"] = [
    one({"serviceProfileId": sp["uuid"]}, dict(
        {"code": m["code"], "name": next(x["name"] for x in ESTATE["metros"] if x["code"] == m["code"]),
         "ibxs": sorted({p["ibx"] for p in ESTATE["ports"] if p["metro"] == m["code"]}),
         "vcBandwidthMax": max(sp["bandwidths"]), "inTrail": False,
         "displayName": next(x["name"] for x in ESTATE["metros"] if x["code"] == m["code"])},
        **({"sellerRegions": m["sellerRegions"]} if "sellerRegions" in m else {})))
    for sp in ESTATE["serviceProfiles"] for m in sp["metros"]]
COLLECTIONS["serviceProfileEnvironments"] = [one({"serviceProfileId": SP[2]}, {
    "href": f"{B}/serviceProfiles/{SP[2]}/environments/{uid('5e100000', 1)}",
    "uuid": uid("5e100000", 1), "type": "IC_ENV", "name": "azure-westus",
    "description": "ExpressRoute environment in West US", "region": "westus",
    "supportedBandwidths": [50, 100, 200, 500, 1000], "supportedFeatures": ["IPV6"],
    "changeLog": changelog()})]

# ---- operations --------------------------------------------------------------------------
# operationId -> the collection SandboxReadOps serves it from ("@ports": the estate's ports),
# or None: served by SandboxApi's older handlers (the core catalog's reads and a few more).
SERVED = {
    "searchLoa": "loas", "getLoaByUuid": "loas", "searchLoaAction": "loaActions",
    "getLoaActionsByUuid": "loaActions", "getLoaConsumersByLoaId": "loaConsumers",
    "getLoaNotesByUuid": "loaNotes", "listTags": "tags", "getTagByUuid": "tags",
    "getInterconnectPackages": "interconnectPackages", "searchInterconnects": "interconnects",
    "getInterconnectByUuid": "interconnects", "getGatewayByUuid": "gateways",
    "searchIpBlocks": "ipBlocks", "getIpBlock": "ipBlocks",
    "searchEiaServices": "internetAccessServices", "getEiaService": "internetAccessServices",
    "searchExchangeService": "exchangeServices", "getExchangeServiceById": "exchangeServices",
    "getMetroByCode": None, "getNetworkChanges": "networkChanges",
    "getNetworkChangeByUuid": "networkChanges", "getConnectionsByNetworkUuid": "networkConnections",
    "searchOpticalConnect": "opticalConnects", "getOpticalConnectByUuid": "opticalConnects",
    "getPortPackages": "portPackages", "searchPorts": "@ports", "getServiceProfiles": None,
    "getServiceProfileEnvironmentsByUuid": "serviceProfileEnvironments",
    "getServiceProfileMetrosByUuid": "serviceProfileMetros", "getServiceTokens": None,
    "searchAppDomains": "appDomains", "getAppDomainByUuid": "appDomains",
    "getAttachedAppLinksByAppDomainId": "appDomainAppLinks", "searchAppLinks": "appLinks",
    "getAppLinkByUuid": "appLinks", "getAttachedAppDomainsByAppLinkId": "appLinkAppDomains",
    "searchAttachedAppDomains": "appLinkDomainAttachments",
    "getAttachedAppDomainByUuid": "appLinkDomainAttachments",
    "getAttachedAppServicesByAppLinkId": "appLinkAppServices",
    "searchAttachedAppServices": "appLinkServiceAttachments",
    "getAttachedAppServiceByUuid": "appLinkServiceAttachments",
    "searchAppServices": "appServices", "getAppServiceByUuid": "appServices",
    "getAttachedAppLinksByAppServiceId": "appServiceAppLinks",
    "getAttachedAppSubscriptionsByAppServiceId": "appServiceSubscriptions",
    "searchAttachedAppSubscriptionsByAppServiceId": "appServiceSubscriptions",
    "searchAppSubscriptions": "appSubscriptions", "getAppSubscriptionByUuid": "appSubscriptions",
    "searchCompanyProfile": "companyProfiles", "getCompanyProfile": "companyProfiles",
    "getCompanyProfilePrivateServices": "companyPrivateServices",
    "getCompanyProfileServiceProfiles": "companyServiceProfiles", "getTags": "tags",
    "getLogoByUuid": "logos", "getSubscriptionById": "marketplaceSubscriptions",
    "searchCloudEvents": "cloudEvents", "getCloudEvent": "cloudEvents",
    "searchLastOpEvents": "cloudEvents", "getCloudEventByAssetId": "cloudEvents",
    "getStatus": "health", "getMetricByName": "metrics", "searchMetrics": "metrics",
    "getMetricByAssetId": "metrics", "getStreamAlertRules": "streamAlertRules",
    "getStreamAlertRuleByUuid": "streamAlertRules",
    "searchStreamSubscriptions": "streamSubscriptions",
    "getStreamSubscriptions": "streamSubscriptions",
    "getStreamSubscriptionByUuid": "streamSubscriptions", "searchStreamAssets": "streamAssets",
    "getStreams": "streams", "searchStreams": "streams", "getStreamByUuid": "streams",
    "getStreamAssetByUuid": "streamAssets", "getTimeServicesPackages": "timeServicePackages",
    "getTimeServicesPackageByCode": "timeServicePackages", "searchTimeServices": "timeServices",
    "getTimeServicesById": "timeServices",
    "getTimeServicesConnectionsByServiceId": "timeServiceConnections",
    "searchCloudRouters": None, "searchConnections": None, "getConnectionByUuid": None,
    "getMetros": None, "searchNetworks": None, "getNetworkByUuid": None, "getPorts": None,
    "getPortByUuid": None, "getVlans": None, "searchPrices": None,
    "searchServiceProfiles": None, "getServiceProfileByUuid": None,
    "searchServiceTokens": None, "getServiceTokenByUuid": None,
    "searchConnectionAdvertisedRoutes": "advertisedRoutes",
    "searchConnectionReceivedRoutes": "receivedRoutes",
    "getCloudRouterPackages": "routerPackages", "getCloudRouterPackageByCode": "routerPackages",
    "getCloudRouterByUuid": None, "getCloudRouterActions": "routerActions",
    "searchRouterActions": "routerActions", "getCloudRouterActionsByUuid": "routerActions",
    "getAllCloudRouterCommands": "routerCommands", "searchCloudRouterCommands": "routerCommands",
    "getCloudRouterCommand": "routerCommands", "searchCloudRouterRoutes": "routerRoutes",
    "getRouteAggregationRules": "routeAggregationRules",
    "searchRouteAggregationRules": "routeAggregationRules",
    "getRouteAggregationRuleByUuid": "routeAggregationRules",
    "getRouteAggregationRuleChanges": "routeAggregationRuleChanges",
    "getRouteAggregationRuleChangeByUuid": "routeAggregationRuleChanges",
    "getConnectionRouteAggregations": "routeAggregationAttachments",
    "getConnectionRouteAggregationByUuid": "routeAggregationAttachments",
    "searchRouteAggregations": "routeAggregations", "getRouteAggregationByUuid": "routeAggregations",
    "getRouteAggregationChanges": "routeAggregationChanges",
    "getRouteAggregationChangeByUuid": "routeAggregationChanges",
    "getRouteAggregationConnections": "routeAggregationConnections",
    "searchCloudRouterRouteAggregationAttachments": "routeAggregationAttachments",
    "getRouteFilterRules": "routeFilterRules", "searchRouteFilterRules": "routeFilterRules",
    "getRouteFilterRuleByUuid": "routeFilterRules",
    "getRouteFilterRuleChanges": "routeFilterRuleChanges",
    "getRouteFilterRuleChangeByUuid": "routeFilterRuleChanges",
    "getConnectionRouteFilters": "routeFilterAttachments",
    "getConnectionRouteFilterByUuid": "routeFilterAttachments",
    "searchRouteFilters": "routeFilters", "getRouteFilterByUuid": "routeFilters",
    "getRouteFilterChanges": "routeFilterChanges", "getRouteFilterChangeByUuid": "routeFilterChanges",
    "getRouteFilterConnections": "routeFilterConnections",
    "searchCloudRouterRouteFilterAttachments": "routeFilterAttachments",
    "getConnectionRoutingProtocols": "routingProtocols",
    "getConnectionRoutingProtocolByUuid": "routingProtocols",
    "getConnectionRoutingProtocolAllBgpActions": "bgpActions",
    "getConnectionRoutingProtocolsBgpActionByUuid": "bgpActions",
    "getConnectionRoutingProtocolsChanges": "routingProtocolChanges",
    "getConnectionRoutingProtocolsChangeByUuid": "routingProtocolChanges",
}
# Query parameters that filter a list: parameter -> JSON pointer of the item it must equal.
QUERY = {
    "listTags": {"type": "/type"},
    "getMetricByName": {"name": "/name"},
    "getMetricByAssetId": {"name": "/name"},
    "getCloudRouterActions": {"state": "/state"},
    "getCloudRouterActionsByUuid": {"state": "/state"},
    "getAttachedAppLinksByAppDomainId": {"state": "/state"},
    "getAttachedAppLinksByAppServiceId": {"state": "/state"},
    "getAttachedAppSubscriptionsByAppServiceId": {"state": "/state"},
    "getAttachedAppDomainsByAppLinkId": {"attachmentStatus": "/attachmentStatus"},
    "getAttachedAppServicesByAppLinkId": {"attachmentStatus": "/attachmentStatus"},
}
# Path parameter values of the samples of the operations SandboxApi serves (and defaults).
SAMPLE_IDS = {"connectionId": C[1], "networkId": N[1], "portId": P[1], "portUuid": P[1],
              "serviceProfileId": SP[1], "serviceTokenId": uid("70000000", 1),
              "routerId": R[1], "metroCode": "SV"}
# Sample query and body where the operation needs more than nothing.
EQ = lambda prop, *values: {"filter": {"and": [{"property": prop, "operator": "=",
                                                "values": list(values)}]}}
SAMPLE = {
    "searchPorts": {"body": EQ("/location/metroCode", "SV")},
    "searchCloudEvents": {"body": EQ("/subject", f"/fabric/v4/connections/{C[3]}")},
    "searchLastOpEvents": {"body": EQ("/subject", f"/fabric/v4/connections/{C[1]}")},
    "searchMetrics": {"body": EQ("/name", "equinix.fabric.port.bandwidth_rx.usage")},
    "searchStreamSubscriptions": {"body": EQ("/state", "PROVISIONED")},
    "getMetricByName": {"query": {"name": "equinix.fabric.metro.*.latency", "value": "last"}},
    "getMetricByAssetId": {"query": {"name": "equinix.fabric.port.bandwidth_tx.usage"}},
    "searchRouteFilters": {"body": {"filter": {"and": [{"property": "/type", "operator": "=",
                                                        "values": ["BGP_IPv4_PREFIX_FILTER"]}]},
                                    "pagination": {"offset": 0, "limit": 1}}},
    "searchConnections": {"body": EQ("/name", "sv-aws-primary")},
    "searchNetworks": {"body": EQ("/name", "sandbox-evplan-global")},
    "searchServiceProfiles": {"body": EQ("/name", "AWS Direct Connect")},
    "searchServiceTokens": {"body": EQ("/uuid", uid("70000000", 1))},
    "searchCloudRouters": {"body": EQ("/name", "sandbox-fcr-sv")},
    "searchPrices": {"body": {"filter": {"and": [
        {"property": "/type", "operator": "=", "values": ["VIRTUAL_CONNECTION_PRODUCT"]},
        {"property": "/connection/type", "operator": "=", "values": ["EVPL_VC"]},
        {"property": "/connection/bandwidth", "operator": "IN", "values": [1000]},
        {"property": "/connection/aSide/accessPoint/type", "operator": "=", "values": ["COLO"]},
        {"property": "/connection/aSide/accessPoint/location/metroCode", "operator": "=",
         "values": ["SV"]},
        {"property": "/connection/zSide/accessPoint/type", "operator": "=", "values": ["COLO"]},
        {"property": "/connection/zSide/accessPoint/location/metroCode", "operator": "=",
         "values": ["DC"]}]}}},
}
OPERATIONS = {}
for op, collection in SERVED.items():
    entry = {"collection": collection} if collection else {}
    if op in QUERY:
        entry["query"] = QUERY[op]
    entry["sample"] = SAMPLE.get(op, {})
    OPERATIONS[op] = entry
