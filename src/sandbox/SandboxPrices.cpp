// SandboxApi::searchPrices: POST /fabric/v4/prices/search against the sandbox's rate card.
#include "sandbox/SandboxApi.h"

#include "sandbox/SandboxIds.h"
#include "sandbox/SandboxSearch.h"

#include <QHash>
#include <QJsonArray>

namespace fb {

namespace {
using L1 = QLatin1String;
} // namespace

SandboxReply SandboxApi::searchPrices(const QJsonObject &body, const QString &cid)
{
    const auto priceError = [&](QLatin1String code, QLatin1String message, const QString &property,
                                const QString &reason) {
        return SandboxReply::errors(
            400, QJsonArray{fabricError(code, message, cid, {}, {{property, reason}})});
    };
    const QJsonValue filter = body.value(QStringLiteral("filter"));
    const QString problem = SandboxSearch::validateFilter(filter, QStringLiteral("filter"));
    if (!problem.isEmpty() || !filter.isObject())
        return priceError(SandboxErrors::PriceValidation, SandboxErrors::PriceValidationMessage,
                          problem.isEmpty() ? QStringLiteral("filter")
                                            : problem.section(QLatin1Char('|'), 0, 0),
                          problem.isEmpty() ? QStringLiteral("is required")
                                            : problem.section(QLatin1Char('|'), 1));
    // A top-level "or" holds alternatives (the spec's OfflineEvplVc example); each is an "and"
    // of terms (or one term), flattened into property -> values. Alternatives without /type
    // (e.g. by /connection/uuid) price nothing here; at least one must name a product type.
    QJsonArray alternatives = filter.toObject().value(QStringLiteral("or")).toArray();
    if (alternatives.isEmpty())
        alternatives.append(filter);
    QList<QHash<QString, QStringList>> wanted;
    for (const QJsonValue &alt : std::as_const(alternatives)) {
        QHash<QString, QStringList> want;
        QJsonArray terms = alt.toObject().value(QStringLiteral("and")).toArray();
        if (terms.isEmpty())
            terms.append(alt);
        for (const QJsonValue &t : std::as_const(terms)) {
            const QJsonObject term = t.toObject();
            QStringList values;
            const QJsonArray vs = term.value(QStringLiteral("values")).toArray();
            for (const QJsonValue &v : vs)
                values << (v.isDouble() ? QString::number(v.toInt()) : v.toString());
            want.insert(term.value(QStringLiteral("property")).toString(), values);
        }
        if (!want.value(QStringLiteral("/type")).isEmpty())
            wanted.append(want);
    }
    if (wanted.isEmpty())
        return priceError(SandboxErrors::PriceValidation, SandboxErrors::PriceValidationMessage,
                          QStringLiteral("/type"), QStringLiteral("is required"));
    QJsonArray data;
    for (const QHash<QString, QStringList> &want : std::as_const(wanted)) {
        const QStringList productTypes = want.value(QStringLiteral("/type"));
        if (productTypes.contains(QStringLiteral("VIRTUAL_CONNECTION_PRODUCT"))) {
            const QString connType =
                want.value(QStringLiteral("/connection/type"), {QStringLiteral("EVPL_VC")})
                    .value(0);
            QString aMetro =
                want.value(QStringLiteral("/connection/aSide/accessPoint/location/metroCode"))
                    .value(0);
            const QString aPort =
                want.value(QStringLiteral("/connection/aSide/accessPoint/port/uuid")).value(0);
            if (aMetro.isEmpty() && !aPort.isEmpty()) {
                const QJsonObject *p = m_estate->port(aPort);
                if (!p)
                    return priceError(SandboxErrors::PriceInvalidValue,
                                      SandboxErrors::PriceInvalidValueMessage,
                                      QStringLiteral("/connection/aSide/accessPoint/port/uuid"),
                                      QStringLiteral("Unknown port"));
                aMetro =
                    SandboxSearch::valueAt(*p, QStringLiteral("/location/metroCode")).toString();
            }
            const QString zMetro =
                want.value(QStringLiteral("/connection/zSide/accessPoint/location/metroCode"))
                    .value(0);
            const QString aType = want.value(QStringLiteral("/connection/aSide/accessPoint/type"),
                                             {QStringLiteral("COLO")})
                                      .value(0);
            const QString zType = want.value(QStringLiteral("/connection/zSide/accessPoint/type"),
                                             {QStringLiteral("COLO")})
                                      .value(0);
            const QString zProfile =
                want.value(QStringLiteral("/connection/zSide/accessPoint/profile/uuid")).value(0);
            const QString buyout =
                want.value(QStringLiteral("/connection/aSide/accessPoint/port/settings/buyout"))
                    .value(0);
            const int term =
                want.value(QStringLiteral("/termLength"), {QStringLiteral("1")}).value(0).toInt();
            if (term != 1 && term != 12 && term != 24 && term != 36)
                return priceError(
                    SandboxErrors::PriceInvalidValue, SandboxErrors::PriceInvalidValueMessage,
                    QStringLiteral("/termLength"), QStringLiteral("must be 1, 12, 24 or 36"));
            const bool remote = !aMetro.isEmpty() && !zMetro.isEmpty() && aMetro != zMetro;
            const double termFactor =
                term >= 36 ? 0.8 : (term >= 24 ? 0.85 : (term >= 12 ? 0.9 : 1.0));
            QList<int> bandwidths;
            const QStringList requested = want.value(QStringLiteral("/connection/bandwidth"));
            for (const QString &b : requested)
                bandwidths << b.toInt();
            if (bandwidths.isEmpty()) {
                for (const SandboxRate &r : m_estate->rateCard())
                    bandwidths << r.bandwidthMbps;
            }
            for (int bw : bandwidths) {
                const auto rate =
                    std::find_if(m_estate->rateCard().begin(), m_estate->rateCard().end(),
                                 [&](const SandboxRate &r) { return r.bandwidthMbps == bw; });
                if (rate == m_estate->rateCard().end())
                    return priceError(SandboxErrors::PriceInvalidValue,
                                      SandboxErrors::PriceInvalidValueMessage,
                                      QStringLiteral("/connection/bandwidth"),
                                      QStringLiteral("No rate for bandwidth %1").arg(bw));
                QJsonObject aAp{{QStringLiteral("type"), aType}};
                if (!aMetro.isEmpty())
                    aAp.insert(QStringLiteral("location"),
                               QJsonObject{{QStringLiteral("metroCode"), aMetro}});
                if (!buyout.isEmpty())
                    aAp.insert(QStringLiteral("port"),
                               QJsonObject{{QStringLiteral("settings"),
                                            QJsonObject{{QStringLiteral("buyout"),
                                                         buyout == QLatin1String("true")}}}});
                if (!aPort.isEmpty()) {
                    QJsonObject port = aAp.value(QStringLiteral("port")).toObject();
                    port.insert(QStringLiteral("uuid"), aPort);
                    aAp.insert(QStringLiteral("port"), port);
                }
                QJsonObject zAp{{QStringLiteral("type"), zType}};
                if (!zMetro.isEmpty())
                    zAp.insert(QStringLiteral("location"),
                               QJsonObject{{QStringLiteral("metroCode"), zMetro}});
                if (!zProfile.isEmpty())
                    zAp.insert(QStringLiteral("profile"),
                               QJsonObject{{QStringLiteral("uuid"), zProfile}});
                const double monthly = rate->monthlyUsd *
                                       (remote ? SandboxEstate::remoteMultiplier() : 1.0) *
                                       termFactor;
                data.append(QJsonObject{
                    {QStringLiteral("type"), L1("VIRTUAL_CONNECTION_PRODUCT")},
                    {QStringLiteral("code"), L1("ECX00015.PROD")},
                    {QStringLiteral("name"), L1("Equinix Fabric Virtual Connection Product")},
                    {QStringLiteral("description"), L1("Equinix Fabric Virtual Connection")},
                    {QStringLiteral("account"),
                     QJsonObject{{QStringLiteral("accountNumber"), SandboxIds::AccountNumber}}},
                    {QStringLiteral("charges"),
                     QJsonArray{QJsonObject{{QStringLiteral("type"), L1("MONTHLY_RECURRING")},
                                            {QStringLiteral("price"), monthly}},
                                QJsonObject{{QStringLiteral("type"), L1("NON_RECURRING")},
                                            {QStringLiteral("price"), 0.0}}}},
                    {QStringLiteral("currency"), L1("USD")},
                    {QStringLiteral("termLength"), term},
                    {QStringLiteral("catgory"), L1("CUSTOMER")},
                    {QStringLiteral("connection"),
                     QJsonObject{{QStringLiteral("type"), connType},
                                 {QStringLiteral("bandwidth"), bw},
                                 {QStringLiteral("aSide"),
                                  QJsonObject{{QStringLiteral("accessPoint"), aAp}}},
                                 {QStringLiteral("zSide"),
                                  QJsonObject{{QStringLiteral("accessPoint"), zAp}}}}}});
            }
        }
    }
    SandboxSearch::Page page;
    page.limit = std::max<int>(20, int(data.size()));
    QJsonObject out = SandboxSearch::pageOf(data, page, QStringLiteral("/fabric/v4/prices/search"));
    return SandboxReply::json(200, out);
}

} // namespace fb
