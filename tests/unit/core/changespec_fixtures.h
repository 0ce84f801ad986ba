#pragma once
// JSON fixtures for the change spec tests: one valid spec per supported variant, shaped like the
// Fabric v4 request examples (ConnectionPostRequest, NetworkPostRequest, ServiceToken). Kept out
// of the Q_OBJECT test files because moc (Qt 6.4) cannot parse raw string literals.

namespace fixtures {

struct Fixture {
    const char *name;
    const char *changeType;
    const char *json;
};

// ---------------------------------------------------------------- connection_create

// Port (DOT1Q) to the AWS service profile, with names, seller region, authentication key,
// redundancy, project, order and notifications.
inline constexpr const char kConnPortToAwsDot1q[] = R"({
  "type": "EVPL_VC",
  "name": "SV-AWS-Primary",
  "bandwidth": 1000,
  "order": {"purchaseOrderNumber": "po1234", "customerReferenceNumber": "ref-7", "termLength": 1},
  "redundancy": {"priority": "PRIMARY"},
  "aSide": {"accessPoint": {
    "type": "COLO",
    "port": {"uuid": "a00cef6f-8e35-4794-9ff9-665e084e4e6d", "name": "SV-Port-01"},
    "location": {"metroCode": "SV"},
    "linkProtocol": {"type": "DOT1Q", "vlanTag": 1001}}},
  "zSide": {"accessPoint": {
    "type": "SP",
    "profile": {"type": "L2_PROFILE", "uuid": "22d4e853-ef33-4ff0-b5b2-a2b1d5dfa50c", "name": "AWS"},
    "location": {"metroCode": "SV"},
    "sellerRegion": "us-west-1",
    "authenticationKey": "123456789012"}},
  "project": {"projectId": "ac4d34ca-0d9c-4bc2-9aab-1234567abcde"},
  "notifications": [{"type": "ALL", "emails": ["noc@example.com", "ops@example.net"]}]
})";

// Port (QINQ with both tags) to a service profile given by uuid only, Azure-style peering type.
inline constexpr const char kConnPortToProfileQinq[] = R"({
  "type": "EVPL_VC",
  "name": "port2azure-1",
  "bandwidth": 50,
  "aSide": {"accessPoint": {
    "type": "COLO",
    "port": {"uuid": "d166b9ce-79ed-4ea6-8f8b-785fd69f3dcc"},
    "linkProtocol": {"type": "QINQ", "vlanSTag": 1388, "vlanCTag": 1399}}},
  "zSide": {"accessPoint": {
    "type": "SP",
    "profile": {"uuid": "a1390b22-abe0-4e93-ad37-85beef9d254a"},
    "location": {"metroCode": "DC"},
    "peeringType": "PRIVATE",
    "authenticationKey": "xxx-xxx-xxx"}},
  "notifications": [{"type": "ALL", "emails": ["test@example.com"]}]
})";

// Port (QINQ, outer tag only) to a service profile.
inline constexpr const char kConnPortToProfileQinqSTagOnly[] = R"({
  "type": "EVPL_VC",
  "name": "qinq-stag-only",
  "bandwidth": 200,
  "aSide": {"accessPoint": {
    "type": "COLO",
    "port": {"uuid": "d166b9ce-79ed-4ea6-8f8b-785fd69f3dcc"},
    "linkProtocol": {"type": "QINQ", "vlanSTag": 2}}},
  "zSide": {"accessPoint": {
    "type": "SP",
    "profile": {"uuid": "a1390b22-abe0-4e93-ad37-85beef9d254a"},
    "location": {"metroCode": "DC"}}},
  "notifications": [{"type": "NOTIFICATION", "emails": ["test@example.com"]}]
})";

