#include "fabric/FabricParsing.h"

#include "core/UntrustedText.h"

#include <cmath>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QRegularExpression>
#include <QStringList>

namespace fb {

namespace {

QString stringField(const QJsonObject &o, QLatin1StringView key)
{
    const QJsonValue v = o.value(key);
    if (v.isString())
        return v.toString();
    if (v.isDouble())
        return QString::number(v.toDouble(), 'g', 15);
    return {};
}

// A field of a Fabric error as data: invisible and bidi characters escaped, at most maxChars.
QString remoteField(const QJsonObject &o, QLatin1StringView key, int maxChars)
{
    QString s = UntrustedText::escapeInvisible(stringField(o, key));
    if (s.size() > maxChars)
        s = s.left(maxChars - 1) + QChar(0x2026);
    return s;
}

// The enums of the spec's VirtualConnectionPrice (Fabric v4 OpenAPI 4.31).
const QStringList &priceConnectionTypes()
{
    static const QStringList types = {
        QStringLiteral("EVPL_VC"),     QStringLiteral("EPL_VC"),
        QStringLiteral("EC_VC"),       QStringLiteral("IP_VC"),
        QStringLiteral("VD_CHAIN_VC"), QStringLiteral("ACCESS_EPL_VC"),
        QStringLiteral("EVPLAN_VC"),   QStringLiteral("EPLAN_VC"),
        QStringLiteral("IPWAN_VC"),    QStringLiteral("EVPTREE_VC"),
        QStringLiteral("EPTREE_VC"),   QStringLiteral("IA_VC")};
    return types;
}

const QStringList &priceAccessPointTypes()
{
    static const QStringList types = {
        QStringLiteral("VD"),           QStringLiteral("SP"),         QStringLiteral("COLO"),
        QStringLiteral("CLOUD_ROUTER"), QStringLiteral("CHAINGROUP"), QStringLiteral("NETWORK"),
        QStringLiteral("METAL_NETWORK")};
    return types;
}

QJsonObject term(const QString &property, const QString &op, const QString &value)
{
    return {{QStringLiteral("property"), property},
            {QStringLiteral("operator"), op},
            {QStringLiteral("values"), QJsonArray{value}}};
}

QJsonObject objectAt(const QJsonObject &root, std::initializer_list<const char *> keys)
{
    QJsonObject cur = root;
    for (const char *k : keys)
        cur = cur.value(QLatin1StringView(k)).toObject();
    return cur;
}

// Appends the price-search terms of one side's access point (side "aSide" or "zSide", sideText
// "an A-side" or "a Z-side", idKey the object whose uuid narrows the search). Returns the reason
// the price search cannot be built, or an empty string.
QString appendAccessPointTerms(QJsonArray *terms, const QJsonObject &ap, const QString &side,
                               const QString &sideText, const char *idKey)
{
    const QString prefix = QStringLiteral("/connection/") + side + QStringLiteral("/accessPoint/");
    const QString apType = ap.value(QLatin1StringView("type")).toString();
    if (!apType.isEmpty()) {
        if (!priceAccessPointTypes().contains(apType))
            return QStringLiteral("Fabric's price search has no virtual connection product "
                                  "for %1 access point of type %2")
                .arg(sideText, apType);
        terms->append(term(prefix + QStringLiteral("type"), QStringLiteral("="), apType));
    }
    const QString metro =
        objectAt(ap, {"location"}).value(QLatin1StringView("metroCode")).toString();
    if (!metro.isEmpty())
        terms->append(
            term(prefix + QStringLiteral("location/metroCode"), QStringLiteral("="), metro));
    const QString id = objectAt(ap, {idKey}).value(QLatin1StringView("uuid")).toString();
    if (!id.isEmpty())
        terms->append(term(prefix + QLatin1StringView(idKey) + QStringLiteral("/uuid"),
                           QStringLiteral("="), id));
    return {};
}

} // namespace

std::optional<QJsonValue> parseStrictJson(const QByteArray &bytes, QString *error)
{
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &pe);
    if (pe.error != QJsonParseError::NoError || doc.isNull()) {
        if (error) {
            *error = bytes.trimmed().isEmpty() ? QStringLiteral("empty body")
                                               : QStringLiteral("invalid JSON at offset %1 (%2)")
                                                     .arg(pe.offset)
                                                     .arg(pe.errorString());
        }
        return std::nullopt;
    }
    if (doc.isArray())
        return QJsonValue(doc.array());
    return QJsonValue(doc.object());
}

