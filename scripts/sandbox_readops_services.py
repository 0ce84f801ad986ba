"""The seed of the sandbox's read estate, continued (scripts/sandbox_readops_seed.py has the ids
and the routing and observability entities): precision time, applications and marketplace,
LOAs, tags, Fabric One interconnects, gateways, IP blocks, Internet access and exchange services,
optical connects, port packages, network changes and service profile metros. Adds to COLLECTIONS
and defines FILES (the logo).
"""
import struct
import zlib

from sandbox_readops_seed import (ACCOUNT, APPD, APPL, APPS, APPSUB, B, C, COMPANY, ESTATE,
                                  LOA, LOGO, N, P, PROJECT, R, SP, T0, T1, TS, COLLECTIONS,
                                  changelog, one, uid)

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


def logo_png():
    """A 16x16 PNG in the sandbox's colour, built here (no binary file in the repository)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    raw = b"".join(b"\x00" + bytes([0xd1, 0x0f, 0x2a]) * 16 for _ in range(16))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 16, 16, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


FILES = {LOGO: ("image/png", logo_png())}
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