// Untagged port to a service profile.
inline constexpr const char kConnPortToProfileUntagged[] = R"({
  "type": "EVPL_VC",
  "name": "untagged-to-sp",
  "bandwidth": 10000,
  "aSide": {"accessPoint": {
    "type": "COLO",
    "port": {"uuid": "20d32a80-0d61-4333-bc03-707b591ae2f4"},
    "linkProtocol": {"type": "UNTAGGED"}}},
  "zSide": {"accessPoint": {
    "type": "SP",
    "profile": {"type": "L2_PROFILE", "uuid": "22d4e853-ef33-4ff0-b5b2-a2b1d5dfa50c"},
    "location": {"metroCode": "AM"},
    "sellerRegion": "eu-west-1"}},
  "notifications": [{"type": "ALL", "emails": ["test@example.com"]}]
})";

// A-side service token to a service profile.
inline constexpr const char kConnTokenToProfile[] = R"({
  "type": "EVPL_VC",
  "name": "Token2PrivateSP",
  "bandwidth": 50,
  "order": {"purchaseOrderNumber": "po1234", "termLength": 12},
  "aSide": {"serviceToken": {"uuid": "41a9e1ef-18bb-485b-a9b3-99801ac03684"}},
  "zSide": {"accessPoint": {
    "type": "SP",
    "profile": {"uuid": "20d32a80-0d61-4333-bc03-707b591ae2f5"},
    "location": {"metroCode": "SV"}}},
  "project": {"projectId": "ac4d34ca-0d9c-4bc2-9aab-1234567abcde"},
  "notifications": [{"type": "ALL", "emails": ["test@example.com"]}]
})";

// Tagged port to an EVPLAN network.
inline constexpr const char kConnPortToEvplan[] = R"({
  "type": "EVPLAN_VC",
  "name": "colo2network-evplan",
  "bandwidth": 50,
  "aSide": {"accessPoint": {
    "type": "COLO",
    "port": {"uuid": "9127bb72-5f4f-4517-be74-3af7ce612687"},
    "linkProtocol": {"type": "DOT1Q", "vlanTag": 300}}},
  "zSide": {"accessPoint": {
    "type": "NETWORK",
    "network": {"uuid": "25f8884e-85e3-4eaa-8ea9-a7ad2ca5b3c2", "name": "My-EVPLAN"}}},
  "project": {"projectId": "ac4d34ca-0d9c-4bc2-9aab-1234567abcde"},
  "notifications": [{"type": "ALL", "emails": ["fabric@example.com"]}]
})";

// Port-based connection to an EPLAN network (no link protocol).
inline constexpr const char kConnPortToEplan[] = R"({
  "type": "EPLAN_VC",
  "name": "colo2network-eplan",
  "bandwidth": 100,
  "aSide": {"accessPoint": {"type": "COLO", "port": {"uuid": "9127bb72-5f4f-4517-be74-3af7ce612687"}}},
  "zSide": {"accessPoint": {"type": "NETWORK", "network": {"uuid": "25f8884e-85e3-4eaa-8ea9-a7ad2ca5b3c2"}}},
  "notifications": [{"type": "ALL", "emails": ["fabric@example.com"]}]
})";

// Tagged port to an EVPTREE network as a leaf.
inline constexpr const char kConnPortToEvptree[] = R"({
  "type": "EVPTREE_VC",
  "name": "colo2network-evptree",
  "bandwidth": 50,
  "aSide": {"accessPoint": {
    "type": "COLO",
    "port": {"uuid": "9127bb72-5f4f-4517-be74-3af7ce612687"},
    "linkProtocol": {"type": "DOT1Q", "vlanTag": 300}}},
  "zSide": {"accessPoint": {
    "type": "NETWORK",
    "network": {"uuid": "25f8884e-85e3-4eaa-8ea9-a7ad2ca5b3c2"},
    "role": "LEAF"}},
  "notifications": [{"type": "ALL", "emails": ["fabric@example.com"]}]
})";

// Port-based connection to an EPTREE network as the root.
inline constexpr const char kConnPortToEptree[] = R"({
  "type": "EPTREE_VC",
  "name": "colo2network-eptree",
  "bandwidth": 50,
  "aSide": {"accessPoint": {"type": "COLO", "port": {"uuid": "9127bb72-5f4f-4517-be74-3af7ce612687"}}},
  "zSide": {"accessPoint": {
    "type": "NETWORK",
    "network": {"uuid": "25f8884e-85e3-4eaa-8ea9-a7ad2ca5b3c2"},
    "role": "ROOT"}},
  "notifications": [{"type": "ALL", "emails": ["fabric@example.com"]}]
})";

