#include "sandbox/SandboxEstate.h"

#include "sandbox/SandboxIds.h"
#include "sandbox/SandboxSearch.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QTextStream>
#include <QUuid>

namespace fb {

namespace {

using L1 = QLatin1String;
namespace Ids = SandboxIds;

QJsonObject obj(std::initializer_list<std::pair<const char *, QJsonValue>> members)
{
    QJsonObject o;
    for (const auto &[key, value] : members)
        o.insert(QLatin1String(key), value);
    return o;
}

QJsonArray ints(std::initializer_list<int> values)
{
    QJsonArray a;
    for (int v : values)
        a.append(v);
    return a;
}

QString seedTime(int day)
{
    return QStringLiteral("2025-11-%1T09:00:00Z").arg(day, 2, 10, QLatin1Char('0'));
}

QJsonObject changeLog(const QString &when)
{
    return obj({{"createdBy", L1("sandbox-user")},
                {"createdByFullName", L1("Sandbox User")},
                {"createdByEmail", L1("sandbox-user@example.com")},
                {"createdDateTime", when},
                {"updatedBy", L1("sandbox-user")},
                {"updatedDateTime", when}});
}

QJsonArray notifications()
{
    return QJsonArray{obj({{"type", L1("ALL")}, {"emails", QJsonArray{L1("noc@example.com")}}})};
}

QString str(const QJsonObject &o, const char *path)
{
    return SandboxSearch::valueAt(o, QLatin1String(path)).toString();
}

} // namespace

SandboxEstate::SandboxEstate(const Clock *clock)
    : m_clock(clock ? clock : Clock::system())
{
    seed(QStringLiteral("http://127.0.0.1"));
}

QString SandboxEstate::href(const QString &collection, const QString &id) const
{
    return m_baseUrl + QStringLiteral("/fabric/v4/") + collection + QLatin1Char('/') + id;
}

void SandboxEstate::setProvisioning(int delayMs, int readsBeforeReady)
{
    m_delayMs = delayMs;
    m_readsBeforeReady = readsBeforeReady;
}

QList<SandboxResource> &SandboxEstate::resources(SandboxKind kind)
{
    switch (kind) {
    case SandboxKind::Connection:
        return m_connections;
    case SandboxKind::Network:
        return m_networks;
    case SandboxKind::ServiceToken:
        break;
    }
    return m_tokens;
}

const QList<SandboxResource> &SandboxEstate::resources(SandboxKind kind) const
{
    return const_cast<SandboxEstate *>(this)->resources(kind);
}

namespace {
const QJsonObject *findIn(const QList<QJsonObject> &list, const char *key, const QString &value)
{
    for (const QJsonObject &o : list) {
        if (o.value(QLatin1String(key)).toString() == value)
            return &o;
    }
    return nullptr;
}
} // namespace

const QJsonObject *SandboxEstate::metro(const QString &code) const
{
    return findIn(m_metros, "code", code);
}
const QJsonObject *SandboxEstate::port(const QString &uuid) const
{
    return findIn(m_ports, "uuid", uuid);
}
const QJsonObject *SandboxEstate::serviceProfile(const QString &uuid) const
{
    return findIn(m_profiles, "uuid", uuid);
}
const QJsonObject *SandboxEstate::router(const QString &uuid) const
{
    return findIn(m_routers, "uuid", uuid);
}

SandboxResource *SandboxEstate::find(SandboxKind kind, const QString &uuid)
{
    for (SandboxResource &r : resources(kind)) {
        if (r.json.value(QStringLiteral("uuid")).toString() == uuid)
            return &r;
    }
    return nullptr;
}

const SandboxResource *SandboxEstate::find(SandboxKind kind, const QString &uuid) const
{
    return const_cast<SandboxEstate *>(this)->find(kind, uuid);
}

QString SandboxEstate::nowIso() const
{
    return QDateTime::fromMSecsSinceEpoch(m_clock->nowMs(), Qt::UTC).toString(Qt::ISODateWithMs);
}

QJsonObject SandboxEstate::account() const
{
    return obj({{"accountNumber", Ids::AccountNumber},
                {"accountName", L1("Fabric Broker Sandbox")},
                {"orgId", 91001},
                {"organizationName", L1("Fabric Broker Sandbox")},
                {"globalCustId", L1("0016u00000SANDBOX")}});
}

SandboxResource &SandboxEstate::add(SandboxKind kind, const QJsonObject &json)
{
    SandboxResource r;
    r.json = json;
    r.createdMs = m_clock->nowMs();
    r.pending = true;
    resources(kind).append(r);
    return resources(kind).last();
}

QJsonObject SandboxEstate::read(SandboxKind kind, SandboxResource &resource)
{
    settle(kind, resource);
    ++resource.reads;
    return resource.json;
}

void SandboxEstate::settle(SandboxKind kind, SandboxResource &r) const
{
    if (!r.pending)
        return;
    const bool due =
        r.reads >= m_readsBeforeReady || m_clock->nowMs() - r.createdMs >= qint64(m_delayMs);
    if (!due)
        return;
    r.pending = false;
    const QString now = nowIso();
    // Service tokens spell it "changelog" in the v4 spec, the others "changeLog".
    const QString logKey = kind == SandboxKind::ServiceToken ? QStringLiteral("changelog")
                                                             : QStringLiteral("changeLog");
    QJsonObject cl = r.json.value(logKey).toObject();
    cl.insert(QStringLiteral("updatedDateTime"), now);
    r.json.insert(logKey, cl);
    switch (kind) {
    case SandboxKind::Connection: {
        r.json.insert(QStringLiteral("state"), L1("ACTIVE"));
        r.json.insert(QStringLiteral("operation"), obj({{"providerStatus", L1("AVAILABLE")},
                                                        {"equinixStatus", L1("PROVISIONED")},
                                                        {"operationalStatus", L1("UP")},
                                                        {"opStatusChangedAt", now}}));
        QJsonObject change = r.json.value(QStringLiteral("change")).toObject();
        change.insert(QStringLiteral("status"), L1("COMPLETED"));
        change.insert(QStringLiteral("updatedDateTime"), now);
        r.json.insert(QStringLiteral("change"), change);
        break;
    }
    case SandboxKind::Network:
        r.json.insert(QStringLiteral("state"), L1("ACTIVE"));
        r.json.insert(QStringLiteral("operation"), obj({{"equinixStatus", L1("PROVISIONED")}}));
        break;
    case SandboxKind::ServiceToken:
        r.json.insert(QStringLiteral("state"), L1("ACTIVE"));
        break;
    }
}

QJsonObject SandboxEstate::enrichAccessPoint(const QJsonObject &accessPoint) const
{
    QJsonObject ap = accessPoint;
    const QString type = ap.value(QStringLiteral("type")).toString();
    const auto withLocationOfMetro = [&](const QString &code) {
        QJsonObject loc = ap.value(QStringLiteral("location")).toObject();
        if (const QJsonObject *m = metro(code)) {
            loc.insert(QStringLiteral("metroHref"), m->value(QStringLiteral("href")));
            loc.insert(QStringLiteral("metroName"), m->value(QStringLiteral("name")));
            loc.insert(QStringLiteral("region"), m->value(QStringLiteral("region")));
            loc.insert(QStringLiteral("metroCode"), code);
        }
        if (!loc.isEmpty())
            ap.insert(QStringLiteral("location"), loc);
    };
    if (type == QLatin1String("COLO")) {
        QJsonObject p = ap.value(QStringLiteral("port")).toObject();
        if (const QJsonObject *known = port(p.value(QStringLiteral("uuid")).toString())) {
            p.insert(QStringLiteral("href"), known->value(QStringLiteral("href")));
            p.insert(QStringLiteral("name"), known->value(QStringLiteral("name")));
            p.insert(QStringLiteral("type"), L1("XF_PORT"));
            ap.insert(QStringLiteral("port"), p);
            QJsonObject loc = known->value(QStringLiteral("location")).toObject();
            ap.insert(QStringLiteral("location"), loc);
        }
    } else if (type == QLatin1String("SP")) {
        QJsonObject p = ap.value(QStringLiteral("profile")).toObject();
        if (const QJsonObject *known = serviceProfile(p.value(QStringLiteral("uuid")).toString())) {
            p.insert(QStringLiteral("href"), known->value(QStringLiteral("href")));
            p.insert(QStringLiteral("name"), known->value(QStringLiteral("name")));
            p.insert(QStringLiteral("type"), known->value(QStringLiteral("type")));
            ap.insert(QStringLiteral("profile"), p);
        }
        withLocationOfMetro(str(ap, "/location/metroCode"));
    } else if (type == QLatin1String("NETWORK")) {
        QJsonObject n = ap.value(QStringLiteral("network")).toObject();
        const QString id = n.value(QStringLiteral("uuid")).toString();
        for (const SandboxResource &r : m_networks) {
            if (r.json.value(QStringLiteral("uuid")).toString() != id)
                continue;
            n.insert(QStringLiteral("href"), r.json.value(QStringLiteral("href")));
            n.insert(QStringLiteral("name"), r.json.value(QStringLiteral("name")));
            n.insert(QStringLiteral("type"), r.json.value(QStringLiteral("type")));
            n.insert(QStringLiteral("scope"), r.json.value(QStringLiteral("scope")));
            ap.insert(QStringLiteral("network"), n);
        }
    } else if (type == QLatin1String("CLOUD_ROUTER")) {
        QJsonObject rt = ap.value(QStringLiteral("router")).toObject();
        if (const QJsonObject *known = router(rt.value(QStringLiteral("uuid")).toString())) {
            rt.insert(QStringLiteral("href"), known->value(QStringLiteral("href")));
            rt.insert(QStringLiteral("name"), known->value(QStringLiteral("name")));
            ap.insert(QStringLiteral("router"), rt);
            withLocationOfMetro(str(*known, "/location/metroCode"));
        }
    }
    return ap;
}

namespace {

struct VlanUse {
    QString kind; // "connection" or "serviceToken"
    QString uuid;
    int bandwidth = 0;
    QJsonObject linkProtocol;
    QString createdDateTime;
};

void vlanUses(const QList<SandboxResource> &connections, const QList<SandboxResource> &tokens,
              const QString &portUuid, QList<VlanUse> *out)
{
    for (const SandboxResource &r : connections) {
        for (const char *side : {"aSide", "zSide"}) {
            const QJsonObject ap = r.json.value(QLatin1String(side))
                                       .toObject()
                                       .value(QStringLiteral("accessPoint"))
                                       .toObject();
            if (ap.value(QStringLiteral("type")).toString() != QLatin1String("COLO") ||
                str(ap, "/port/uuid") != portUuid)
                continue;
            out->append({QStringLiteral("connection"),
                         r.json.value(QStringLiteral("uuid")).toString(),
                         r.json.value(QStringLiteral("bandwidth")).toInt(),
                         ap.value(QStringLiteral("linkProtocol")).toObject(),
                         str(r.json, "/changeLog/createdDateTime")});
        }
    }
    for (const SandboxResource &r : tokens) {
        const QString state = r.json.value(QStringLiteral("state")).toString();
        if (state == QLatin1String("EXPIRED") || state == QLatin1String("DELETED"))
            continue;
        for (const char *side : {"aSide", "zSide"}) {
            const QJsonArray selectors = r.json.value(QStringLiteral("connection"))
                                             .toObject()
                                             .value(QLatin1String(side))
                                             .toObject()
                                             .value(QStringLiteral("accessPointSelectors"))
                                             .toArray();
            for (const QJsonValue &s : selectors) {
                const QJsonObject sel = s.toObject();
                if (str(sel, "/port/uuid") != portUuid)
                    continue;
                out->append(
                    {QStringLiteral("serviceToken"),
                     r.json.value(QStringLiteral("uuid")).toString(),
                     SandboxSearch::valueAt(r.json, QStringLiteral("/connection/bandwidthLimit"))
                         .toInt(),
                     sel.value(QStringLiteral("linkProtocol")).toObject(),
                     str(r.json, "/changelog/createdDateTime")});
            }
        }
    }
}

bool sameVlan(const QJsonObject &a, const QJsonObject &b)
{
    const auto tag = [](const QJsonObject &lp, const char *key) {
        return lp.value(QLatin1String(key)).toInt(-1);
    };
    const QString ta = a.value(QStringLiteral("type")).toString();
    const QString tb = b.value(QStringLiteral("type")).toString();
    if (ta == QLatin1String("QINQ") || tb == QLatin1String("QINQ")) {
        const int sa = tag(a, "vlanSTag");
        const int sb = tag(b, "vlanSTag");
        if (sa < 0 || sa != sb)
            return false;
        const int ca = tag(a, "vlanCTag");
        const int cb = tag(b, "vlanCTag");
        return ca < 0 || cb < 0 || ca == cb;
    }
    if (ta == QLatin1String("UNTAGGED") || tb == QLatin1String("UNTAGGED"))
        return ta == tb;
    const int va = tag(a, "vlanTag");
    return va >= 0 && va == tag(b, "vlanTag");
}

} // namespace

QJsonArray SandboxEstate::linkProtocols(const QString &portUuid) const
{
    QList<VlanUse> uses;
    vlanUses(m_connections, m_tokens, portUuid, &uses);
    QJsonArray out;
    for (const VlanUse &u : uses) {
        QJsonObject item = u.linkProtocol;
        item.insert(QStringLiteral("uuid"),
                    QUuid::createUuidV5(QUuid(QString(Ids::PortSvPrimary)),
                                        u.uuid + QLatin1Char('/') + portUuid)
                        .toString(QUuid::WithoutBraces));
        item.insert(QStringLiteral("state"), L1("RESERVED"));
        const QString collection = u.kind == QLatin1String("connection")
                                       ? QStringLiteral("connections")
                                       : QStringLiteral("serviceTokens");
        QJsonObject asset =
            obj({{"href", href(collection, u.uuid)}, {"uuid", u.uuid}, {"bandwidth", u.bandwidth}});
        if (u.kind == QLatin1String("connection"))
            item.insert(QStringLiteral("asset"), asset);
        else
            item.insert(QStringLiteral("serviceToken"), asset);
        item.insert(QStringLiteral("changeLog"), obj({{"createdDateTime", u.createdDateTime}}));
        out.append(item);
    }
    return out;
}

bool SandboxEstate::vlanInUse(const QString &portUuid, const QJsonObject &linkProtocol) const
{
    QList<VlanUse> uses;
    vlanUses(m_connections, m_tokens, portUuid, &uses);
    for (const VlanUse &u : uses) {
        if (sameVlan(u.linkProtocol, linkProtocol))
            return true;
    }
    return false;
}

// ---- seeding ------------------------------------------------------------------------------

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
            connected.append(obj({{"href", href(QStringLiteral("metros"), L1(other.code))},
                                  {"code", L1(other.code)},
                                  {"avgLatency", sameRegion ? 35.0 : 140.0},
                                  {"remoteVCBandwidthMax", 10000}}));
        }
        QJsonObject metroJson =
            obj({{"href", href(QStringLiteral("metros"), L1(m.code))},
                 {"type", L1("XF_METRO")},
                 {"code", L1(m.code)},
                 {"region", L1(m.region)},
                 {"name", L1(m.name)},
                 {"country", L1(m.country)},
                 {"equinixAsn", 47341},
                 {"localVCBandwidthMax", 50000},
                 {"geoCoordinates", obj({{"latitude", m.lat}, {"longitude", m.lon}})},
                 {"connectedMetros", connected}});
        if (*m.scope)
            metroJson.insert(QStringLiteral("geoScopes"), QJsonArray{L1(m.scope)});
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
            {{"href", href(QStringLiteral("ports"), p.uuid)},
             {"type", L1("XF_PORT")},
             {"id", id++},
             {"uuid", p.uuid},
             {"name", L1(p.name)},
             {"description", QStringLiteral("Sandbox port %1").arg(L1(p.name))},
             {"state", L1("ACTIVE")},
             {"physicalPortsSpeed", p.speed},
             {"physicalPortsType", p.speed >= 10000 ? L1("10GBASE_LR") : L1("1000BASE_LX")},
             {"physicalPortsCount", 1},
             {"connectivitySourceType", L1("COLO")},
             {"bandwidth", p.speed},
             {"availableBandwidth", p.speed},
             {"usedBandwidth", 0},
             {"serviceType", L1("EPL")},
             {"account", account()},
             {"location", obj({{"metroHref", m->value(QStringLiteral("href"))},
                               {"region", m->value(QStringLiteral("region"))},
                               {"metroName", m->value(QStringLiteral("name"))},
                               {"metroCode", L1(p.metro)},
                               {"ibx", L1(p.ibx)}})},
             {"device",
              obj({{"name", QStringLiteral("%1-06.sandbox").arg(L1(p.ibx).toString().toLower())}})},
             {"redundancy", obj({{"enabled", false},
                                 {"group", QStringLiteral("1")},
                                 {"priority", L1(p.priority)}})},
             {"encapsulation",
              obj({{"type", L1(p.encapsulation)}, {"tagProtocolId", L1("0x8100")}})},
             {"lagEnabled", false},
             {"package", obj({{"code", L1("STANDARD")}})},
             {"settings", obj({{"buyout", false},
                               {"viewPortPermission", true},
                               {"placeVcOrderPermission", true},
                               {"layer3Enabled", false},
                               {"packageType", L1("STANDARD")}})},
             {"operation", obj({{"operationalStatus", L1("UP")}})},
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
            QJsonObject item =
                obj({{"code", L1(sm.code)},
                     {"name", m->value(QStringLiteral("name"))},
                     {"displayName", m->value(QStringLiteral("name"))},
                     {"ibxs", QJsonArray{QStringLiteral("%1%2").arg(L1(sm.code)).arg(1)}},
                     {"inTrail", false},
                     {"vcBandwidthMax", 10000}});
            if (!regions.isEmpty())
                item.insert(QStringLiteral("sellerRegions"), regions);
            out.append(item);
        }
        return out;
    };
    const auto profile = [&](QLatin1String uuid, const char *name, const char *description,
                             QJsonArray bandwidths, bool authKey, const char *authLabel,
                             QJsonArray metrosJson, const char *tag) {
        QJsonObject config =
            obj({{"uuid", QUuid::createUuidV5(QUuid(QString(uuid)), QStringLiteral("COLO"))
                              .toString(QUuid::WithoutBraces)},
                 {"type", L1("COLO")},
                 {"supportedBandwidths", bandwidths},
                 {"allowRemoteConnections", true},
                 {"allowCustomBandwidth", false},
                 {"allowBandwidthAutoApproval", true},
                 {"allowBandwidthUpgrade", true},
                 {"connectionRedundancyRequired", false},
                 {"enableAutoGenerateServiceKey", false},
                 {"connectionLabel", L1("Connection")},
                 {"linkProtocolConfig", obj({{"encapsulation", L1("DOT1Q")},
                                             {"encapsulationStrategy", L1("CTAGED")},
                                             {"reuseVlanSTag", false}})},
                 {"apiConfig", obj({{"apiAvailable", authKey},
                                    {"integrationId", authKey ? L1("sandbox-cloud-01") : L1("")},
                                    {"bandwidthFromApi", false}})}});
        config.insert(
            QStringLiteral("authenticationKey"),
            obj({{"required", authKey},
                 {"label", L1(authLabel)},
                 {"description", authKey ? QStringLiteral("Required: %1").arg(L1(authLabel))
                                         : QStringLiteral("Not used")}}));
        m_profiles.append(
            obj({{"href", href(QStringLiteral("serviceProfiles"), uuid)},
                 {"type", L1("L2_PROFILE")},
                 {"name", L1(name)},
                 {"uuid", uuid},
                 {"description", L1(description)},
                 {"state", L1("ACTIVE")},
                 {"visibility", L1("PUBLIC")},
                 {"tags", QJsonArray{L1(tag)}},
                 {"notifications", notifications()},
                 {"accessPointTypeConfigs", QJsonArray{config}},
                 {"metros", metrosJson},
                 {"selfProfile", false},
                 {"account", obj({{"accountNumber", 200001},
                                  {"accountName", QStringLiteral("%1 Provider").arg(L1(name))}})},
                 {"changeLog", changeLog(seedTime(2))}}));
    };
    profile(Ids::ProfileAwsDirectConnect, "AWS Direct Connect",
            "Sandbox cloud profile modelled on AWS Direct Connect (needs the AWS account id)",
            ints({50, 100, 200, 300, 400, 500, 1000, 2000, 5000, 10000}), true, "AWS Account ID",
            serviceMetros({{"SV", {{"us-west-1", "US West (N. California)"}}},
                           {"DC", {{"us-east-1", "US East (N. Virginia)"}}},
                           {"NY", {{"us-east-1", "US East (N. Virginia)"}}},
                           {"LD", {{"eu-west-2", "Europe (London)"}}},
                           {"AM", {{"eu-central-1", "Europe (Frankfurt)"}}}}),
            "Cloud");
    profile(Ids::ProfileAzureExpressRoute, "Azure ExpressRoute",
            "Sandbox cloud profile modelled on Azure ExpressRoute (needs the service key)",
            ints({50, 100, 200, 500, 1000, 2000, 5000, 10000}), true, "ExpressRoute Service Key",
            serviceMetros({{"SV", {{"westus", "West US"}}},
                           {"DC", {{"eastus", "East US"}}},
                           {"AM", {{"westeurope", "West Europe"}}},
                           {"LD", {{"uksouth", "UK South"}}},
                           {"SG", {{"southeastasia", "Southeast Asia"}}}}),
            "Cloud");
    profile(Ids::ProfileGenericL2, "Sandbox Managed Services L2",
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
        m_routers.append(
            obj({{"href", href(QStringLiteral("routers"), r.uuid)},
                 {"uuid", r.uuid},
                 {"type", L1("XF_ROUTER")},
                 {"name", L1(r.name)},
                 {"state", L1("PROVISIONED")},
                 {"equinixAsn", 30000},
                 {"connectionsCount", 0},
                 {"location", obj({{"metroHref", m->value(QStringLiteral("href"))},
                                   {"region", m->value(QStringLiteral("region"))},
                                   {"metroName", m->value(QStringLiteral("name"))},
                                   {"metroCode", L1(r.metro)}})},
                 {"package", obj({{"href", href(QStringLiteral("routerPackages"), L1(r.package))},
                                  {"type", L1("ROUTER_PACKAGE")},
                                  {"code", L1(r.package)}})},
                 {"project", obj({{"projectId", L1("sandbox-project")}})},
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
        QJsonObject json = obj({{"href", href(QStringLiteral("networks"), n.uuid)},
                                {"uuid", n.uuid},
                                {"name", L1(n.name)},
                                {"type", L1(n.type)},
                                {"scope", L1(n.scope)},
                                {"state", L1("ACTIVE")},
                                {"connectionsCount", 0},
                                {"operation", obj({{"equinixStatus", L1("PROVISIONED")}})},
                                {"account", account()},
                                {"project", obj({{"projectId", L1("sandbox-project")}})},
                                {"notifications", notifications()},
                                {"changeLog", changeLog(seedTime(4))}});
        if (*n.region)
            json.insert(QStringLiteral("location"), obj({{"region", L1(n.region)}}));
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
            obj({{"type", L1("COLO")},
                 {"port", obj({{"href", p->value(QStringLiteral("href"))},
                               {"uuid", portUuid},
                               {"type", L1("XF_PORT")},
                               {"portName", p->value(QStringLiteral("name"))},
                               {"location", p->value(QStringLiteral("location"))}})},
                 {"linkProtocol", obj({{"type", L1("DOT1Q")}, {"vlanTag", vlan}})}});
        SandboxResource r;
        r.json = obj({{"href", href(QStringLiteral("serviceTokens"), uuid)},
                      {"uuid", uuid},
                      {"type", L1("VC_TOKEN")},
                      {"name", L1(name)},
                      {"description", L1("Seeded sandbox service token")},
                      {"issuerSide", L1("ASIDE")},
                      {"state", L1(state)},
                      {"expirationDateTime", L1(expires)},
                      {"connection",
                       obj({{"type", L1("EVPL_VC")},
                            {"allowRemoteConnection", true},
                            {"allowCustomBandwidth", false},
                            {"bandwidthLimit", 1000},
                            {"supportedBandwidths", ints({50, 100, 500, 1000})},
                            {"aSide", obj({{"accessPointSelectors", QJsonArray{selector}}})}})},
                      {"notifications", notifications()},
                      {"account", account()},
                      {"project", obj({{"projectId", L1("sandbox-project")}})},
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
        return enrichAccessPoint(obj({{"type", L1("COLO")},
                                      {"port", obj({{"uuid", portUuid}})},
                                      {"linkProtocol", linkProtocol}}));
    };
    const auto dot1q = [](int tag) { return obj({{"type", L1("DOT1Q")}, {"vlanTag", tag}}); };
    const auto sp = [&](QLatin1String profile, const char *metroCode, const char *region) {
        return enrichAccessPoint(obj({{"type", L1("SP")},
                                      {"profile", obj({{"uuid", profile}})},
                                      {"location", obj({{"metroCode", L1(metroCode)}})},
                                      {"sellerRegion", L1(region)},
                                      {"authenticationKey", L1("xxxxxxxx7890")}}));
    };
    const auto connection = [&](QLatin1String uuid, const char *name, int bandwidth,
                                QJsonObject aSide, QJsonObject zSide, const char *group,
                                const char *priority, int day) {
        const bool remote = str(aSide, "/location/metroCode") != str(zSide, "/location/metroCode");
        SandboxResource r;
        r.json =
            obj({{"href", href(QStringLiteral("connections"), uuid)},
                 {"uuid", uuid},
                 {"type", L1("EVPL_VC")},
                 {"name", L1(name)},
                 {"state", L1("ACTIVE")},
                 {"bandwidth", bandwidth},
                 {"isRemote", remote},
                 {"direction", L1("OUTGOING")},
                 {"redundancy", obj({{"group", L1(group)}, {"priority", L1(priority)}})},
                 {"aSide", obj({{"accessPoint", aSide}})},
                 {"zSide", obj({{"accessPoint", zSide}})},
                 {"operation", obj({{"providerStatus", L1("AVAILABLE")},
                                    {"equinixStatus", L1("PROVISIONED")},
                                    {"operationalStatus", L1("UP")}})},
                 {"change",
                  obj({{"uuid", QUuid::createUuidV5(QUuid(QString(uuid)), QStringLiteral("change"))
                                    .toString(QUuid::WithoutBraces)},
                       {"type", L1("CONNECTION_CREATION")},
                       {"status", L1("COMPLETED")},
                       {"createdDateTime", seedTime(day)},
                       {"updatedDateTime", seedTime(day)}})},
                 {"order", obj({{"purchaseOrderNumber", L1("PO-SANDBOX-1")},
                                {"billingTier", L1("Up to 1 Gbps")},
                                {"termLength", 1}})},
                 {"notifications", notifications()},
                 {"account", account()},
                 {"project", obj({{"projectId", L1("sandbox-project")}})},
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
        colo(Ids::PortNyQinq, obj({{"type", L1("QINQ")}, {"vlanSTag", 300}, {"vlanCTag", 30}})),
        colo(Ids::PortLd, dot1q(400)), "sandbox-ny-ld", "PRIMARY", 13);
}

// ---- description --------------------------------------------------------------------------

QJsonObject SandboxEstate::toJson() const
{
    const auto arr = [](const QList<QJsonObject> &list) {
        QJsonArray a;
        for (const QJsonObject &o : list)
            a.append(o);
        return a;
    };
    const auto res = [](const QList<SandboxResource> &list) {
        QJsonArray a;
        for (const SandboxResource &r : list)
            a.append(r.json);
        return a;
    };
    QJsonArray rates;
    for (const SandboxRate &r : m_rates)
        rates.append(obj({{"bandwidth", r.bandwidthMbps},
                          {"monthlyRecurring", r.monthlyUsd},
                          {"currency", L1("USD")}}));
    QJsonObject portVlans;
    for (const QJsonObject &p : m_ports)
        portVlans.insert(p.value(QStringLiteral("uuid")).toString(),
                         linkProtocols(p.value(QStringLiteral("uuid")).toString()));
    return obj({{"metros", arr(m_metros)},
                {"ports", arr(m_ports)},
                {"portLinkProtocols", portVlans},
                {"serviceProfiles", arr(m_profiles)},
                {"connections", res(m_connections)},
                {"networks", res(m_networks)},
                {"serviceTokens", res(m_tokens)},
                {"routers", arr(m_routers)},
                {"rateCard", obj({{"productType", L1("VIRTUAL_CONNECTION_PRODUCT")},
                                  {"remoteMultiplier", remoteMultiplier()},
                                  {"rates", rates}})}});
}

QString SandboxEstate::describe() const
{
    QString text;
    QTextStream out(&text);
    const auto vlanText = [](const QJsonObject &lp) {
        if (lp.value(QStringLiteral("type")).toString() == QLatin1String("QINQ"))
            return QStringLiteral("%1.%2")
                .arg(lp.value(QStringLiteral("vlanSTag")).toInt())
                .arg(lp.value(QStringLiteral("vlanCTag")).toInt());
        return QString::number(lp.value(QStringLiteral("vlanTag")).toInt());
    };
    out << "Fabric sandbox estate (account " << SandboxIds::AccountNumber << ")\n\nMetros:\n";
    for (const QJsonObject &m : m_metros)
        out << "  " << m.value(QStringLiteral("code")).toString() << "  "
            << m.value(QStringLiteral("name")).toString() << " ("
            << m.value(QStringLiteral("region")).toString() << ")\n";
    out << "\nPorts (uuid, name, metro/ibx, encapsulation, speed Mbps, VLANs in use):\n";
    for (const QJsonObject &p : m_ports) {
        QStringList vlans;
        const QJsonArray lps = linkProtocols(p.value(QStringLiteral("uuid")).toString());
        for (const QJsonValue &lp : lps)
            vlans << vlanText(lp.toObject());
        out << "  " << p.value(QStringLiteral("uuid")).toString() << "  "
            << p.value(QStringLiteral("name")).toString() << "  " << str(p, "/location/metroCode")
            << '/' << str(p, "/location/ibx") << "  " << str(p, "/encapsulation/type") << "  "
            << p.value(QStringLiteral("bandwidth")).toInt() << "  VLANs in use: "
            << (vlans.isEmpty() ? QStringLiteral("none") : vlans.join(QStringLiteral(", ")))
            << '\n';
    }
    out << "\nService profiles (uuid, name, type, auth key, bandwidths, metros with seller "
           "regions):\n";
    for (const QJsonObject &sp : m_profiles) {
        const QJsonObject config =
            sp.value(QStringLiteral("accessPointTypeConfigs")).toArray().first().toObject();
        QStringList bws;
        const QJsonArray bwList = config.value(QStringLiteral("supportedBandwidths")).toArray();
        for (const QJsonValue &b : bwList)
            bws << QString::number(b.toInt());
        QStringList metros;
        const QJsonArray metroList = sp.value(QStringLiteral("metros")).toArray();
        for (const QJsonValue &mv : metroList) {
            const QJsonObject m = mv.toObject();
            const QStringList regions = m.value(QStringLiteral("sellerRegions")).toObject().keys();
            metros << m.value(QStringLiteral("code")).toString() +
                          (regions.isEmpty() ? QString()
                                             : QLatin1Char('[') + regions.join(QLatin1Char(',')) +
                                                   QLatin1Char(']'));
        }
        const bool key =
            SandboxSearch::valueAt(config, QStringLiteral("/authenticationKey/required")).toBool();
        out << "  " << sp.value(QStringLiteral("uuid")).toString() << "  "
            << sp.value(QStringLiteral("name")).toString() << "  "
            << sp.value(QStringLiteral("type")).toString() << "  auth key "
            << (key ? "required" : "not needed")
            << "\n      bandwidths: " << bws.join(QLatin1Char(' '))
            << "\n      metros: " << metros.join(QLatin1Char(' ')) << '\n';
    }
    out << "\nConnections (uuid, name, type, bandwidth, state, A -> Z):\n";
    for (const SandboxResource &r : m_connections) {
        const auto sideText = [&](const char *side) {
            const QJsonObject ap = SandboxSearch::valueAt(r.json, QLatin1String(side)).toObject();
            if (ap.value(QStringLiteral("type")).toString() == QLatin1String("SP"))
                return str(ap, "/profile/name") + QLatin1Char('@') + str(ap, "/location/metroCode");
            return str(ap, "/port/name") + QLatin1Char('/') +
                   vlanText(ap.value(QStringLiteral("linkProtocol")).toObject());
        };
        out << "  " << r.json.value(QStringLiteral("uuid")).toString() << "  "
            << r.json.value(QStringLiteral("name")).toString() << "  "
            << r.json.value(QStringLiteral("type")).toString() << "  "
            << r.json.value(QStringLiteral("bandwidth")).toInt() << "  "
            << r.json.value(QStringLiteral("state")).toString() << "  "
            << sideText("/aSide/accessPoint") << " -> " << sideText("/zSide/accessPoint") << '\n';
    }
    out << "\nNetworks (uuid, name, type, scope, state):\n";
    for (const SandboxResource &r : m_networks)
        out << "  " << r.json.value(QStringLiteral("uuid")).toString() << "  "
            << r.json.value(QStringLiteral("name")).toString() << "  "
            << r.json.value(QStringLiteral("type")).toString() << "  "
            << r.json.value(QStringLiteral("scope")).toString() << "  "
            << r.json.value(QStringLiteral("state")).toString() << '\n';
    out << "\nService tokens (uuid, name, type, state, expires, port/VLAN):\n";
    for (const SandboxResource &r : m_tokens) {
        const QJsonObject sel =
            SandboxSearch::valueAt(r.json, QStringLiteral("/connection/aSide/accessPointSelectors"))
                .toObject();
        out << "  " << r.json.value(QStringLiteral("uuid")).toString() << "  "
            << r.json.value(QStringLiteral("name")).toString() << "  "
            << r.json.value(QStringLiteral("type")).toString() << "  "
            << r.json.value(QStringLiteral("state")).toString() << "  "
            << r.json.value(QStringLiteral("expirationDateTime")).toString() << "  "
            << str(sel, "/port/portName") << '/'
            << vlanText(sel.value(QStringLiteral("linkProtocol")).toObject()) << '\n';
    }
    out << "\nCloud routers (uuid, name, metro, package, state):\n";
    for (const QJsonObject &r : m_routers)
        out << "  " << r.value(QStringLiteral("uuid")).toString() << "  "
            << r.value(QStringLiteral("name")).toString() << "  " << str(r, "/location/metroCode")
            << "  " << str(r, "/package/code") << "  "
            << r.value(QStringLiteral("state")).toString() << '\n';
    out << "\nRate card (VIRTUAL_CONNECTION_PRODUCT, USD monthly, term 1; remote x"
        << remoteMultiplier() << ", no NRC):\n ";
    for (const SandboxRate &r : m_rates)
        out << ' ' << r.bandwidthMbps << "M=" << r.monthlyUsd;
    out << "\n  Every bandwidth a profile, token or port above offers is on it, in every metro."
           "\n  Networks and service tokens have no rate-card product (Fabric's price search"
           "\n  has none), so their proposals are unpriced.\n";
    return text;
}

} // namespace fb
