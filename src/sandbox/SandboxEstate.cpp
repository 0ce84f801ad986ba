#include "sandbox/SandboxEstate.h"

#include "sandbox/SandboxIds.h"
#include "sandbox/SandboxJson.h"
#include "sandbox/SandboxSearch.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QTextStream>
#include <QUuid>

namespace fb {

using namespace Qt::StringLiterals;

using SandboxJson::obj;
using SandboxJson::str;

SandboxEstate::SandboxEstate(const Clock *clock)
    : m_clock(clock ? clock : Clock::system())
{
    seed(u"http://127.0.0.1"_s);
}

QString SandboxEstate::href(const QString &collection, const QString &id) const
{
    return m_baseUrl + u"/fabric/v4/"_s + collection + QLatin1Char('/') + id;
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
        if (r.json.value(u"uuid"_s).toString() == uuid)
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
    return obj({{"accountNumber", SandboxIds::AccountNumber},
                {"accountName", "Fabric Broker Sandbox"_L1},
                {"orgId", 91001},
                {"organizationName", "Fabric Broker Sandbox"_L1},
                {"globalCustId", "0016u00000SANDBOX"_L1}});
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
    const QString logKey = kind == SandboxKind::ServiceToken ? u"changelog"_s : u"changeLog"_s;
    QJsonObject cl = r.json.value(logKey).toObject();
    cl.insert(u"updatedDateTime"_s, now);
    r.json.insert(logKey, cl);
    switch (kind) {
    case SandboxKind::Connection: {
        r.json.insert(u"state"_s, "ACTIVE"_L1);
        r.json.insert(u"operation"_s, obj({{"providerStatus", "AVAILABLE"_L1},
                                           {"equinixStatus", "PROVISIONED"_L1},
                                           {"operationalStatus", "UP"_L1},
                                           {"opStatusChangedAt", now}}));
        QJsonObject change = r.json.value(u"change"_s).toObject();
        change.insert(u"status"_s, "COMPLETED"_L1);
        change.insert(u"updatedDateTime"_s, now);
        r.json.insert(u"change"_s, change);
        break;
    }
    case SandboxKind::Network:
        r.json.insert(u"state"_s, "ACTIVE"_L1);
        r.json.insert(u"operation"_s, obj({{"equinixStatus", "PROVISIONED"_L1}}));
        break;
    case SandboxKind::ServiceToken:
        r.json.insert(u"state"_s, "ACTIVE"_L1);
        break;
    }
}

namespace {

// to[key] = from[key] for each key, in order (a key from lacks is removed from to).
void copyKeys(QJsonObject *to, const QJsonObject &from, std::initializer_list<QStringView> keys)
{
    for (const QStringView key : keys)
        to->insert(key, from.value(key));
}

} // namespace

QJsonObject SandboxEstate::enrichAccessPoint(const QJsonObject &accessPoint) const
{
    QJsonObject ap = accessPoint;
    const QString type = ap.value(u"type"_s).toString();
    const auto withLocationOfMetro = [&](const QString &code) {
        QJsonObject loc = ap.value(u"location"_s).toObject();
        if (const QJsonObject *m = metro(code)) {
            loc.insert(u"metroHref"_s, m->value(u"href"_s));
            loc.insert(u"metroName"_s, m->value(u"name"_s));
            loc.insert(u"region"_s, m->value(u"region"_s));
            loc.insert(u"metroCode"_s, code);
        }
        if (!loc.isEmpty())
            ap.insert(u"location"_s, loc);
    };
    if (type == "COLO"_L1) {
        QJsonObject p = ap.value(u"port"_s).toObject();
        if (const QJsonObject *known = port(p.value(u"uuid"_s).toString())) {
            copyKeys(&p, *known, {u"href", u"name"});
            p.insert(u"type"_s, "XF_PORT"_L1);
            ap.insert(u"port"_s, p);
            QJsonObject loc = known->value(u"location"_s).toObject();
            ap.insert(u"location"_s, loc);
        }
    } else if (type == "SP"_L1) {
        QJsonObject p = ap.value(u"profile"_s).toObject();
        if (const QJsonObject *known = serviceProfile(p.value(u"uuid"_s).toString())) {
            copyKeys(&p, *known, {u"href", u"name", u"type"});
            ap.insert(u"profile"_s, p);
        }
        withLocationOfMetro(str(ap, "/location/metroCode"));
    } else if (type == "NETWORK"_L1) {
        QJsonObject n = ap.value(u"network"_s).toObject();
        const QString id = n.value(u"uuid"_s).toString();
        for (const SandboxResource &r : m_networks) {
            if (r.json.value(u"uuid"_s).toString() != id)
                continue;
            copyKeys(&n, r.json, {u"href", u"name", u"type", u"scope"});
            ap.insert(u"network"_s, n);
        }
    } else if (type == "CLOUD_ROUTER"_L1) {
        QJsonObject rt = ap.value(u"router"_s).toObject();
        if (const QJsonObject *known = router(rt.value(u"uuid"_s).toString())) {
            copyKeys(&rt, *known, {u"href", u"name"});
            ap.insert(u"router"_s, rt);
            withLocationOfMetro(str(*known, "/location/metroCode"));
        }
    }
    return ap;
}

bool SandboxEstate::enrichSelectorPort(QJsonObject &port) const
{
    const QJsonObject *known = this->port(port.value(u"uuid"_s).toString());
    if (!known)
        return false;
    port.insert(u"href"_s, known->value(u"href"_s));
    port.insert(u"type"_s, "XF_PORT"_L1);
    port.insert(u"portName"_s, known->value(u"name"_s));
    port.insert(u"location"_s, known->value(u"location"_s));
    return true;
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
            const QJsonObject ap =
                r.json.value(QLatin1String(side)).toObject().value(u"accessPoint"_s).toObject();
            if (ap.value(u"type"_s).toString() != "COLO"_L1 || str(ap, "/port/uuid") != portUuid)
                continue;
            out->append({u"connection"_s, r.json.value(u"uuid"_s).toString(),
                         r.json.value(u"bandwidth"_s).toInt(),
                         ap.value(u"linkProtocol"_s).toObject(),
                         str(r.json, "/changeLog/createdDateTime")});
        }
    }
    for (const SandboxResource &r : tokens) {
        const QString state = r.json.value(u"state"_s).toString();
        if (state == "EXPIRED"_L1 || state == "DELETED"_L1)
            continue;
        for (const char *side : {"aSide", "zSide"}) {
            const QJsonArray selectors = r.json.value(u"connection"_s)
                                             .toObject()
                                             .value(QLatin1String(side))
                                             .toObject()
                                             .value(u"accessPointSelectors"_s)
                                             .toArray();
            for (const QJsonValue &s : selectors) {
                const QJsonObject sel = s.toObject();
                if (str(sel, "/port/uuid") != portUuid)
                    continue;
                out->append(
                    {u"serviceToken"_s, r.json.value(u"uuid"_s).toString(),
                     SandboxSearch::valueAt(r.json, u"/connection/bandwidthLimit"_s).toInt(),
                     sel.value(u"linkProtocol"_s).toObject(),
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
    const QString ta = a.value(u"type"_s).toString();
    const QString tb = b.value(u"type"_s).toString();
    if (ta == "QINQ"_L1 || tb == "QINQ"_L1) {
        const int sa = tag(a, "vlanSTag");
        const int sb = tag(b, "vlanSTag");
        if (sa < 0 || sa != sb)
            return false;
        const int ca = tag(a, "vlanCTag");
        const int cb = tag(b, "vlanCTag");
        return ca < 0 || cb < 0 || ca == cb;
    }
    if (ta == "UNTAGGED"_L1 || tb == "UNTAGGED"_L1)
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
        item.insert(u"uuid"_s, QUuid::createUuidV5(QUuid(QString(SandboxIds::PortSvPrimary)),
                                                   u.uuid + QLatin1Char('/') + portUuid)
                                   .toString(QUuid::WithoutBraces));
        item.insert(u"state"_s, "RESERVED"_L1);
        const QString collection =
            u.kind == "connection"_L1 ? u"connections"_s : u"serviceTokens"_s;
        QJsonObject asset =
            obj({{"href", href(collection, u.uuid)}, {"uuid", u.uuid}, {"bandwidth", u.bandwidth}});
        if (u.kind == "connection"_L1)
            item.insert(u"asset"_s, asset);
        else
            item.insert(u"serviceToken"_s, asset);
        item.insert(u"changeLog"_s, obj({{"createdDateTime", u.createdDateTime}}));
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
                          {"currency", "USD"_L1}}));
    QJsonObject portVlans;
    for (const QJsonObject &p : m_ports)
        portVlans.insert(p.value(u"uuid"_s).toString(),
                         linkProtocols(p.value(u"uuid"_s).toString()));
    return obj({{"metros", arr(m_metros)},
                {"ports", arr(m_ports)},
                {"portLinkProtocols", portVlans},
                {"serviceProfiles", arr(m_profiles)},
                {"connections", res(m_connections)},
                {"networks", res(m_networks)},
                {"serviceTokens", res(m_tokens)},
                {"routers", arr(m_routers)},
                {"rateCard", obj({{"productType", "VIRTUAL_CONNECTION_PRODUCT"_L1},
                                  {"remoteMultiplier", remoteMultiplier()},
                                  {"rates", rates}})}});
}

QString SandboxEstate::describe() const
{
    QString text;
    QTextStream out(&text);
    const auto vlanText = [](const QJsonObject &lp) {
        if (lp.value(u"type"_s).toString() == "QINQ"_L1)
            return u"%1.%2"_s.arg(lp.value(u"vlanSTag"_s).toInt())
                .arg(lp.value(u"vlanCTag"_s).toInt());
        return QString::number(lp.value(u"vlanTag"_s).toInt());
    };
    out << "Fabric sandbox estate (account " << SandboxIds::AccountNumber << ")\n\nMetros:\n";
    for (const QJsonObject &m : m_metros)
        out << "  " << m.value(u"code"_s).toString() << "  " << m.value(u"name"_s).toString()
            << " (" << m.value(u"region"_s).toString() << ")\n";
    out << "\nPorts (uuid, name, metro/ibx, encapsulation, speed Mbps, VLANs in use):\n";
    for (const QJsonObject &p : m_ports) {
        QStringList vlans;
        const QJsonArray lps = linkProtocols(p.value(u"uuid"_s).toString());
        for (const QJsonValue &lp : lps)
            vlans << vlanText(lp.toObject());
        out << "  " << p.value(u"uuid"_s).toString() << "  " << p.value(u"name"_s).toString()
            << "  " << str(p, "/location/metroCode") << '/' << str(p, "/location/ibx") << "  "
            << str(p, "/encapsulation/type") << "  " << p.value(u"bandwidth"_s).toInt()
            << "  VLANs in use: " << (vlans.isEmpty() ? u"none"_s : vlans.join(u", "_s)) << '\n';
    }
    out << "\nService profiles (uuid, name, type, auth key, bandwidths, metros with seller "
           "regions):\n";
    for (const QJsonObject &sp : m_profiles) {
        const QJsonObject config =
            sp.value(u"accessPointTypeConfigs"_s).toArray().first().toObject();
        QStringList bws;
        const QJsonArray bwList = config.value(u"supportedBandwidths"_s).toArray();
        for (const QJsonValue &b : bwList)
            bws << QString::number(b.toInt());
        QStringList metros;
        const QJsonArray metroList = sp.value(u"metros"_s).toArray();
        for (const QJsonValue &mv : metroList) {
            const QJsonObject m = mv.toObject();
            const QStringList regions = m.value(u"sellerRegions"_s).toObject().keys();
            metros << m.value(u"code"_s).toString() +
                          (regions.isEmpty() ? QString()
                                             : QLatin1Char('[') + regions.join(QLatin1Char(',')) +
                                                   QLatin1Char(']'));
        }
        const bool key = SandboxSearch::valueAt(config, u"/authenticationKey/required"_s).toBool();
        out << "  " << sp.value(u"uuid"_s).toString() << "  " << sp.value(u"name"_s).toString()
            << "  " << sp.value(u"type"_s).toString() << "  auth key "
            << (key ? "required" : "not needed")
            << "\n      bandwidths: " << bws.join(QLatin1Char(' '))
            << "\n      metros: " << metros.join(QLatin1Char(' ')) << '\n';
    }
    out << "\nConnections (uuid, name, type, bandwidth, state, A -> Z):\n";
    for (const SandboxResource &r : m_connections) {
        const auto sideText = [&](const char *side) -> QString {
            const QJsonObject ap = SandboxSearch::valueAt(r.json, QLatin1String(side)).toObject();
            if (ap.value(u"type"_s).toString() == "SP"_L1)
                return str(ap, "/profile/name") + QLatin1Char('@') + str(ap, "/location/metroCode");
            return str(ap, "/port/name") + QLatin1Char('/') +
                   vlanText(ap.value(u"linkProtocol"_s).toObject());
        };
        out << "  " << r.json.value(u"uuid"_s).toString() << "  "
            << r.json.value(u"name"_s).toString() << "  " << r.json.value(u"type"_s).toString()
            << "  " << r.json.value(u"bandwidth"_s).toInt() << "  "
            << r.json.value(u"state"_s).toString() << "  " << sideText("/aSide/accessPoint")
            << " -> " << sideText("/zSide/accessPoint") << '\n';
    }
    out << "\nNetworks (uuid, name, type, scope, state):\n";
    for (const SandboxResource &r : m_networks)
        out << "  " << r.json.value(u"uuid"_s).toString() << "  "
            << r.json.value(u"name"_s).toString() << "  " << r.json.value(u"type"_s).toString()
            << "  " << r.json.value(u"scope"_s).toString() << "  "
            << r.json.value(u"state"_s).toString() << '\n';
    out << "\nService tokens (uuid, name, type, state, expires, port/VLAN):\n";
    for (const SandboxResource &r : m_tokens) {
        const QJsonObject sel =
            SandboxSearch::valueAt(r.json, u"/connection/aSide/accessPointSelectors"_s).toObject();
        out << "  " << r.json.value(u"uuid"_s).toString() << "  "
            << r.json.value(u"name"_s).toString() << "  " << r.json.value(u"type"_s).toString()
            << "  " << r.json.value(u"state"_s).toString() << "  "
            << r.json.value(u"expirationDateTime"_s).toString() << "  "
            << str(sel, "/port/portName") << '/'
            << vlanText(sel.value(u"linkProtocol"_s).toObject()) << '\n';
    }
    out << "\nCloud routers (uuid, name, metro, package, state):\n";
    for (const QJsonObject &r : m_routers)
        out << "  " << r.value(u"uuid"_s).toString() << "  " << r.value(u"name"_s).toString()
            << "  " << str(r, "/location/metroCode") << "  " << str(r, "/package/code") << "  "
            << r.value(u"state"_s).toString() << '\n';
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
