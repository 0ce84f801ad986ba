// SandboxApi::searchPrices: POST /fabric/v4/prices/search against the sandbox's rate card.
#include "sandbox/SandboxApi.h"

#include "sandbox/SandboxIds.h"
#include "sandbox/SandboxSearch.h"

#include <QHash>
#include <QJsonArray>

namespace fb {

using namespace Qt::StringLiterals;

namespace {
} // namespace

SandboxReply SandboxApi::searchPrices(const QJsonObject &body, const QString &cid)
{
    const auto priceError = [&](QLatin1String code, QLatin1String message, const QString &property,
                                const QString &reason) {
        return SandboxReply::errors(
            400, QJsonArray{fabricError(code, message, cid, {}, {{property, reason}})});
    };
    const QJsonValue filter = body.value(u"filter"_s);
    const QString problem = SandboxSearch::validateFilter(filter, u"filter"_s);
    if (!problem.isEmpty() || !filter.isObject())
        return priceError(SandboxErrors::PriceValidation, SandboxErrors::PriceValidationMessage,
                          problem.isEmpty() ? u"filter"_s : problem.section(QLatin1Char('|'), 0, 0),
                          problem.isEmpty() ? u"is required"_s
                                            : problem.section(QLatin1Char('|'), 1));
    // A top-level "or" holds alternatives (the spec's OfflineEvplVc example); each is an "and"
    // of terms (or one term), flattened into property -> values. Alternatives without /type
    // (e.g. by /connection/uuid) price nothing here; at least one must name a product type.
    QJsonArray alternatives = filter.toObject().value(u"or"_s).toArray();
    if (alternatives.isEmpty())
        alternatives.append(filter);
    QList<QHash<QString, QStringList>> wanted;
    for (const QJsonValue &alt : std::as_const(alternatives)) {
        QHash<QString, QStringList> want;
        QJsonArray terms = alt.toObject().value(u"and"_s).toArray();
        if (terms.isEmpty())
            terms.append(alt);
        for (const QJsonValue &t : std::as_const(terms)) {
            const QJsonObject term = t.toObject();
            QStringList values;
            const QJsonArray vs = term.value(u"values"_s).toArray();
            for (const QJsonValue &v : vs)
                values << (v.isDouble() ? QString::number(v.toInt()) : v.toString());
            want.insert(term.value(u"property"_s).toString(), values);
        }
        if (!want.value(u"/type"_s).isEmpty())
            wanted.append(want);
    }
    if (wanted.isEmpty())
        return priceError(SandboxErrors::PriceValidation, SandboxErrors::PriceValidationMessage,
                          u"/type"_s, u"is required"_s);
    QJsonArray data;
    for (const QHash<QString, QStringList> &want : std::as_const(wanted)) {
        const QStringList productTypes = want.value(u"/type"_s);
        if (productTypes.contains(u"VIRTUAL_CONNECTION_PRODUCT"_s)) {
            const QString connType = want.value(u"/connection/type"_s, {u"EVPL_VC"_s}).value(0);
            QString aMetro =
                want.value(u"/connection/aSide/accessPoint/location/metroCode"_s).value(0);
            const QString aPort = want.value(u"/connection/aSide/accessPoint/port/uuid"_s).value(0);
            if (aMetro.isEmpty() && !aPort.isEmpty()) {
                const QJsonObject *p = m_estate->port(aPort);
                if (!p)
                    return priceError(
                        SandboxErrors::PriceInvalidValue, SandboxErrors::PriceInvalidValueMessage,
                        u"/connection/aSide/accessPoint/port/uuid"_s, u"Unknown port"_s);
                aMetro = SandboxSearch::valueAt(*p, u"/location/metroCode"_s).toString();
            }
            const QString zMetro =
                want.value(u"/connection/zSide/accessPoint/location/metroCode"_s).value(0);
            const QString aType =
                want.value(u"/connection/aSide/accessPoint/type"_s, {u"COLO"_s}).value(0);
            const QString zType =
                want.value(u"/connection/zSide/accessPoint/type"_s, {u"COLO"_s}).value(0);
            const QString zProfile =
                want.value(u"/connection/zSide/accessPoint/profile/uuid"_s).value(0);
            const QString buyout =
                want.value(u"/connection/aSide/accessPoint/port/settings/buyout"_s).value(0);
            const int term = want.value(u"/termLength"_s, {u"1"_s}).value(0).toInt();
            if (term != 1 && term != 12 && term != 24 && term != 36)
                return priceError(SandboxErrors::PriceInvalidValue,
                                  SandboxErrors::PriceInvalidValueMessage, u"/termLength"_s,
                                  u"must be 1, 12, 24 or 36"_s);
            const bool remote = !aMetro.isEmpty() && !zMetro.isEmpty() && aMetro != zMetro;
            const double termFactor =
                term >= 36 ? 0.8 : (term >= 24 ? 0.85 : (term >= 12 ? 0.9 : 1.0));
            QList<int> bandwidths;
            const QStringList requested = want.value(u"/connection/bandwidth"_s);
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
                    return priceError(
                        SandboxErrors::PriceInvalidValue, SandboxErrors::PriceInvalidValueMessage,
                        u"/connection/bandwidth"_s, u"No rate for bandwidth %1"_s.arg(bw));
                QJsonObject aAp{{u"type"_s, aType}};
                if (!aMetro.isEmpty())
                    aAp.insert(u"location"_s, QJsonObject{{u"metroCode"_s, aMetro}});
                if (!buyout.isEmpty())
                    aAp.insert(u"port"_s,
                               QJsonObject{{u"settings"_s,
                                            QJsonObject{{u"buyout"_s, buyout == "true"_L1}}}});
                if (!aPort.isEmpty()) {
                    QJsonObject port = aAp.value(u"port"_s).toObject();
                    port.insert(u"uuid"_s, aPort);
                    aAp.insert(u"port"_s, port);
                }
                QJsonObject zAp{{u"type"_s, zType}};
                if (!zMetro.isEmpty())
                    zAp.insert(u"location"_s, QJsonObject{{u"metroCode"_s, zMetro}});
                if (!zProfile.isEmpty())
                    zAp.insert(u"profile"_s, QJsonObject{{u"uuid"_s, zProfile}});
                const double monthly = rate->monthlyUsd *
                                       (remote ? SandboxEstate::remoteMultiplier() : 1.0) *
                                       termFactor;
                data.append(QJsonObject{
                    {u"type"_s, "VIRTUAL_CONNECTION_PRODUCT"_L1},
                    {u"code"_s, "ECX00015.PROD"_L1},
                    {u"name"_s, "Equinix Fabric Virtual Connection Product"_L1},
                    {u"description"_s, "Equinix Fabric Virtual Connection"_L1},
                    {u"account"_s, QJsonObject{{u"accountNumber"_s, SandboxIds::AccountNumber}}},
                    {u"charges"_s,
                     QJsonArray{
                         QJsonObject{{u"type"_s, "MONTHLY_RECURRING"_L1}, {u"price"_s, monthly}},
                         QJsonObject{{u"type"_s, "NON_RECURRING"_L1}, {u"price"_s, 0.0}}}},
                    {u"currency"_s, "USD"_L1},
                    {u"termLength"_s, term},
                    {u"catgory"_s, "CUSTOMER"_L1},
                    {u"connection"_s,
                     QJsonObject{{u"type"_s, connType},
                                 {u"bandwidth"_s, bw},
                                 {u"aSide"_s, QJsonObject{{u"accessPoint"_s, aAp}}},
                                 {u"zSide"_s, QJsonObject{{u"accessPoint"_s, zAp}}}}}});
            }
        }
    }
    SandboxSearch::Page page;
    page.limit = std::max<int>(20, int(data.size()));
    QJsonObject out = SandboxSearch::pageOf(data, page, u"/fabric/v4/prices/search"_s);
    return SandboxReply::json(200, out);
}

} // namespace fb