// Port to port (DOT1Q to QINQ), secondary in a redundancy group, with a geographic scope.
inline constexpr const char kConnPortToPort[] = R"({
  "type": "EVPL_VC",
  "name": "Port-2-Port-Secondary",
  "bandwidth": 1000,
  "geoScope": "CONUS",
  "order": {"purchaseOrderNumber": "po1234", "termLength": 24, "billingTier": "Up to 1G"},
  "redundancy": {"group": "7a1c0c6e-4b5f-4c3e-9b1a-2d6f0e8c9a11", "priority": "SECONDARY"},
  "aSide": {"accessPoint": {
    "type": "COLO",
    "port": {"uuid": "a00cef6f-8e35-4794-9ff9-665e084e4e6d"},
    "linkProtocol": {"type": "DOT1Q", "vlanTag": 4092}}},
  "zSide": {"accessPoint": {
    "type": "COLO",
    "port": {"uuid": "20d32a80-0d61-4333-bc03-707b591ae2f4"},
    "location": {"metroCode": "DC"},
    "linkProtocol": {"type": "QINQ", "vlanSTag": 2001, "vlanCTag": 2002}}},
  "project": {"projectId": "1234567"},
  "notifications": [
    {"type": "ALL", "emails": ["test@example.com"]},
    {"type": "BANDWIDTH_ALERT", "emails": ["alerts@example.com"]}]
})";

// A-side service token to a QINQ port.
inline constexpr const char kConnTokenToPort[] = R"({
  "type": "EVPL_VC",
  "name": "Aside-Token",
  "bandwidth": 1000,
  "aSide": {"serviceToken": {"uuid": "a00cef6f-8e35-4794-9ff9-665e084e4e6d"}},
  "zSide": {"accessPoint": {
    "type": "COLO",
    "port": {"uuid": "b840a1db-5758-758f-97e0-328a5c00a874"},
    "location": {"metroCode": "SV"},
    "linkProtocol": {"type": "QINQ", "vlanSTag": 1001, "vlanCTag": 1001}}},
  "notifications": [{"type": "ALL", "emails": ["test@example.com"]}]
})";

// Port to a Z-side service token.
inline constexpr const char kConnPortToToken[] = R"({
  "type": "EVPL_VC",
  "name": "Conn-1",
  "bandwidth": 100,
  "aSide": {"accessPoint": {
    "type": "COLO",
    "port": {"uuid": "a00cef6f-8e35-4794-9ff9-665e084e4e6d"},
    "linkProtocol": {"type": "DOT1Q", "vlanTag": 1001},
    "location": {"metroCode": "SV"}}},
  "zSide": {"serviceToken": {"uuid": "20d32a80-0d61-4333-bc03-707b591ae2f5", "name": "partner-tok"}},
  "notifications": [{"type": "ALL", "emails": ["test@example.com", "test1@example.com"]}]
})";

// A-side token to Z-side token.
inline constexpr const char kConnTokenToToken[] = R"({
  "type": "EVPL_VC",
  "name": "token-to-token",
  "bandwidth": 50,
  "aSide": {"serviceToken": {"uuid": "a00cef6f-8e35-4794-9ff9-665e084e4e6d"}},
  "zSide": {"serviceToken": {"uuid": "4f9c5438-90eb-4295-b109-7754119a1e8d"}},
  "notifications": [{"type": "ALL", "emails": ["test@example.com"]}]
})";

// EPL port to port.
inline constexpr const char kConnEplPortToPort[] = R"({
  "type": "EPL_VC",
  "name": "epl-port-2-port",
  "bandwidth": 10000,
  "aSide": {"accessPoint": {"type": "COLO", "port": {"uuid": "a00cef6f-8e35-4794-9ff9-665e084e4e6d"}}},
  "zSide": {"accessPoint": {"type": "COLO", "port": {"uuid": "20d32a80-0d61-4333-bc03-707b591ae2f4"}}},
  "notifications": [{"type": "ALL", "emails": ["test@example.com"]}]
})";