std::optional<QList<FabricError>> parseFabricErrorList(const QByteArray &bytes)
{
    const auto value = parseStrictJson(bytes);
    if (!value)
        return std::nullopt;
    QJsonArray items;
    if (value->isArray())
        items = value->toArray();
    else
        items.append(*value);
    if (items.isEmpty())
        return std::nullopt;
    QList<FabricError> out;
    for (const QJsonValue &item : std::as_const(items)) {
        if (!item.isObject())
            return std::nullopt;
        const QJsonObject o = item.toObject();
        if (!o.value(QLatin1StringView("errorCode")).isString() &&
            !o.value(QLatin1StringView("errorMessage")).isString())
            return std::nullopt;
        FabricError e;
        e.errorCode = remoteField(o, QLatin1StringView("errorCode"), 100);
        e.errorMessage = remoteField(o, QLatin1StringView("errorMessage"), 1000);
        e.correlationId = remoteField(o, QLatin1StringView("correlationId"), 100);
        e.details = remoteField(o, QLatin1StringView("details"), 2000);
        const QJsonArray info = o.value(QLatin1StringView("additionalInfo")).toArray();
        for (const QJsonValue &i : info) {
            const QJsonObject io = i.toObject();
            const QString property = remoteField(io, QLatin1StringView("property"), 300);
            const QString reason = remoteField(io, QLatin1StringView("reason"), 1000);
            if ((!property.isEmpty() || !reason.isEmpty()) && e.additionalInfo.size() < 20)
                e.additionalInfo.append({property, reason});
        }
        out.append(e);
    }
    return out;
}

QString sanitizeRemoteText(const QString &text, int maxChars)
{
    QString s = UntrustedText::escapeInvisible(text.simplified());
    if (s.size() > maxChars)
        s = s.left(maxChars - 1) + QChar(0x2026);
    return s;
}

QString describeFabricErrors(const QList<FabricError> &errors)
{
    QStringList parts;
    const int shown = std::min<int>(3, int(errors.size()));
    for (int i = 0; i < shown; ++i) {
        const FabricError &e = errors.at(i);
        QString s = sanitizeRemoteText(e.errorCode, 40);
        const QString msg = sanitizeRemoteText(e.errorMessage);
        if (!msg.isEmpty())
            s += (s.isEmpty() ? QString() : QStringLiteral(" ")) + msg;
        const QString details = sanitizeRemoteText(e.details);
        if (!details.isEmpty() && details != msg)
            s += QStringLiteral(": ") + details;
        QStringList where;
        for (const auto &[property, reason] : e.additionalInfo) {
            const QString p = sanitizeRemoteText(property, 120);
            const QString r = sanitizeRemoteText(reason, 200);
            if (!p.isEmpty() && (r.isEmpty() || r == msg || r == details))
                where.append(p);
            else if (!p.isEmpty())
                where.append(p + QStringLiteral(": ") + r);
            else if (!r.isEmpty() && r != msg && r != details)
                where.append(r);
        }
        if (!where.isEmpty())
            s += QStringLiteral(" (at ") + where.join(QStringLiteral(", ")) + u')';
        parts.append(s.trimmed());
    }
    QString out = parts.join(QStringLiteral("; "));
    if (errors.size() > shown)
        out += QStringLiteral("; and %1 more").arg(errors.size() - shown);
    return out;
}

std::optional<QString> describeOAuthError(const QByteArray &bytes)
{
    const auto value = parseStrictJson(bytes);
    if (!value || !value->isObject())
        return std::nullopt;
    const QJsonObject o = value->toObject();
    const QString code = sanitizeRemoteText(stringField(o, QLatin1StringView("error_code")), 60);
    const QString title = sanitizeRemoteText(stringField(o, QLatin1StringView("error_title")));
    const QString message = sanitizeRemoteText(stringField(o, QLatin1StringView("error_message")));
    const QString developer =
        sanitizeRemoteText(stringField(o, QLatin1StringView("developer_message")));
    if (code.isEmpty() && title.isEmpty() && message.isEmpty() && developer.isEmpty())
        return std::nullopt;
    QStringList parts;
    if (!title.isEmpty())
        parts.append(title);
    if (!message.isEmpty() && message != title)
        parts.append(message);
    if (!developer.isEmpty() && developer != message && developer != title)
        parts.append(developer);
    QString s = parts.join(QStringLiteral(": "));
    if (!code.isEmpty())
        s += (s.isEmpty() ? QStringLiteral("error code ") : QStringLiteral(" (error code ")) +
             code + (s.isEmpty() ? QString() : QStringLiteral(")"));
    return s;
}

