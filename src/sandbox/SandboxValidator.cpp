#include "sandbox/SandboxValidator.h"

#include "sandbox/SandboxReply.h"
#include "sandbox/SandboxSearch.h"

#include <QDateTime>
#include <QStringList>

namespace fb {

namespace {

using L1 = QLatin1String;

QStringList list(std::initializer_list<const char *> items)
{
    QStringList out;
    for (const char *s : items)
        out << QLatin1String(s);
    return out;
}

const QStringList &connectionTypes()
{
    static const QStringList t =
        list({"EVPL_VC", "EPL_VC", "EC_VC", "IP_VC", "ACCESS_EPL_VC", "EIA_VC", "EVPLAN_VC",
              "EPLAN_VC", "EVPTREE_VC", "EPTREE_VC", "IPWAN_VC", "IA_VC"});
    return t;
}

// Collects schema violations as EQ-3142501 errors.
class Schema {
public:
    Schema(const SandboxValidator &v, QJsonArray *errors)
        : m_v(v)
        , m_errors(errors)
    {
    }
    void fail(const QString &path, const QString &reason)
    {
        m_errors->append(m_v.invalidArgument(path, reason));
    }
    bool has(const QJsonObject &o, const char *key) const { return o.contains(L1(key)); }
    QJsonObject object(const QJsonObject &o, const char *key, const QString &path, bool required)
    {
        const QJsonValue v = o.value(L1(key));
        if (v.isUndefined()) {
            if (required)
                fail(join(path, key), QStringLiteral("is required"));
            return {};
        }
        if (!v.isObject()) {
            fail(join(path, key), QStringLiteral("must be an object"));
            return {};
        }
        return v.toObject();
    }
    QString string(const QJsonObject &o, const char *key, const QString &path, bool required,
                   const QStringList &allowed = {})
    {
        const QJsonValue v = o.value(L1(key));
        if (v.isUndefined()) {
            if (required)
                fail(join(path, key), QStringLiteral("is required"));
            return {};
        }
        if (!v.isString() || (required && v.toString().isEmpty())) {
            fail(join(path, key), QStringLiteral("must be a non-empty string"));
            return {};
        }
        if (!allowed.isEmpty() && !allowed.contains(v.toString())) {
            fail(join(path, key),
                 QStringLiteral("must be one of ") + allowed.join(QStringLiteral(", ")));
            return {};
        }
        return v.toString();
    }
    void integer(const QJsonObject &o, const char *key, const QString &path, bool required,
                 double min, double max)
    {
        const QJsonValue v = o.value(L1(key));
        if (v.isUndefined()) {
            if (required)
                fail(join(path, key), QStringLiteral("is required"));
            return;
        }
        const double d = v.toDouble();
        if (!v.isDouble() || d != double(qint64(d)) || d < min || d > max)
            fail(join(path, key), QStringLiteral("must be an integer between %1 and %2")
                                      .arg(qint64(min))
                                      .arg(qint64(max)));
    }
    void notifications(const QJsonObject &o, const QString &path, bool required)
    {
        const QJsonValue v = o.value(QStringLiteral("notifications"));
        if (v.isUndefined()) {
            if (required)
                fail(join(path, "notifications"), QStringLiteral("is required"));
            return;
        }
        if (!v.isArray()) {
            fail(join(path, "notifications"), QStringLiteral("must be an array"));
            return;
        }
        const QJsonArray items = v.toArray();
        for (qsizetype i = 0; i < items.size(); ++i) {
            const QString p = join(path, "notifications") + QStringLiteral("[%1]").arg(i);
            if (!items.at(i).isObject()) {
                fail(p, QStringLiteral("must be an object"));
                continue;
            }
            const QJsonObject n = items.at(i).toObject();
            string(n, "type", p, true,
                   list({"NOTIFICATION", "BANDWIDTH_ALERT", "CONNECTION_APPROVAL",
                         "PROFILE_LIFECYCLE", "ALL", "SALES_REP_NOTIFICATIONS", "TECHNICAL",
                         "ORDERING", "QUOTE_NOTIFICATIONS"}));
            const QJsonValue emails = n.value(QStringLiteral("emails"));
            if (!emails.isArray() || emails.toArray().isEmpty())
                fail(p + QStringLiteral(".emails"), QStringLiteral("must be a non-empty array"));
        }
    }
    void linkProtocol(const QJsonObject &owner, const QString &path)
    {
        const QJsonObject lp = object(owner, "linkProtocol", path, true);
        if (lp.isEmpty())
            return;
        const QString p = join(path, "linkProtocol");
        const QString type =
            string(lp, "type", p, true, list({"UNTAGGED", "DOT1Q", "QINQ", "EVPN_VXLAN", "VXLAN"}));
        if (type == QLatin1String("DOT1Q"))
            integer(lp, "vlanTag", p, true, 2, 4094);
        if (type == QLatin1String("QINQ")) {
            integer(lp, "vlanSTag", p, true, 2, 4094);
            integer(lp, "vlanCTag", p, false, 2, 4094);
        }
    }
    static QString join(const QString &path, const char *key)
    {
        return path.isEmpty() ? QString(L1(key)) : path + QLatin1Char('.') + L1(key);
    }

private:
    const SandboxValidator &m_v;
    QJsonArray *m_errors;
};

} // namespace

SandboxValidator::SandboxValidator(const SandboxEstate &estate, const QString &correlationId)
    : m_estate(estate)
    , m_correlationId(correlationId)
{
}

QJsonObject SandboxValidator::invalidArgument(const QString &property, const QString &reason) const
{
    return fabricError(SandboxErrors::InvalidArgument, SandboxErrors::InvalidArgumentMessage,
                       m_correlationId, {}, {{property, reason}});
}

// ---- connections --------------------------------------------------------------------------

void SandboxValidator::checkAccessPoint(const QJsonObject &ap, const QString &path,
                                        QJsonArray *errors) const
{
    Schema s(*this, errors);
    const QString type =
        s.string(ap, "type", path, true,
                 list({"VD", "VG", "SP", "IGW", "COLO", "SUBNET", "CLOUD_ROUTER", "NETWORK",
                       "METAL_NETWORK", "VPIC_INTERFACE", "APP_LINK", "XF_IC"}));
    if (type == QLatin1String("COLO")) {
        const QJsonObject port = s.object(ap, "port", path, true);
        if (!port.isEmpty())
            s.string(port, "uuid", path + QStringLiteral(".port"), true);
        s.linkProtocol(ap, path);
    } else if (type == QLatin1String("SP")) {
        const QJsonObject profile = s.object(ap, "profile", path, true);
        if (!profile.isEmpty())
            s.string(profile, "uuid", path + QStringLiteral(".profile"), true);
        const QJsonObject location = s.object(ap, "location", path, true);
        if (!location.isEmpty())
            s.string(location, "metroCode", path + QStringLiteral(".location"), true);
        s.string(ap, "authenticationKey", path, false);
        s.string(ap, "sellerRegion", path, false);
    } else if (type == QLatin1String("NETWORK")) {
        const QJsonObject network = s.object(ap, "network", path, true);
        if (!network.isEmpty())
            s.string(network, "uuid", path + QStringLiteral(".network"), true);
    } else if (type == QLatin1String("CLOUD_ROUTER")) {
        const QJsonObject router = s.object(ap, "router", path, true);
        if (!router.isEmpty())
            s.string(router, "uuid", path + QStringLiteral(".router"), true);
    }
}

QJsonArray SandboxValidator::connectionSchema(const QJsonObject &body) const
{
    QJsonArray errors;
    Schema s(*this, &errors);
    s.string(body, "type", {}, true, connectionTypes());
    s.string(body, "name", {}, true);
    s.integer(body, "bandwidth", {}, true, 0, 100000);
    s.notifications(body, {}, true);
    for (const char *side : {"aSide", "zSide"}) {
        const QJsonObject sideObj = s.object(body, side, {}, true);
        if (!body.value(L1(side)).isObject())
            continue;
        const bool hasAp = sideObj.contains(QStringLiteral("accessPoint"));
        const bool hasToken = sideObj.contains(QStringLiteral("serviceToken"));
        if (!hasAp && !hasToken) {
            s.fail(L1(side) + QStringLiteral(".accessPoint"), QStringLiteral("is required"));
            continue;
        }
        if (hasAp) {
            const QJsonObject ap = s.object(sideObj, "accessPoint", L1(side), true);
            if (sideObj.value(QStringLiteral("accessPoint")).isObject())
                checkAccessPoint(ap, L1(side) + QStringLiteral(".accessPoint"), &errors);
        } else {
            const QJsonObject token = s.object(sideObj, "serviceToken", L1(side), true);
            if (!token.isEmpty())
                s.string(token, "uuid", L1(side) + QStringLiteral(".serviceToken"), true);
        }
    }
    const QJsonObject redundancy = s.object(body, "redundancy", {}, false);
    if (!redundancy.isEmpty())
        s.string(redundancy, "priority", QStringLiteral("redundancy"), false,
                 list({"PRIMARY", "SECONDARY"}));
    s.object(body, "order", {}, false);
    s.object(body, "project", {}, false);
    return errors;
}

QJsonArray SandboxValidator::connectionRules(const QJsonObject &body) const
{
    QJsonArray errors;
    const int bandwidth = body.value(QStringLiteral("bandwidth")).toInt();
    for (const char *side : {"aSide", "zSide"}) {
        const QString path = L1(side);
        const QJsonObject sideObj = body.value(path).toObject();
        if (sideObj.contains(QStringLiteral("serviceToken"))) {
            const QString id =
                SandboxSearch::valueAt(sideObj, QStringLiteral("/serviceToken/uuid")).toString();
            const SandboxResource *token = m_estate.find(SandboxKind::ServiceToken, id);
            if (!token)
                errors.append(invalidArgument(path + QStringLiteral(".serviceToken.uuid"),
                                              QStringLiteral("Service token not found")));
            else if (token->json.value(QStringLiteral("state")).toString() !=
                     QLatin1String("ACTIVE"))
                errors.append(fabricError(SandboxErrors::TokenInvalidStatus,
                                          SandboxErrors::TokenInvalidStatusMessage, m_correlationId,
                                          {},
                                          {{path + QStringLiteral(".serviceToken.uuid"),
                                            QStringLiteral("Service token is not ACTIVE")}}));
            continue;
        }
        const QJsonObject ap = sideObj.value(QStringLiteral("accessPoint")).toObject();
        const QString apPath = path + QStringLiteral(".accessPoint");
        const QString type = ap.value(QStringLiteral("type")).toString();
        if (type == QLatin1String("COLO")) {
            const QString portId =
                SandboxSearch::valueAt(ap, QStringLiteral("/port/uuid")).toString();
            if (!m_estate.port(portId)) {
                errors.append(invalidArgument(apPath + QStringLiteral(".port.uuid"),
                                              QStringLiteral("Port does not exist or does not "
                                                             "belong to the user")));
                continue;
            }
            const QJsonObject lp = ap.value(QStringLiteral("linkProtocol")).toObject();
            if (m_estate.vlanInUse(portId, lp)) {
                const bool qinq =
                    lp.value(QStringLiteral("type")).toString() == QLatin1String("QINQ");
                errors.append(fabricError(
                    SandboxErrors::VlanInUse, SandboxErrors::VlanInUseMessage, m_correlationId, {},
                    {{apPath + (qinq ? QStringLiteral(".linkProtocol.vlanSTag")
                                     : QStringLiteral(".linkProtocol.vlanTag")),
                      QStringLiteral("VLAN already in use on port %1").arg(portId)}}));
            }
        } else if (type == QLatin1String("SP")) {
            const QString profileId =
                SandboxSearch::valueAt(ap, QStringLiteral("/profile/uuid")).toString();
            const QJsonObject *profile = m_estate.serviceProfile(profileId);
            if (!profile) {
                errors.append(
                    fabricError(SandboxErrors::UnknownProfile, SandboxErrors::UnknownProfileMessage,
                                m_correlationId, {},
                                {{apPath + QStringLiteral(".profile.uuid"),
                                  QStringLiteral("Service profile %1 not found").arg(profileId)}}));
                continue;
            }
            const QString metroCode =
                SandboxSearch::valueAt(ap, QStringLiteral("/location/metroCode")).toString();
            QJsonObject serviceMetro;
            const QJsonArray metros = profile->value(QStringLiteral("metros")).toArray();
            for (const QJsonValue &m : metros) {
                if (m.toObject().value(QStringLiteral("code")).toString() == metroCode)
                    serviceMetro = m.toObject();
            }
            if (serviceMetro.isEmpty()) {
                errors.append(fabricError(
                    SandboxErrors::ProfileNotInMetro, SandboxErrors::ProfileNotInMetroMessage,
                    m_correlationId, {},
                    {{apPath + QStringLiteral(".location.metroCode"),
                      QStringLiteral("Profile is not offered in metro %1").arg(metroCode)}}));
            }
            const QJsonObject config = profile->value(QStringLiteral("accessPointTypeConfigs"))
                                           .toArray()
                                           .first()
                                           .toObject();
            const QJsonArray bandwidths =
                config.value(QStringLiteral("supportedBandwidths")).toArray();
            if (!bandwidths.contains(QJsonValue(bandwidth))) {
                QStringList allowed;
                for (const QJsonValue &b : bandwidths)
                    allowed << QString::number(b.toInt());
                errors.append(fabricError(
                    SandboxErrors::BandwidthNotSupported,
                    SandboxErrors::BandwidthNotSupportedMessage, m_correlationId, {},
                    {{QStringLiteral("bandwidth"), QStringLiteral("Supported bandwidths: ") +
                                                       allowed.join(QStringLiteral(", "))}}));
            }
            const bool keyRequired =
                SandboxSearch::valueAt(config, QStringLiteral("/authenticationKey/required"))
                    .toBool();
            if (keyRequired && ap.value(QStringLiteral("authenticationKey")).toString().isEmpty()) {
                errors.append(fabricError(SandboxErrors::AuthKeyRequired,
                                          SandboxErrors::AuthKeyRequiredMessage, m_correlationId,
                                          {},
                                          {{apPath + QStringLiteral(".authenticationKey"),
                                            QStringLiteral("is required")}}));
            }
            const QString region = ap.value(QStringLiteral("sellerRegion")).toString();
            const QJsonObject regions =
                serviceMetro.value(QStringLiteral("sellerRegions")).toObject();
            if (!region.isEmpty() && !serviceMetro.isEmpty() && !regions.contains(region)) {
                errors.append(
                    invalidArgument(apPath + QStringLiteral(".sellerRegion"),
                                    QStringLiteral("Seller region not offered in metro "
                                                   "%1; allowed: %2")
                                        .arg(metroCode, regions.keys().join(QLatin1Char(',')))));
            }
        } else if (type == QLatin1String("NETWORK")) {
            const QString id =
                SandboxSearch::valueAt(ap, QStringLiteral("/network/uuid")).toString();
            if (!m_estate.find(SandboxKind::Network, id))
                errors.append(invalidArgument(apPath + QStringLiteral(".network.uuid"),
                                              QStringLiteral("Network not found")));
        } else if (type == QLatin1String("CLOUD_ROUTER")) {
            const QString id =
                SandboxSearch::valueAt(ap, QStringLiteral("/router/uuid")).toString();
            if (!m_estate.router(id))
                errors.append(invalidArgument(apPath + QStringLiteral(".router.uuid"),
                                              QStringLiteral("Cloud router not found")));
        }
    }
    return errors;
}

// ---- networks -----------------------------------------------------------------------------

QJsonArray SandboxValidator::networkSchema(const QJsonObject &body) const
{
    QJsonArray errors;
    Schema s(*this, &errors);
    s.string(body, "type", {}, true, list({"EVPLAN", "EPLAN", "IPWAN", "EVPTREE", "EPTREE"}));
    s.string(body, "name", {}, true);
    const QString scope = s.string(body, "scope", {}, true, list({"REGIONAL", "GLOBAL", "LOCAL"}));
    s.notifications(body, {}, true);
    const QJsonObject location =
        s.object(body, "location", {},
                 scope == QLatin1String("LOCAL") || scope == QLatin1String("REGIONAL"));
    if (scope == QLatin1String("LOCAL") && !location.isEmpty())
        s.string(location, "metroCode", QStringLiteral("location"), true);
    if (scope == QLatin1String("REGIONAL") && !location.isEmpty())
        s.string(location, "region", QStringLiteral("location"), true,
                 list({"AMER", "EMEA", "APAC"}));
    s.object(body, "project", {}, false);
    return errors;
}

QJsonArray SandboxValidator::networkRules(const QJsonObject &body) const
{
    QJsonArray errors;
    const QString metroCode =
        SandboxSearch::valueAt(body, QStringLiteral("/location/metroCode")).toString();
    if (!metroCode.isEmpty() && !m_estate.metro(metroCode))
        errors.append(invalidArgument(QStringLiteral("location.metroCode"),
                                      QStringLiteral("Unknown metro %1").arg(metroCode)));
    return errors;
}

// ---- service tokens -----------------------------------------------------------------------

void SandboxValidator::checkSelector(const QJsonObject &selector, const QString &path,
                                     QJsonArray *errors) const
{
    Schema s(*this, errors);
    const QString type = s.string(selector, "type", path, true, list({"COLO", "VD", "NETWORK"}));
    if (type == QLatin1String("COLO")) {
        const QJsonObject port = s.object(selector, "port", path, true);
        if (!port.isEmpty())
            s.string(port, "uuid", path + QStringLiteral(".port"), true);
        s.linkProtocol(selector, path);
    } else if (type == QLatin1String("NETWORK")) {
        const QJsonObject network = s.object(selector, "network", path, true);
        if (!network.isEmpty())
            s.string(network, "uuid", path + QStringLiteral(".network"), true);
    }
}

QJsonArray SandboxValidator::serviceTokenSchema(const QJsonObject &body) const
{
    QJsonArray errors;
    Schema s(*this, &errors);
    s.string(body, "type", {}, true, list({"VC_TOKEN", "EPL_TOKEN"}));
    const QString expiry = s.string(body, "expirationDateTime", {}, true);
    if (!expiry.isEmpty() && !QDateTime::fromString(expiry, Qt::ISODate).isValid())
        s.fail(QStringLiteral("expirationDateTime"),
               QStringLiteral("must be an ISO 8601 date-time"));
    s.notifications(body, {}, true);
    const QJsonObject connection = s.object(body, "connection", {}, true);
    if (connection.isEmpty())
        return errors;
    s.string(connection, "type", QStringLiteral("connection"), true,
             list({"EVPL_VC", "EPL_VC", "EVPLAN_VC", "EPLAN_VC", "IPWAN_VC", "IP_VC", "EVPTREE_VC",
                   "EPTREE_VC"}));
    s.integer(connection, "bandwidthLimit", QStringLiteral("connection"), false, 0, 100000);
    int sides = 0;
    for (const char *side : {"aSide", "zSide"}) {
        const QString path = QStringLiteral("connection.") + L1(side);
        const QJsonObject sideObj = s.object(connection, side, QStringLiteral("connection"), false);
        if (sideObj.isEmpty())
            continue;
        ++sides;
        const QJsonValue selectors = sideObj.value(QStringLiteral("accessPointSelectors"));
        if (!selectors.isArray() || selectors.toArray().isEmpty()) {
            s.fail(path + QStringLiteral(".accessPointSelectors"),
                   QStringLiteral("must be a non-empty array"));
            continue;
        }
        const QJsonArray list = selectors.toArray();
        for (qsizetype i = 0; i < list.size(); ++i)
            checkSelector(list.at(i).toObject(),
                          path + QStringLiteral(".accessPointSelectors[%1]").arg(i), &errors);
    }
    if (sides == 0)
        s.fail(QStringLiteral("connection.aSide"), QStringLiteral("aSide or zSide is required"));
    return errors;
}

QJsonArray SandboxValidator::serviceTokenRules(const QJsonObject &body) const
{
    QJsonArray errors;
    const QDateTime expiry = QDateTime::fromString(
        body.value(QStringLiteral("expirationDateTime")).toString(), Qt::ISODate);
    if (expiry.toMSecsSinceEpoch() <= m_estate.nowMs())
        errors.append(invalidArgument(QStringLiteral("expirationDateTime"),
                                      QStringLiteral("must be in the future")));
    for (const char *side : {"aSide", "zSide"}) {
        const QString path =
            QStringLiteral("connection.") + L1(side) + QStringLiteral(".accessPointSelectors");
        const QJsonArray selectors = body.value(QStringLiteral("connection"))
                                         .toObject()
                                         .value(L1(side))
                                         .toObject()
                                         .value(QStringLiteral("accessPointSelectors"))
                                         .toArray();
        for (qsizetype i = 0; i < selectors.size(); ++i) {
            const QJsonObject sel = selectors.at(i).toObject();
            const QString p = path + QStringLiteral("[%1]").arg(i);
            if (sel.value(QStringLiteral("type")).toString() == QLatin1String("COLO")) {
                const QString portId =
                    SandboxSearch::valueAt(sel, QStringLiteral("/port/uuid")).toString();
                if (!m_estate.port(portId)) {
                    errors.append(invalidArgument(p + QStringLiteral(".port.uuid"),
                                                  QStringLiteral("Port does not exist or does not "
                                                                 "belong to the user")));
                    continue;
                }
                if (m_estate.vlanInUse(portId,
                                       sel.value(QStringLiteral("linkProtocol")).toObject()))
                    errors.append(fabricError(
                        SandboxErrors::VlanInUse, SandboxErrors::VlanInUseMessage, m_correlationId,
                        {},
                        {{p + QStringLiteral(".linkProtocol.vlanTag"),
                          QStringLiteral("VLAN already in use on port %1").arg(portId)}}));
            } else if (sel.value(QStringLiteral("type")).toString() == QLatin1String("NETWORK")) {
                const QString id =
                    SandboxSearch::valueAt(sel, QStringLiteral("/network/uuid")).toString();
                if (!m_estate.find(SandboxKind::Network, id))
                    errors.append(invalidArgument(p + QStringLiteral(".network.uuid"),
                                                  QStringLiteral("Network not found")));
            }
        }
    }
    return errors;
}

} // namespace fb