// Access EPL: A-side QINQ with the outer tag only, Z-side whole port.
inline constexpr const char kConnAccessEpl[] = R"({
  "type": "ACCESS_EPL_VC",
  "name": "access-epl",
  "bandwidth": 100,
  "aSide": {"accessPoint": {
    "type": "COLO",
    "port": {"uuid": "a00cef6f-8e35-4794-9ff9-665e084e4e6d"},
    "linkProtocol": {"type": "QINQ", "vlanSTag": 1234}}},
  "zSide": {"accessPoint": {"type": "COLO", "port": {"uuid": "20d32a80-0d61-4333-bc03-707b591ae2f4"}}},
  "notifications": [{"type": "ALL", "emails": ["test@example.com"]}]
})";

// Network Edge device to an untagged port.
inline constexpr const char kConnVdToPort[] = R"({
  "type": "EVPL_VC",
  "name": "vd-to-port",
  "bandwidth": 1000,
  "aSide": {"accessPoint": {
    "type": "VD",
    "virtualDevice": {"type": "EDGE", "uuid": "20d32a80-0d61-4333-bc03-707b591ae2f4", "name": "edge-1"},
    "interface": {"type": "NETWORK", "id": 3}}},
  "zSide": {"accessPoint": {
    "type": "COLO",
    "port": {"uuid": "20d32a80-0d61-4333-bc03-707b591ae2f4"},
    "linkProtocol": {"type": "UNTAGGED"}}},
  "notifications": [{"type": "ALL", "emails": ["test@example.com"]}]
})";

// ---------------------------------------------------------------- network_create

inline constexpr const char kNetEvplanGlobal[] = R"({
  "type": "EVPLAN",
  "name": "My-EVPLAN-Network-1",
  "scope": "GLOBAL",
  "project": {"projectId": "d64fa54a-cfcb-4fb0-82ee-86cf47007fa2"},
  "notifications": [{"type": "ALL", "emails": ["test@example.com"]}]
})";

inline constexpr const char kNetEplanRegional[] = R"({
  "type": "EPLAN",
  "name": "My-EPLAN-Network-1",
  "scope": "REGIONAL",
  "location": {"region": "EMEA"},
  "project": {"projectId": "d64fa54a-cfcb-4fb0-82ee-86cf47007fa2"},
  "notifications": [{"type": "ALL", "emails": ["test@example.com"]}]
})";

inline constexpr const char kNetEvptreeLocal[] = R"({
  "type": "EVPTREE",
  "name": "My-EVPTREE-Network-1",
  "scope": "LOCAL",
  "location": {"metroCode": "SV"},
  "notifications": [{"type": "ALL", "emails": ["test@example.com"]}]
})";

inline constexpr const char kNetEptreeRegional[] = R"({
  "type": "EPTREE",
  "name": "My-EPTREE-Network-1",
  "scope": "REGIONAL",
  "location": {"region": "APAC"},
  "notifications": [{"type": "NOTIFICATION", "emails": ["a@example.com", "b@example.com"]}]
})";

inline constexpr const char kNetEvplanLocalNoLocation[] = R"({
  "type": "EVPLAN",
  "name": "lan-local",
  "scope": "LOCAL",
  "notifications": [{"type": "ALL", "emails": ["test@example.com"]}]
})";

// ---------------------------------------------------------------- service_token_create

inline constexpr const char kTokVcASideDot1q[] = R"({
  "type": "VC_TOKEN",
  "name": "Az_Aside_Dot1Q_Pri_SV",
  "description": "A-side token for my SV port",
  "expirationDateTime": "2030-03-18T06:43:49.980Z",
  "connection": {
    "type": "EVPL_VC",
    "allowRemoteConnection": false,
    "allowCustomBandwidth": false,
    "bandwidthLimit": 50,
    "aSide": {"accessPointSelectors": [{
      "type": "COLO",
      "port": {"uuid": "b840a1db-5758-758f-97e0-328a5c00a874"},
      "linkProtocol": {"type": "DOT1Q", "vlanTag": 1399}}]}},
  "project": {"projectId": "30ad25e2-53dc-11ed-bdc3-0242ac120002"},
  "notifications": [{"type": "NOTIFICATION", "emails": ["abc@example.com", "provider@example.com"]}]
})";