QString unpricedSummary(const CompiledRequest &request)
{
    switch (request.changeType) {
    case ChangeType::NetworkCreate:
        return QStringLiteral("networks have no rate-card price");
    case ChangeType::ServiceTokenCreate:
        return QStringLiteral("service tokens have no rate-card price");
    case ChangeType::ConnectionCreate:
        break;
    }
    const QJsonObject body = QJsonDocument::fromJson(request.body).object();
    const QJsonValue bw = body.value(QLatin1StringView("bandwidth"));
    // Metro codes are two capital letters; anything else from the request is not repeated.
    const auto metroOf = [&](const char *side) {
        const QString m = objectAt(body, {side, "accessPoint", "location"})
                              .value(QLatin1StringView("metroCode"))
                              .toString();
        const bool code = m.size() == 2 && m.at(0).isUpper() && m.at(1).isUpper() &&
                          m.at(0).unicode() < 128 && m.at(1).unicode() < 128;
        return code ? m : QString();
    };
    const QString a = metroOf("aSide");
    const QString z = metroOf("zSide");
    QString where;
    if (!a.isEmpty() && !z.isEmpty() && a != z)
        where = QStringLiteral(" from %1 to %2").arg(a, z);
    else if (!a.isEmpty() || !z.isEmpty())
        where = QStringLiteral(" in %1").arg(a.isEmpty() ? z : a);
    QString what;
    if (bw.isDouble() && bw.toDouble() > 0 && bw.toDouble() <= 1e6 &&
        bw.toDouble() == std::floor(bw.toDouble()))
        what = QStringLiteral(" for %1 Mbps").arg(qint64(bw.toDouble()));
    return QStringLiteral("no rate-card price") + what + where;
}

std::optional<QJsonObject> buildPriceSearch(const CompiledRequest &request, QString *unpricedReason,
                                            QString *unpricedShort)
{
    auto fail = [&](const QString &reason) -> std::optional<QJsonObject> {
        if (unpricedReason)
            *unpricedReason = reason;
        if (unpricedShort)
            *unpricedShort = unpricedSummary(request);
        return std::nullopt;
    };
    switch (request.changeType) {
    case ChangeType::NetworkCreate:
        return fail(QStringLiteral(
            "Fabric has no price product for networks: the price search of the Fabric v4 API "
            "only covers virtual connections, IP blocks, virtual ports, cloud routers, precision "
            "time and optical connect, so there is no rate-card price to show; connections "
            "attached to the network are priced on their own"));
    case ChangeType::ServiceTokenCreate:
        return fail(QStringLiteral(
            "Fabric has no price product for service tokens: the price search of the Fabric v4 "
            "API has no product type for them, so there is no rate-card price to show; the "
            "connection created by redeeming the token is priced on its own"));
    case ChangeType::ConnectionCreate:
        break;
    }
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(request.body, &pe);
    if (pe.error != QJsonParseError::NoError || !doc.isObject())
        return fail(QStringLiteral("the compiled connection body is not a JSON object"));
    const QJsonObject body = doc.object();

    const QString type = body.value(QLatin1StringView("type")).toString();
    if (type.isEmpty())
        return fail(QStringLiteral("the connection has no type, which the price search needs"));
    if (!priceConnectionTypes().contains(type))
        return fail(QStringLiteral("Fabric's price search has no virtual connection product for "
                                   "connection type %1")
                        .arg(type));
    const QJsonValue bw = body.value(QLatin1StringView("bandwidth"));
    // Whole Mbps within what Fabric sells (the spec allows up to 100 Gbps); anything else is not
    // a bandwidth the rate card can price, and must not reach an integer conversion.
    if (!bw.isDouble() || bw.toDouble() <= 0 || bw.toDouble() > 1e6 ||
        bw.toDouble() != std::floor(bw.toDouble()))
        return fail(QStringLiteral("the connection has no whole-Mbps bandwidth within Fabric's "
                                   "range, which the price search needs"));

    QJsonArray terms;
    terms.append(term(QStringLiteral("/type"), QStringLiteral("="),
                      QStringLiteral("VIRTUAL_CONNECTION_PRODUCT")));
    terms.append(term(QStringLiteral("/connection/type"), QStringLiteral("="), type));
    terms.append(term(QStringLiteral("/connection/bandwidth"), QStringLiteral("IN"),
                      QString::number(qint64(bw.toDouble()))));

    const QString aRefusal =
        appendAccessPointTerms(&terms, objectAt(body, {"aSide", "accessPoint"}),
                               QStringLiteral("aSide"), QStringLiteral("an A-side"), "port");
    if (!aRefusal.isEmpty())
        return fail(aRefusal);
    const QString zRefusal =
        appendAccessPointTerms(&terms, objectAt(body, {"zSide", "accessPoint"}),
                               QStringLiteral("zSide"), QStringLiteral("a Z-side"), "profile");
    if (!zRefusal.isEmpty())
        return fail(zRefusal);

    return QJsonObject{{QStringLiteral("filter"), QJsonObject{{QStringLiteral("and"), terms}}}};
}

