// SandboxEstate::seed(): the fixed estate every sandbox starts from (metros, ports, service
// profiles, cloud routers, networks, service tokens, connections) and the rate card. The
// identifiers tests and docs name are in SandboxIds.h.
#include "sandbox/SandboxEstate.h"

#include "sandbox/SandboxIds.h"
#include "sandbox/SandboxJson.h"

#include <QJsonArray>
#include <QUuid>

namespace fb {

using namespace Qt::StringLiterals;

namespace {

using L1 = QLatin1String;
namespace Ids = SandboxIds;
using SandboxJson::obj;
using SandboxJson::str;

QJsonArray ints(std::initializer_list<int> values)
{
    QJsonArray a;
    for (int v : values)
        a.append(v);
    return a;
}

QString seedTime(int day)
{
    return u"2025-11-%1T09:00:00Z"_s.arg(day, 2, 10, QLatin1Char('0'));
}

QJsonObject changeLog(const QString &when)
{
    return obj({{"createdBy", "sandbox-user"_L1},
                {"createdByFullName", "Sandbox User"_L1},
                {"createdByEmail", "sandbox-user@example.com"_L1},
                {"createdDateTime", when},
                {"updatedBy", "sandbox-user"_L1},
                {"updatedDateTime", when}});
}

QJsonArray notifications()
{
    return QJsonArray{obj({{"type", "ALL"_L1}, {"emails", QJsonArray{"noc@example.com"_L1}}})};
}

} // namespace

void SandboxEstate::seed(const QString &baseUrl)
{
    m_baseUrl = baseUrl;
    m_metros.clear();
    m_ports.clear();
    m_profiles.clear();
    m_routers.clear();
    m_connections.clear();
    m_networks.clear();
    m_tokens.clear();
    seedMetros();
    seedPorts();
    seedProfiles();
    seedRouters();
    seedNetworks();
    seedTokens();
    seedConnections();
    // Every bandwidth a seeded profile, token or port offers has a rate (tst_fabric_sandbox
    // rateCardPricesTheWholeEstate checks it in every metro), so a first proposal is priced.
    m_rates = {{10, 100},  {50, 150},   {100, 200},  {200, 300},   {300, 375},   {400, 420},
               {500, 450}, {1000, 600}, {2000, 900}, {5000, 1500}, {10000, 2500}};
}

void SandboxEstate::seedMetros()
{
    struct M {
        const char *code, *name, *region, *country;
        double lat, lon;
        const char *scope;
    };
    const M metros[] = {{"SV", "Silicon Valley", "AMER", "US", 37.3861, -121.9644, "CONUS"},
                        {"DC", "Ashburn", "AMER", "US", 39.0438, -77.4874, "CONUS"},
                        {"NY", "New York", "AMER", "US", 40.7306, -74.0659, "CONUS"},
                        {"AM", "Amsterdam", "EMEA", "NL", 52.3676, 4.9041, "EU"},
                        {"LD", "London", "EMEA", "GB", 51.5072, -0.1276, "UK"},
                        {"SG", "Singapore", "APAC", "SG", 1.3521, 103.8198, ""}};
    for (const M &m : metros) {
        QJsonArray connected;
        for (const M &other : metros) {
            if (QLatin1String(other.code) == QLatin1String(m.code))
                continue;
            const bool sameRegion = QLatin1String(other.region) == QLatin1String(m.region);
            connected.append(obj({{"href", href(u"metros"_s, L1(other.code))},
                                  {"code", L1(other.code)},
                                  {"avgLatency", sameRegion ? 35.0 : 140.0},
                                  {"remoteVCBandwidthMax", 10000}}));
        }
        QJsonObject metroJson =
            obj({{"href", href(u"metros"_s, L1(m.code))},
                 {"type", "XF_METRO"_L1},
                 {"code", L1(m.code)},
                 {"region", L1(m.region)},
                 {"name", L1(m.name)},
                 {"country", L1(m.country)},
                 {"equinixAsn", 47341},
                 {"localVCBandwidthMax", 50000},
                 {"geoCoordinates", obj({{"latitude", m.lat}, {"longitude", m.lon}})},
                 {"connectedMetros", connected}});
        if (*m.scope)
            metroJson.insert(u"geoScopes"_s, QJsonArray{L1(m.scope)});
        m_metros.append(metroJson);
    }
}

void SandboxEstate::seedPorts()
{
    struct P {
        QLatin1String uuid;
        const char *name, *metro, *ibx, *encapsulation;
        int speed;
        const char *priority;
    };
    const P ports[] = {
        {Ids::PortSvPrimary, "SV-DOT1Q-PRI", "SV", "SV1", "DOT1Q", 10000, "PRIMARY"},
        {Ids::PortSvSecondary, "SV-DOT1Q-SEC", "SV", "SV5", "DOT1Q", 10000, "SECONDARY"},
        {Ids::PortDc, "DC-DOT1Q-1", "DC", "DC2", "DOT1Q", 10000, "PRIMARY"},
        {Ids::PortNyQinq, "NY-QINQ-1", "NY", "NY5", "QINQ", 10000, "PRIMARY"},
        {Ids::PortAm, "AM-DOT1Q-1", "AM", "AM3", "DOT1Q", 1000, "PRIMARY"},
        {Ids::PortLd, "LD-DOT1Q-1", "LD", "LD5", "DOT1Q", 10000, "PRIMARY"},
        {Ids::PortSg, "SG-DOT1Q-1", "SG", "SG3", "DOT1Q", 10000, "PRIMARY"}};
    int id = 7001;
    for (const P &p : ports) {
        const QJsonObject *m = metro(L1(p.metro));
        m_ports.append(obj(
            {{"href", href(u"ports"_s, p.uuid)},
             {"type", "XF_PORT"_L1},
             {"id", id++},
             {"uuid", p.uuid},
             {"name", L1(p.name)},
             {"description", u"Sandbox port %1"_s.arg(L1(p.name))},
             {"state", "ACTIVE"_L1},
             {"physicalPortsSpeed", p.speed},
             {"physicalPortsType", p.speed >= 10000 ? "10GBASE_LR"_L1 : "1000BASE_LX"_L1},
             {"physicalPortsCount", 1},
             {"connectivitySourceType", "COLO"_L1},
             {"bandwidth", p.speed},
             {"availableBandwidth", p.speed},
             {"usedBandwidth", 0},
             {"serviceType", "EPL"_L1},
             {"account", account()},
             {"location", obj({{"metroHref", m->value(u"href"_s)},
                               {"region", m->value(u"region"_s)},
                               {"metroName", m->value(u"name"_s)},
                               {"metroCode", L1(p.metro)},
                               {"ibx", L1(p.ibx)}})},
             {"device", obj({{"name", u"%1-06.sandbox"_s.arg(L1(p.ibx).toString().toLower())}})},
             {"redundancy",
              obj({{"enabled", false}, {"group", u"1"_s}, {"priority", L1(p.priority)}})},
             {"encapsulation",
              obj({{"type", L1(p.encapsulation)}, {"tagProtocolId", "0x8100"_L1}})},
             {"lagEnabled", false},
             {"package", obj({{"code", "STANDARD"_L1}})},
             {"settings", obj({{"buyout", false},
                               {"viewPortPermission", true},
                               {"placeVcOrderPermission", true},
                               {"layer3Enabled", false},
                               {"packageType", "STANDARD"_L1}})},
             {"operation", obj({{"operationalStatus", "UP"_L1}})},
             {"changeLog", changeLog(seedTime(1))}}));
    }
}

void SandboxEstate::seedProfiles()
{
    struct Metro {
        const char *code;
        std::initializer_list<std::pair<const char *, const char *>> regions;
    };
    const auto serviceMetros = [&](std::initializer_list<Metro> list) {
        QJsonArray out;
        for (const Metro &sm : list) {
            const QJsonObject *m = metro(L1(sm.code));
            QJsonObject regions;
            for (const auto &[key, label] : sm.regions)
                regions.insert(L1(key), L1(label));
            QJsonObject item = obj({{"code", L1(sm.code)},
                                    {"name", m->value(u"name"_s)},
                                    {"displayName", m->value(u"name"_s)},
                                    {"ibxs", QJsonArray{u"%1%2"_s.arg(L1(sm.code)).arg(1)}},
                                    {"inTrail", false},
                                    {"vcBandwidthMax", 10000}});
            if (!regions.isEmpty())
                item.insert(u"sellerRegions"_s, regions);
            out.append(item);
        }
        return out;
    };
    // org: the provider's organisation (account.organizationName), which the Target line shows.
    const auto profile = [&](QLatin1String uuid, const char *name, const char *org,
                             const char *description, QJsonArray bandwidths, bool authKey,
                             const char *authLabel, QJsonArray metrosJson, const char *tag) {
        QJsonObject config = obj(
            {{"uuid",
              QUuid::createUuidV5(QUuid(QString(uuid)), u"COLO"_s).toString(QUuid::WithoutBraces)},
             {"type", "COLO"_L1},
             {"supportedBandwidths", bandwidths},
             {"allowRemoteConnections", true},
             {"allowCustomBandwidth", false},
             {"allowBandwidthAutoApproval", true},
             {"allowBandwidthUpgrade", true},
             {"connectionRedundancyRequired", false},
             {"enableAutoGenerateServiceKey", false},
             {"connectionLabel", "Connection"_L1},
             {"linkProtocolConfig", obj({{"encapsulation", "DOT1Q"_L1},
                                         {"encapsulationStrategy", "CTAGED"_L1},
                                         {"reuseVlanSTag", false}})},
             {"apiConfig", obj({{"apiAvailable", authKey},
                                {"integrationId", authKey ? "sandbox-cloud-01"_L1 : ""_L1},
                                {"bandwidthFromApi", false}})}});
        config.insert(
            u"authenticationKey"_s,
            obj({{"required", authKey},
                 {"label", L1(authLabel)},
                 {"description", authKey ? u"Required: %1"_s.arg(L1(authLabel)) : u"Not used"_s}}));
        m_profiles.append(obj({{"href", href(u"serviceProfiles"_s, uuid)},
                               {"type", "L2_PROFILE"_L1},
                               {"name", L1(name)},
                               {"uuid", uuid},
                               {"description", L1(description)},
                               {"state", "ACTIVE"_L1},
                               {"visibility", "PUBLIC"_L1},
                               {"tags", QJsonArray{L1(tag)}},
                               {"notifications", notifications()},
                               {"accessPointTypeConfigs", QJsonArray{config}},
                               {"metros", metrosJson},
                               {"selfProfile", false},
                               {"account", obj({{"accountNumber", 200001},
                                                {"accountName", u"%1 Provider"_s.arg(L1(name))},
                                                {"organizationName", L1(org)}})},
                               {"changeLog", changeLog(seedTime(2))}}));
    };
    profile(Ids::ProfileAwsDirectConnect, "AWS Direct Connect", "Sandbox Cloud Provider A",
            "Sandbox cloud profile modelled on AWS Direct Connect (needs the AWS account id)",
            ints({50, 100, 200, 300, 400, 500, 1000, 2000, 5000, 10000}), true, "AWS Account ID",
            serviceMetros({{"SV", {{"us-west-1", "US West (N. California)"}}},
                           {"DC", {{"us-east-1", "US East (N. Virginia)"}}},
                           {"NY", {{"us-east-1", "US East (N. Virginia)"}}},
                           {"LD", {{"eu-west-2", "Europe (London)"}}},
                           {"AM", {{"eu-central-1", "Europe (Frankfurt)"}}}}),
            "Cloud");
    profile(Ids::ProfileAzureExpressRoute, "Azure ExpressRoute", "Sandbox Cloud Provider B",
            "Sandbox cloud profile modelled on Azure ExpressRoute (needs the service key)",
            ints({50, 100, 200, 500, 1000, 2000, 5000, 10000}), true, "ExpressRoute Service Key",
            serviceMetros({{"SV", {{"westus", "West US"}}},
                           {"DC", {{"eastus", "East US"}}},
                           {"AM", {{"westeurope", "West Europe"}}},
                           {"LD", {{"uksouth", "UK South"}}},
                           {"SG", {{"southeastasia", "Southeast Asia"}}}}),
            "Cloud");
    profile(Ids::ProfileGenericL2, "Sandbox Managed Services L2", "Sandbox Managed Services",
            "Generic layer 2 service provider without an authentication key",
            ints({10, 50, 100, 500, 1000}), false, "Not used",
            serviceMetros({{"SV", {}}, {"NY", {}}, {"LD", {}}, {"SG", {}}}), "Managed Services");
}

void SandboxEstate::seedRouters()
{
    struct R {
        QLatin1String uuid;
        const char *name, *metro, *package;
    };
    const R routers[] = {{Ids::RouterSvStandard, "sandbox-fcr-sv", "SV", "STANDARD"},
                         {Ids::RouterLdLab, "sandbox-fcr-ld-lab", "LD", "LAB"}};
    for (const R &r : routers) {
        const QJsonObject *m = metro(L1(r.metro));
        m_routers.append(obj({{"href", href(u"routers"_s, r.uuid)},
                              {"uuid", r.uuid},
                              {"type", "XF_ROUTER"_L1},
                              {"name", L1(r.name)},
                              {"state", "PROVISIONED"_L1},
                              {"equinixAsn", 30000},
                              {"connectionsCount", 0},
                              {"location", obj({{"metroHref", m->value(u"href"_s)},
                                                {"region", m->value(u"region"_s)},
                                                {"metroName", m->value(u"name"_s)},
                                                {"metroCode", L1(r.metro)}})},
                              {"package", obj({{"href", href(u"routerPackages"_s, L1(r.package))},
                                               {"type", "ROUTER_PACKAGE"_L1},
                                               {"code", L1(r.package)}})},
                              {"project", obj({{"projectId", "sandbox-project"_L1}})},
                              {"account", account()},
                              {"notifications", notifications()},
                              {"changeLog", changeLog(seedTime(3))}}));
    }
}

void SandboxEstate::seedNetworks()
{
    struct N {
        QLatin1String uuid;
        const char *name, *type, *scope, *region;
    };
    const N networks[] = {
        {Ids::NetworkGlobalEvplan, "sandbox-evplan-global", "EVPLAN", "GLOBAL", ""},
        {Ids::NetworkAmerEplan, "sandbox-eplan-amer", "EPLAN", "REGIONAL", "AMER"}};
    for (const N &n : networks) {
        QJsonObject json = obj({{"href", href(u"networks"_s, n.uuid)},
                                {"uuid", n.uuid},
                                {"name", L1(n.name)},
                                {"type", L1(n.type)},
                                {"scope", L1(n.scope)},
                                {"state", "ACTIVE"_L1},
                                {"connectionsCount", 0},
                                {"operation", obj({{"equinixStatus", "PROVISIONED"_L1}})},
                                {"account", account()},
                                {"project", obj({{"projectId", "sandbox-project"_L1}})},
                                {"notifications", notifications()},
                                {"changeLog", changeLog(seedTime(4))}});
        if (*n.region)
            json.insert(u"location"_s, obj({{"region", L1(n.region)}}));
        SandboxResource r;
        r.json = json;
        m_networks.append(r);
    }
}

void SandboxEstate::seedTokens()
{
    const auto token = [&](QLatin1String uuid, const char *name, const char *state,
                           const char *expires, QLatin1String portUuid, int vlan) {
        const QJsonObject *p = port(portUuid);
        QJsonObject selector =
            obj({{"type", "COLO"_L1},
                 {"port", obj({{"href", p->value(u"href"_s)},
                               {"uuid", portUuid},
                               {"type", "XF_PORT"_L1},
                               {"portName", p->value(u"name"_s)},
                               {"location", p->value(u"location"_s)}})},
                 {"linkProtocol", obj({{"type", "DOT1Q"_L1}, {"vlanTag", vlan}})}});
        SandboxResource r;
        r.json = obj({{"href", href(u"serviceTokens"_s, uuid)},
                      {"uuid", uuid},
                      {"type", "VC_TOKEN"_L1},
                      {"name", L1(name)},
                      {"description", "Seeded sandbox service token"_L1},
                      {"issuerSide", "ASIDE"_L1},
                      {"state", L1(state)},
                      {"expirationDateTime", L1(expires)},
                      {"connection",
                       obj({{"type", "EVPL_VC"_L1},
                            {"allowRemoteConnection", true},
                            {"allowCustomBandwidth", false},
                            {"bandwidthLimit", 1000},
                            {"supportedBandwidths", ints({50, 100, 500, 1000})},
                            {"aSide", obj({{"accessPointSelectors", QJsonArray{selector}}})}})},
                      {"notifications", notifications()},
                      {"account", account()},
                      {"project", obj({{"projectId", "sandbox-project"_L1}})},
                      {"changelog", changeLog(seedTime(5))}});
        m_tokens.append(r);
    };
    token(Ids::ServiceTokenSv, "sandbox-token-sv", "ACTIVE", "2030-01-01T00:00:00Z",
          Ids::PortSvPrimary, 150);
    token(Ids::ServiceTokenLdExpired, "sandbox-token-ld-expired", "EXPIRED", "2025-06-30T00:00:00Z",
          Ids::PortLd, 450);
}

void SandboxEstate::seedConnections()
{
    const auto colo = [&](QLatin1String portUuid, QJsonObject linkProtocol) {
        return enrichAccessPoint(obj({{"type", "COLO"_L1},
                                      {"port", obj({{"uuid", portUuid}})},
                                      {"linkProtocol", linkProtocol}}));
    };
    const auto dot1q = [](int tag) { return obj({{"type", "DOT1Q"_L1}, {"vlanTag", tag}}); };
    const auto sp = [&](QLatin1String profile, const char *metroCode, const char *region) {
        return enrichAccessPoint(obj({{"type", "SP"_L1},
                                      {"profile", obj({{"uuid", profile}})},
                                      {"location", obj({{"metroCode", L1(metroCode)}})},
                                      {"sellerRegion", L1(region)},
                                      {"authenticationKey", "xxxxxxxx7890"_L1}}));
    };
    const auto connection = [&](QLatin1String uuid, const char *name, int bandwidth,
                                QJsonObject aSide, QJsonObject zSide, const char *group,
                                const char *priority, int day) {
        const bool remote = str(aSide, "/location/metroCode") != str(zSide, "/location/metroCode");
        SandboxResource r;
        r.json =
            obj({{"href", href(u"connections"_s, uuid)},
                 {"uuid", uuid},
                 {"type", "EVPL_VC"_L1},
                 {"name", L1(name)},
                 {"state", "ACTIVE"_L1},
                 {"bandwidth", bandwidth},
                 {"isRemote", remote},
                 {"direction", "OUTGOING"_L1},
                 {"redundancy", obj({{"group", L1(group)}, {"priority", L1(priority)}})},
                 {"aSide", obj({{"accessPoint", aSide}})},
                 {"zSide", obj({{"accessPoint", zSide}})},
                 {"operation", obj({{"providerStatus", "AVAILABLE"_L1},
                                    {"equinixStatus", "PROVISIONED"_L1},
                                    {"operationalStatus", "UP"_L1}})},
                 {"change", obj({{"uuid", QUuid::createUuidV5(QUuid(QString(uuid)), u"change"_s)
                                              .toString(QUuid::WithoutBraces)},
                                 {"type", "CONNECTION_CREATION"_L1},
                                 {"status", "COMPLETED"_L1},
                                 {"createdDateTime", seedTime(day)},
                                 {"updatedDateTime", seedTime(day)}})},
                 {"order", obj({{"purchaseOrderNumber", "PO-SANDBOX-1"_L1},
                                {"billingTier", "Up to 1 Gbps"_L1},
                                {"termLength", 1}})},
                 {"notifications", notifications()},
                 {"account", account()},
                 {"project", obj({{"projectId", "sandbox-project"_L1}})},
                 {"changeLog", changeLog(seedTime(day))}});
        m_connections.append(r);
    };
    connection(
        Ids::ConnectionSvAwsPrimary, "sv-aws-primary", 1000, colo(Ids::PortSvPrimary, dot1q(100)),
        sp(Ids::ProfileAwsDirectConnect, "SV", "us-west-1"), "sandbox-aws-group", "PRIMARY", 10);
    connection(Ids::ConnectionSvDcEvpl, "sv-dc-evpl", 500, colo(Ids::PortSvPrimary, dot1q(101)),
               colo(Ids::PortDc, dot1q(200)), "sandbox-sv-dc", "PRIMARY", 11);
    connection(Ids::ConnectionSvAwsSecondary, "sv-aws-secondary", 1000,
               colo(Ids::PortSvSecondary, dot1q(100)),
               sp(Ids::ProfileAwsDirectConnect, "SV", "us-west-1"), "sandbox-aws-group",
               "SECONDARY", 12);
    connection(
        Ids::ConnectionNyLdEvpl, "ny-ld-evpl", 200,
        colo(Ids::PortNyQinq, obj({{"type", "QINQ"_L1}, {"vlanSTag", 300}, {"vlanCTag", 30}})),
        colo(Ids::PortLd, dot1q(400)), "sandbox-ny-ld", "PRIMARY", 13);
}

} // namespace fb
