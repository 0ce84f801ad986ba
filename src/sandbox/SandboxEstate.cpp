#include "sandbox/SandboxEstate.h"

#include "sandbox/SandboxIds.h"
#include "sandbox/SandboxJson.h"
#include "sandbox/SandboxSearch.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QTextStream>
#include <QUuid>

namespace fb {

using L1 = QLatin1String;
using SandboxJson::obj;
using SandboxJson::str;

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
    return obj({{"accountNumber", SandboxIds::AccountNumber},
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
                    QUuid::createUuidV5(QUuid(QString(SandboxIds::PortSvPrimary)),
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