inline constexpr const char kTokVcASideQinq[] = R"({
  "type": "VC_TOKEN",
  "name": "aside-qinq",
  "expirationDateTime": "2030-03-18T06:43:49+02:00",
  "connection": {
    "type": "EVPL_VC",
    "bandwidthLimit": 10000,
    "aSide": {"accessPointSelectors": [{
      "type": "COLO",
      "port": {"uuid": "b840a1db-5758-758f-97e0-328a5c00a874"},
      "linkProtocol": {"type": "QINQ", "vlanSTag": 1388, "vlanCTag": 1399}}]}},
  "notifications": [{"type": "NOTIFICATION", "emails": ["abc@example.com"]}]
})";

inline constexpr const char kTokVcZSideColo[] = R"({
  "type": "VC_TOKEN",
  "name": "Az_Zside_QinQ_Pri_SV",
  "description": "Z-side token others connect to",
  "expirationDateTime": "2030-03-18T06:43:49Z",
  "connection": {
    "type": "EVPL_VC",
    "allowRemoteConnection": true,
    "allowCustomBandwidth": false,
    "supportedBandwidths": [10, 50, 200, 500, 1000, 2000, 5000, 10000, 25000, 50000],
    "zSide": {"accessPointSelectors": [{
      "type": "COLO",
      "port": {"uuid": "b840a1db-5413-413f-97e0-328a5c00a874"},
      "linkProtocol": {"type": "QINQ", "vlanCTag": 1399, "vlanSTag": 1388}}]}},
  "project": {"projectId": "30ad25e2-53dc-11ed-bdc3-0242ac120002"},
  "notifications": [{"type": "NOTIFICATION", "emails": ["abc@example.com"]}]
})";

inline constexpr const char kTokVcZSideVd[] = R"({
  "type": "VC_TOKEN",
  "name": "Zside_VD_token",
  "expirationDateTime": "2030-03-18T06:43:49.980Z",
  "connection": {
    "type": "EVPL_VC",
    "supportedBandwidths": [10, 50, 200, 10000],
    "zSide": {"accessPointSelectors": [{
      "type": "VD",
      "virtualDevice": {"type": "EDGE", "uuid": "20d32a80-0d61-4333-bc03-707b591ae2f4"},
      "interface": {"type": "NETWORK", "id": 45645}}]}},
  "notifications": [{"type": "NOTIFICATION", "emails": ["abc@example.com"]}]
})";

inline constexpr const char kTokVcZSideNetwork[] = R"({
  "type": "VC_TOKEN",
  "name": "zside_Network_token",
  "expirationDateTime": "2030-03-18T06:43:49.980Z",
  "connection": {
    "type": "EVPLAN_VC",
    "allowRemoteConnection": true,
    "supportedBandwidths": [10, 50, 200],
    "zSide": {"accessPointSelectors": [{
      "type": "NETWORK",
      "network": {"type": "EVPLAN", "uuid": "20d32a80-0d61-4333-bc03-707b591ae2f4"}}]}},
  "notifications": [{"type": "NOTIFICATION", "emails": ["abc@example.com"]}]
})";

inline constexpr const char kTokEplASide[] = R"({
  "type": "EPL_TOKEN",
  "name": "epl-aside",
  "expirationDateTime": "2030-01-01T00:00:00Z",
  "connection": {
    "type": "EPL_VC",
    "bandwidthLimit": 1000,
    "aSide": {"accessPointSelectors": [{
      "type": "COLO",
      "port": {"uuid": "b840a1db-5758-758f-97e0-328a5c00a874"}}]}},
  "notifications": [{"type": "ALL", "emails": ["abc@example.com"]}]
})";

