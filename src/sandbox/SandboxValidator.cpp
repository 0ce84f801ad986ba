#include "sandbox/SandboxValidator.h"

#include "sandbox/SandboxReply.h"
#include "sandbox/SandboxSchema.h"
#include "sandbox/SandboxSearch.h"

#include <QDateTime>
#include <QRegularExpression>
#include <QStringList>

namespace fb {

namespace {

using L1 = QLatin1String;

const QStringList &connectionTypes()
{
    static const QStringList t = SandboxSchema::list(
        {"EVPL_VC", "EPL_VC", "EC_VC", "IP_VC", "ACCESS_EPL_VC", "EIA_VC", "EVPLAN_VC", "EPLAN_VC",
         "EVPTREE_VC", "EPTREE_VC", "IPWAN_VC", "IA_VC", "MC_VC", "IX_VC", "GW_VC", "IPX_VC"});
    return t;
}

} // namespace

namespace {

// The metro of a connection side, from the request or the estate entity it names.
QString sideMetroIn(const SandboxEstate &estate, const QJsonObject &body, const QString &side)
{
    const QJsonObject ap =
        body.value(side).toObject().value(QStringLiteral("accessPoint")).toObject();
    QString metro = SandboxSearch::valueAt(ap, QStringLiteral("/location/metroCode")).toString();
    if (!metro.isEmpty())
        return metro;
    const QString type = ap.value(QStringLiteral("type")).toString();
    const QJsonObject *entity = nullptr;
    if (type == QLatin1String("COLO"))
        entity = estate.port(SandboxSearch::valueAt(ap, QStringLiteral("/port/uuid")).toString());
    else if (type == QLatin1String("CLOUD_ROUTER"))
        entity =
            estate.router(SandboxSearch::valueAt(ap, QStringLiteral("/router/uuid")).toString());
    return entity
               ? SandboxSearch::valueAt(*entity, QStringLiteral("/location/metroCode")).toString()
               : QString();
}

} // namespace

QString SandboxValidator::sideMetro(const QJsonObject &body, const QString &side) const
{
    return sideMetroIn(m_estate, body, side);
}

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

bool SandboxValidator::checkColoPort(const QJsonObject &ref, const QString &path, bool sTagForQinq,
                                     QJsonArray &errors) const
{
    const QString portId = SandboxSearch::valueAt(ref, QStringLiteral("/port/uuid")).toString();
    if (!m_estate.port(portId)) {
        errors.append(invalidArgument(path + QStringLiteral(".port.uuid"),
                                      QStringLiteral("Port does not exist or does not belong to "
                                                     "the user")));
        return false;
    }
    const QJsonObject lp = ref.value(QStringLiteral("linkProtocol")).toObject();
    if (m_estate.vlanInUse(portId, lp)) {
        const bool sTag =
            sTagForQinq && lp.value(QStringLiteral("type")).toString() == QLatin1String("QINQ");
        errors.append(fabricError(
            SandboxErrors::VlanInUse, SandboxErrors::VlanInUseMessage, m_correlationId, {},
            {{path + (sTag ? QStringLiteral(".linkProtocol.vlanSTag")
                           : QStringLiteral(".linkProtocol.vlanTag")),
              QStringLiteral("VLAN already in use on port %1").arg(portId)}}));
    }
    return true;
}

// ---- connections --------------------------------------------------------------------------

void SandboxValidator::checkAccessPoint(const QJsonObject &ap, const QString &path,
                                        QJsonArray *errors) const
{
    // The spec's AccessPoint requires nothing; which fields a type needs is the estate rules'
    // business (a COLO access point names one of your ports, an SP one a profile, ...).
    SandboxSchema s(*this, errors);
    s.string(
        ap, "type", path, false,
        SandboxSchema::list({"VD", "VG", "SP", "IGW", "COLO", "SUBNET", "CLOUD_ROUTER", "NETWORK",
                             "METAL_NETWORK", "VPIC_INTERFACE", "APP_LINK", "XF_IC"}));
    for (const char *key :
         {"port", "profile", "router", "network", "location", "virtualDevice", "interface"})
        s.object(ap, key, path, false);
    s.linkProtocol(ap, path);
    s.string(ap, "authenticationKey", path, false);
    s.string(ap, "sellerRegion", path, false);
    // SimplifiedNetwork requires its uuid.
    const QJsonObject network = ap.value(QStringLiteral("network")).toObject();
    if (ap.value(QStringLiteral("network")).isObject())
        s.string(network, "uuid", path + QStringLiteral(".network"), true);
}

QJsonArray SandboxValidator::connectionSchema(const QJsonObject &body) const
{
    QJsonArray errors;
    SandboxSchema s(*this, &errors);
    s.string(body, "type", {}, true, connectionTypes());
    s.string(body, "name", {}, true);
    s.integer(body, "bandwidth", {}, true, 0, 100000);
    s.notifications(body, {}, true);
    for (const char *side : {"aSide", "zSide"}) {
        const QJsonObject sideObj = s.object(body, side, {}, true);
        if (!body.value(L1(side)).isObject())
            continue;
        s.additionalInfo(sideObj, L1(side));
        // ConnectionSide requires neither; the rules need one of them to connect anything.
        if (sideObj.contains(QStringLiteral("accessPoint"))) {
            const QJsonObject ap = s.object(sideObj, "accessPoint", L1(side), false);
            if (sideObj.value(QStringLiteral("accessPoint")).isObject())
                checkAccessPoint(ap, L1(side) + QStringLiteral(".accessPoint"), &errors);
        }
        if (sideObj.contains(QStringLiteral("serviceToken"))) {
            const QJsonObject token = s.object(sideObj, "serviceToken", L1(side), false);
            s.string(token, "uuid", L1(side) + QStringLiteral(".serviceToken"), false);
        }
    }
    const QJsonObject redundancy = s.object(body, "redundancy", {}, false);
    if (!redundancy.isEmpty())
        s.string(redundancy, "priority", QStringLiteral("redundancy"), false,
                 SandboxSchema::list({"PRIMARY", "SECONDARY"}));
    s.object(body, "order", {}, false);
    s.object(body, "project", {}, false);
    s.additionalInfo(body, {});
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
            if (!checkColoPort(ap, apPath, true, errors))
                continue;
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
            // The metro is the access point's own or, when it gives none (the spec's
            // Vd2Sp-Primary), the other side's; unknown (a device, a Metal network) leaves the
            // metro and seller-region checks to Fabric.
            QString metroCode =
                SandboxSearch::valueAt(ap, QStringLiteral("/location/metroCode")).toString();
            if (metroCode.isEmpty())
                metroCode = sideMetro(body, QLatin1String(side) == QLatin1String("aSide")
                                                ? QStringLiteral("zSide")
                                                : QStringLiteral("aSide"));
            QJsonObject serviceMetro;
            const QJsonArray metros = profile->value(QStringLiteral("metros")).toArray();
            for (const QJsonValue &m : metros) {
                if (m.toObject().value(QStringLiteral("code")).toString() == metroCode)
                    serviceMetro = m.toObject();
            }
            if (serviceMetro.isEmpty() && !metroCode.isEmpty()) {
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
    SandboxSchema s(*this, &errors);
    s.string(body, "type", {}, true,
             SandboxSchema::list({"EVPLAN", "EPLAN", "IPWAN", "EVPTREE", "EPTREE"}));
    s.string(body, "name", {}, true);
    const QString scope =
        s.string(body, "scope", {}, true, SandboxSchema::list({"REGIONAL", "GLOBAL", "LOCAL"}));
    s.notifications(body, {}, true);
    // NetworkPostRequest requires name, notifications, scope and type only: location is
    // optional for every scope (the spec's own Create-Local-*-Network examples have none).
    const QJsonObject location = s.object(body, "location", {}, false);
    s.string(location, "metroCode", QStringLiteral("location"), false);
    s.string(location, "region", QStringLiteral("location"), false);
    Q_UNUSED(scope);
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
    // AccessPointSelector requires nothing in the spec.
    SandboxSchema s(*this, errors);
    s.string(selector, "type", path, false, SandboxSchema::list({"COLO", "VD", "NETWORK"}));
    for (const char *key : {"port", "network", "virtualDevice", "interface"})
        s.object(selector, key, path, false);
    s.linkProtocol(selector, path);
}

QJsonArray SandboxValidator::serviceTokenSchema(const QJsonObject &body) const
{
    QJsonArray errors;
    SandboxSchema s(*this, &errors);
    // The spec's ServiceToken requires no field; the types, enums and ranges are checked.
    s.string(body, "type", {}, false, SandboxSchema::list({"VC_TOKEN", "EPL_TOKEN"}));
    const QString expiry = s.string(body, "expirationDateTime", {}, false);
    if (!expiry.isEmpty() && !QDateTime::fromString(expiry, Qt::ISODate).isValid())
        s.fail(QStringLiteral("expirationDateTime"),
               QStringLiteral("must be an ISO 8601 date-time"));
    s.notifications(body, {}, false);
    const QJsonObject connection = s.object(body, "connection", {}, false);
    if (connection.isEmpty())
        return errors;
    s.string(connection, "type", QStringLiteral("connection"), false,
             SandboxSchema::list({"EVPL_VC", "EPL_VC", "EVPLAN_VC", "EPLAN_VC", "IPWAN_VC", "IP_VC",
                                  "EVPTREE_VC", "EPTREE_VC"}));
    s.integer(connection, "bandwidthLimit", QStringLiteral("connection"), false, 0, 100000);
    for (const char *side : {"aSide", "zSide"}) {
        const QString path = QStringLiteral("connection.") + L1(side);
        const QJsonObject sideObj = s.object(connection, side, QStringLiteral("connection"), false);
        const QJsonValue selectors = sideObj.value(QStringLiteral("accessPointSelectors"));
        if (selectors.isUndefined())
            continue;
        if (!selectors.isArray()) {
            s.fail(path + QStringLiteral(".accessPointSelectors"),
                   QStringLiteral("must be an array"));
            continue;
        }
        const QJsonArray list = selectors.toArray();
        for (qsizetype i = 0; i < list.size(); ++i)
            checkSelector(list.at(i).toObject(),
                          path + QStringLiteral(".accessPointSelectors[%1]").arg(i), &errors);
    }
    return errors;
}

QJsonArray SandboxValidator::serviceTokenRules(const QJsonObject &body) const
{
    QJsonArray errors;
    // A token that has expired is EXPIRED (ServiceTokenState): one cannot be created so.
    const QDateTime expiry = QDateTime::fromString(
        body.value(QStringLiteral("expirationDateTime")).toString(), Qt::ISODate);
    if (expiry.isValid() && expiry.toMSecsSinceEpoch() <= m_estate.nowMs())
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
                checkColoPort(sel, p, false, errors);
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