QJsonObject unpricedContext(const QString &reason, const QString &summary)
{
    QJsonObject out{{QStringLiteral("priced"), false}, {QStringLiteral("reason"), reason}};
    if (!summary.isEmpty())
        out.insert(QStringLiteral("summary"), summary);
    return out;
}

QJsonObject priceContextFromResponse(const QJsonValue &response)
{
    const QJsonArray data = response.toObject().value(QLatin1StringView("data")).toArray();
    if (data.isEmpty())
        return unpricedContext(QStringLiteral(
            "Fabric's rate card returned no price for this connection (type, bandwidth and "
            "access points as compiled)"));
    const QJsonObject price = data.first().toObject();
    const QJsonArray charges = price.value(QLatin1StringView("charges")).toArray();
    double monthly = 0;
    double once = 0;
    bool any = false;
    QJsonArray outCharges;
    for (const QJsonValue &c : charges) {
        const QJsonObject co = c.toObject();
        const QString chargeType = co.value(QLatin1StringView("type")).toString();
        const QJsonValue amount = co.value(QLatin1StringView("price"));
        if (!amount.isDouble())
            continue;
        if (chargeType == QLatin1StringView("MONTHLY_RECURRING"))
            monthly += amount.toDouble();
        else if (chargeType == QLatin1StringView("NON_RECURRING"))
            once += amount.toDouble();
        else
            continue;
        any = true;
        outCharges.append(QJsonObject{{QStringLiteral("type"), chargeType},
                                      {QStringLiteral("price"), amount.toDouble()}});
    }
    if (!any)
        return unpricedContext(
            QStringLiteral("Fabric's rate card entry for this connection carries no charges"));
    // A currency is shown to the person next to every amount: only an ISO 4217 code is.
    const QString currency = price.value(QLatin1StringView("currency")).toString();
    static const QRegularExpression isoCurrency(QStringLiteral("^[A-Z]{3}$"));
    if (!isoCurrency.match(currency).hasMatch())
        return unpricedContext(
            QStringLiteral("Fabric's rate card gave the currency \"%1\", not a three-letter "
                           "ISO 4217 code, so its amounts are not shown")
                .arg(UntrustedText::escapeInvisible(UntrustedText::bounded(currency, 16))),
            QStringLiteral("the rate card's currency is not an ISO 4217 code"));
    const QJsonValue termLength = price.value(QLatin1StringView("termLength"));
    QJsonObject out{
        {QStringLiteral("priced"), true},
        {QStringLiteral("source"),
         QStringLiteral("rate card via POST /fabric/v4/prices/search (context, not a quote)")},
        {QStringLiteral("currency"), currency},
        {QStringLiteral("monthly_recurring"), monthly},
        {QStringLiteral("non_recurring"), once},
        // The spec: "In months. No value or value of 1 means on-demand".
        {QStringLiteral("term_length_months"), termLength.isDouble() ? termLength.toInt() : 1},
        {QStringLiteral("product_code"), price.value(QLatin1StringView("code")).toString()},
        {QStringLiteral("charges"), outCharges}};
    const QString name = price.value(QLatin1StringView("name")).toString();
    if (!name.isEmpty())
        out.insert(QStringLiteral("product_name"), name);
    if (data.size() > 1)
        out.insert(QStringLiteral("matching_prices"), int(data.size()));
    return out;
}

} // namespace fb
