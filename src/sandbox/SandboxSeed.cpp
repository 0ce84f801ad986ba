// SandboxEstate::seed(): builds the fixed estate every sandbox starts from (metros, ports, service
// profiles, cloud routers, networks, service tokens, connections) and the rate card out of the
// seed document (resources/sandbox/estate.json, read and validated by SandboxSeed). What differs
// between two resources of a kind is in the document; what all of them share is here. The
// identifiers tests and docs name are in SandboxIds.h.
#include "sandbox/SandboxEstate.h"

#include "sandbox/SandboxJson.h"
#include "sandbox/SandboxSeed.h"

#include <QJsonArray>
#include <QUuid>

namespace fb {

using namespace Qt::StringLiterals;

namespace {

using SandboxJson::obj;
using SandboxJson::str;

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

// The string member key of a validated seed item.
QString text(const QJsonObject &o, const char *key)
{
    return o.value(QLatin1String(key)).toString();
}

QJsonArray notifications()
{
    return QJsonArray{obj({{"type", "ALL"_L1}, {"emails", QJsonArray{"noc@example.com"_L1}}})};
}

} // namespace

void SandboxEstate::seed(const QString &baseUrl)
{
    const QJsonObject &doc = SandboxSeed::builtin();
    m_baseUrl = baseUrl;
    m_metros.clear();
    m_ports.clear();
    m_profiles.clear();
    m_routers.clear();
    m_connections.clear();
    m_networks.clear();
    m_tokens.clear();
    m_rates.clear();
    seedMetros(doc.value(u"metros"_s).toArray());
    seedPorts(doc.value(u"ports"_s).toArray());
    seedProfiles(doc.value(u"serviceProfiles"_s).toArray());
    seedRouters(doc.value(u"routers"_s).toArray());
    seedNetworks(doc.value(u"networks"_s).toArray());
    seedTokens(doc.value(u"serviceTokens"_s).toArray());
    seedConnections(doc.value(u"connections"_s).toArray());
    // Every bandwidth a seeded profile, token or port offers has a rate (tst_fabricsandbox
    // rateCardPricesTheWholeEstate checks it in every metro), so a first proposal is priced.
    const QJsonArray rates = doc.value(u"rateCard"_s).toArray();
    for (const QJsonValue &v : rates)
        m_rates.append({v[u"bandwidthMbps"_s].toInt(), v[u"monthlyUsd"_s].toDouble()});
}

void SandboxEstate::seedMetros(const QJsonArray &metros)
{
    for (const QJsonValue &mv : metros) {
        const QJsonObject m = mv.toObject();
        const QString code = text(m, "code");
        QJsonArray connected;
        for (const QJsonValue &ov : metros) {
            const QJsonObject other = ov.toObject();
            if (text(other, "code") == code)
                continue;
            const bool sameRegion = text(other, "region") == text(m, "region");
            connected.append(obj({{"href", href(u"metros"_s, text(other, "code"))},
                                  {"code", text(other, "code")},
                                  {"avgLatency", sameRegion ? 35.0 : 140.0},
                                  {"remoteVCBandwidthMax", 10000}}));
        }
        QJsonObject metroJson =
            obj({{"href", href(u"metros"_s, code)},
                 {"type", "XF_METRO"_L1},
                 {"code", code},
                 {"region", text(m, "region")},
                 {"name", text(m, "name")},
                 {"country", text(m, "country")},
                 {"equinixAsn", 47341},
                 {"localVCBandwidthMax", 50000},
                 {"geoCoordinates", obj({{"latitude", m.value(u"latitude"_s).toDouble()},
                                         {"longitude", m.value(u"longitude"_s).toDouble()}})},
                 {"connectedMetros", connected}});
        if (m.contains(u"geoScope"_s))
            metroJson.insert(u"geoScopes"_s, QJsonArray{text(m, "geoScope")});
        m_metros.append(metroJson);
    }
}

void SandboxEstate::seedPorts(const QJsonArray &ports)
{
    for (const QJsonValue &pv : ports) {
        const QJsonObject p = pv.toObject();
        const QString uuid = text(p, "uuid");
        const QString name = text(p, "name");
        const QString ibx = text(p, "ibx");
        const int speed = p.value(u"speedMbps"_s).toInt();
        const QJsonObject *m = metro(text(p, "metro"));
        m_ports.append(
            obj({{"href", href(u"ports"_s, uuid)},
                 {"type", "XF_PORT"_L1},
                 {"id", p.value(u"id"_s).toInt()},
                 {"uuid", uuid},
                 {"name", name},
                 {"description", u"Sandbox port %1"_s.arg(name)},
                 {"state", "ACTIVE"_L1},
                 {"physicalPortsSpeed", speed},
                 {"physicalPortsType", speed >= 10000 ? "10GBASE_LR"_L1 : "1000BASE_LX"_L1},
                 {"physicalPortsCount", 1},
                 {"connectivitySourceType", "COLO"_L1},
                 {"bandwidth", speed},
                 {"availableBandwidth", speed},
                 {"usedBandwidth", 0},
                 {"serviceType", "EPL"_L1},
                 {"account", account()},
                 {"location", obj({{"metroHref", m->value(u"href"_s)},
                                   {"region", m->value(u"region"_s)},
                                   {"metroName", m->value(u"name"_s)},
                                   {"metroCode", text(p, "metro")},
                                   {"ibx", ibx}})},
                 {"device", obj({{"name", u"%1-06.sandbox"_s.arg(ibx.toLower())}})},
                 {"redundancy",
                  obj({{"enabled", false}, {"group", u"1"_s}, {"priority", text(p, "priority")}})},
                 {"encapsulation",
                  obj({{"type", text(p, "encapsulation")}, {"tagProtocolId", "0x8100"_L1}})},
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

void SandboxEstate::seedProfiles(const QJsonArray &profiles)
{
    const auto serviceMetros = [&](const QJsonArray &list) {
        QJsonArray out;
        for (const QJsonValue &smv : list) {
            const QJsonObject sm = smv.toObject();
            const QString code = text(sm, "code");
            const QJsonObject *m = metro(code);
            const QJsonObject regions = sm.value(u"sellerRegions"_s).toObject();
            QJsonObject item = obj({{"code", code},
                                    {"name", m->value(u"name"_s)},
                                    {"displayName", m->value(u"name"_s)},
                                    {"ibxs", QJsonArray{u"%1%2"_s.arg(code).arg(1)}},
                                    {"inTrail", false},
                                    {"vcBandwidthMax", 10000}});
            if (!regions.isEmpty())
                item.insert(u"sellerRegions"_s, regions);
            out.append(item);
        }
        return out;
    };
    for (const QJsonValue &pv : profiles) {
        const QJsonObject sp = pv.toObject();
        const QString uuid = text(sp, "uuid");
        const QString name = text(sp, "name");
        const QJsonObject key = sp.value(u"authenticationKey"_s).toObject();
        const bool authKey = key.value(u"required"_s).toBool();
        const QString authLabel = text(key, "label");
        QJsonObject config = obj(
            {{"uuid", QUuid::createUuidV5(QUuid(uuid), u"COLO"_s).toString(QUuid::WithoutBraces)},
             {"type", "COLO"_L1},
             {"supportedBandwidths", sp.value(u"bandwidths"_s)},
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
                 {"label", authLabel},
                 {"description", authKey ? u"Required: %1"_s.arg(authLabel) : u"Not used"_s}}));
        // organization: the provider's organisation (account.organizationName), which the
        // Target line shows.
        m_profiles.append(obj({{"href", href(u"serviceProfiles"_s, uuid)},
                               {"type", "L2_PROFILE"_L1},
                               {"name", name},
                               {"uuid", uuid},
                               {"description", text(sp, "description")},
                               {"state", "ACTIVE"_L1},
                               {"visibility", "PUBLIC"_L1},
                               {"tags", QJsonArray{text(sp, "tag")}},
                               {"notifications", notifications()},
                               {"accessPointTypeConfigs", QJsonArray{config}},
                               {"metros", serviceMetros(sp.value(u"metros"_s).toArray())},
                               {"selfProfile", false},
                               {"account", obj({{"accountNumber", 200001},
                                                {"accountName", u"%1 Provider"_s.arg(name)},
                                                {"organizationName", text(sp, "organization")}})},
                               {"changeLog", changeLog(seedTime(2))}}));
    }
}

void SandboxEstate::seedRouters(const QJsonArray &routers)
{
    for (const QJsonValue &rv : routers) {
        const QJsonObject r = rv.toObject();
        const QString uuid = text(r, "uuid");
        const QString package = text(r, "package");
        const QJsonObject *m = metro(text(r, "metro"));
        m_routers.append(obj({{"href", href(u"routers"_s, uuid)},
                              {"uuid", uuid},
                              {"type", "XF_ROUTER"_L1},
                              {"name", text(r, "name")},
                              {"state", "PROVISIONED"_L1},
                              {"equinixAsn", 30000},
                              {"connectionsCount", 0},
                              {"location", obj({{"metroHref", m->value(u"href"_s)},
                                                {"region", m->value(u"region"_s)},
                                                {"metroName", m->value(u"name"_s)},
                                                {"metroCode", text(r, "metro")}})},
                              {"package", obj({{"href", href(u"routerPackages"_s, package)},
                                               {"type", "ROUTER_PACKAGE"_L1},
                                               {"code", package}})},
                              {"project", obj({{"projectId", "sandbox-project"_L1}})},
                              {"account", account()},
                              {"notifications", notifications()},
                              {"changeLog", changeLog(seedTime(3))}}));
    }
}

void SandboxEstate::seedNetworks(const QJsonArray &networks)
{
    for (const QJsonValue &nv : networks) {
        const QJsonObject n = nv.toObject();
        const QString uuid = text(n, "uuid");
        QJsonObject json = obj({{"href", href(u"networks"_s, uuid)},
                                {"uuid", uuid},
                                {"name", text(n, "name")},
                                {"type", text(n, "type")},
                                {"scope", text(n, "scope")},
                                {"state", "ACTIVE"_L1},
                                {"connectionsCount", 0},
                                {"operation", obj({{"equinixStatus", "PROVISIONED"_L1}})},
                                {"account", account()},
                                {"project", obj({{"projectId", "sandbox-project"_L1}})},
                                {"notifications", notifications()},
                                {"changeLog", changeLog(seedTime(4))}});
        if (n.contains(u"region"_s))
            json.insert(u"location"_s, obj({{"region", text(n, "region")}}));
        SandboxResource r;
        r.json = json;
        m_networks.append(r);
    }
}

void SandboxEstate::seedTokens(const QJsonArray &tokens)
{
    for (const QJsonValue &tv : tokens) {
        const QJsonObject t = tv.toObject();
        const QString uuid = text(t, "uuid");
        QJsonObject selectorPort = obj({{"uuid", text(t, "port")}});
        enrichSelectorPort(selectorPort);
        QJsonObject selector =
            obj({{"type", "COLO"_L1},
                 {"port", selectorPort},
                 {"linkProtocol",
                  obj({{"type", "DOT1Q"_L1}, {"vlanTag", t.value(u"vlanTag"_s).toInt()}})}});
        SandboxResource r;
        r.json = obj({{"href", href(u"serviceTokens"_s, uuid)},
                      {"uuid", uuid},
                      {"type", "VC_TOKEN"_L1},
                      {"name", text(t, "name")},
                      {"description", "Seeded sandbox service token"_L1},
                      {"issuerSide", "ASIDE"_L1},
                      {"state", text(t, "state")},
                      {"expirationDateTime", text(t, "expirationDateTime")},
                      {"connection",
                       obj({{"type", "EVPL_VC"_L1},
                            {"allowRemoteConnection", true},
                            {"allowCustomBandwidth", false},
                            {"bandwidthLimit", 1000},
                            {"supportedBandwidths", QJsonArray{50, 100, 500, 1000}},
                            {"aSide", obj({{"accessPointSelectors", QJsonArray{selector}}})}})},
                      {"notifications", notifications()},
                      {"account", account()},
                      {"project", obj({{"projectId", "sandbox-project"_L1}})},
                      {"changelog", changeLog(seedTime(5))}});
        m_tokens.append(r);
    }
}

void SandboxEstate::seedConnections(const QJsonArray &connections)
{
    // A seed side ({type COLO, port, linkProtocol} or {type SP, profile, metro, sellerRegion})
    // as the access point Fabric echoes.
    const auto accessPoint = [&](const QJsonObject &side) {
        if (text(side, "type") == "COLO"_L1)
            return enrichAccessPoint(obj({{"type", "COLO"_L1},
                                          {"port", obj({{"uuid", text(side, "port")}})},
                                          {"linkProtocol", side.value(u"linkProtocol"_s)}}));
        return enrichAccessPoint(obj({{"type", "SP"_L1},
                                      {"profile", obj({{"uuid", text(side, "profile")}})},
                                      {"location", obj({{"metroCode", text(side, "metro")}})},
                                      {"sellerRegion", text(side, "sellerRegion")},
                                      {"authenticationKey", "xxxxxxxx7890"_L1}}));
    };
    for (const QJsonValue &cv : connections) {
        const QJsonObject c = cv.toObject();
        const QString uuid = text(c, "uuid");
        const int day = c.value(u"createdDay"_s).toInt();
        const QJsonObject aSide = accessPoint(c.value(u"aSide"_s).toObject());
        const QJsonObject zSide = accessPoint(c.value(u"zSide"_s).toObject());
        const bool remote = str(aSide, "/location/metroCode") != str(zSide, "/location/metroCode");
        SandboxResource r;
        r.json = obj(
            {{"href", href(u"connections"_s, uuid)},
             {"uuid", uuid},
             {"type", "EVPL_VC"_L1},
             {"name", text(c, "name")},
             {"state", "ACTIVE"_L1},
             {"bandwidth", c.value(u"bandwidth"_s).toInt()},
             {"isRemote", remote},
             {"direction", "OUTGOING"_L1},
             {"redundancy",
              obj({{"group", text(c, "redundancyGroup")}, {"priority", text(c, "priority")}})},
             {"aSide", obj({{"accessPoint", aSide}})},
             {"zSide", obj({{"accessPoint", zSide}})},
             {"operation", obj({{"providerStatus", "AVAILABLE"_L1},
                                {"equinixStatus", "PROVISIONED"_L1},
                                {"operationalStatus", "UP"_L1}})},
             {"change",
              obj({{"uuid",
                    QUuid::createUuidV5(QUuid(uuid), u"change"_s).toString(QUuid::WithoutBraces)},
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
    }
}

} // namespace fb