inline constexpr const char kTokEplZSide[] = R"({
  "type": "EPL_TOKEN",
  "name": "epl-zside",
  "expirationDateTime": "2030-01-01T00:00:00Z",
  "connection": {
    "type": "EPL_VC",
    "supportedBandwidths": [1000, 10000],
    "zSide": {"accessPointSelectors": [{
      "type": "COLO",
      "port": {"uuid": "b840a1db-5758-758f-97e0-328a5c00a874"},
      "linkProtocol": {"type": "UNTAGGED"}}]}},
  "notifications": [{"type": "ALL", "emails": ["abc@example.com"]}]
})";

inline constexpr Fixture kValid[] = {
    {"conn port->AWS DOT1Q, names/redundancy/project/order", "connection_create",
     kConnPortToAwsDot1q},
    {"conn port->profile QINQ", "connection_create", kConnPortToProfileQinq},
    {"conn port->profile QINQ s-tag only", "connection_create", kConnPortToProfileQinqSTagOnly},
    {"conn port->profile UNTAGGED", "connection_create", kConnPortToProfileUntagged},
    {"conn token->profile", "connection_create", kConnTokenToProfile},
    {"conn port->EVPLAN network", "connection_create", kConnPortToEvplan},
    {"conn port->EPLAN network", "connection_create", kConnPortToEplan},
    {"conn port->EVPTREE network", "connection_create", kConnPortToEvptree},
    {"conn port->EPTREE network", "connection_create", kConnPortToEptree},
    {"conn port->port secondary", "connection_create", kConnPortToPort},
    {"conn token->port", "connection_create", kConnTokenToPort},
    {"conn port->token", "connection_create", kConnPortToToken},
    {"conn token->token", "connection_create", kConnTokenToToken},
    {"conn EPL port->port", "connection_create", kConnEplPortToPort},
    {"conn ACCESS_EPL", "connection_create", kConnAccessEpl},
    {"conn VD->port", "connection_create", kConnVdToPort},
    {"net EVPLAN GLOBAL", "network_create", kNetEvplanGlobal},
    {"net EPLAN REGIONAL", "network_create", kNetEplanRegional},
    {"net EVPTREE LOCAL", "network_create", kNetEvptreeLocal},
    {"net EPTREE REGIONAL", "network_create", kNetEptreeRegional},
    {"net EVPLAN LOCAL no location", "network_create", kNetEvplanLocalNoLocation},
    {"token VC A-side DOT1Q", "service_token_create", kTokVcASideDot1q},
    {"token VC A-side QINQ", "service_token_create", kTokVcASideQinq},
    {"token VC Z-side COLO", "service_token_create", kTokVcZSideColo},
    {"token VC Z-side VD", "service_token_create", kTokVcZSideVd},
    {"token VC Z-side NETWORK", "service_token_create", kTokVcZSideNetwork},
    {"token EPL A-side", "service_token_create", kTokEplASide},
    {"token EPL Z-side", "service_token_create", kTokEplZSide},
};

// The same network spec as kNetEplanRegional with members permuted and re-spaced, and its RFC 8785
// canonical form written out by hand.
inline constexpr const char kNetEplanRegionalPermuted[] =
    R"({"notifications":[ {"emails":["test@example.com"],
  "type":"ALL"}],  "project":{"projectId":"d64fa54a-cfcb-4fb0-82ee-86cf47007fa2"},
  "location": {"region":"EMEA"}, "scope":"REGIONAL","name":"My-EPLAN-Network-1","type":"EPLAN"})";
inline constexpr const char kNetEplanRegionalCanonical[] =
    R"({"location":{"region":"EMEA"},"name":"My-EPLAN-Network-1",)"
    R"("notifications":[{"emails":["test@example.com"],"type":"ALL"}],)"
    R"("project":{"projectId":"d64fa54a-cfcb-4fb0-82ee-86cf47007fa2"},"scope":"REGIONAL",)"
    R"("type":"EPLAN"})";

} // namespace fixtures
