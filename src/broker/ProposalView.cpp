#include "broker/ProposalView.h"

#include "broker/PolicyGate.h"

#include "core/CanonicalJson.h"
#include "core/ChangeSpec.h"
#include "core/UntrustedText.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <functional>

namespace fb::ProposalView {

QList<QPair<QString, QString>> flatten(const QJsonValue &value, const QString &prefix)
{
    QList<QPair<QString, QString>> out;
    if (value.isObject()) {
        const QJsonObject obj = value.toObject();
        QStringList keys = obj.keys();
        keys.sort();
        for (const QString &k : keys)
            out += flatten(obj.value(k), prefix.isEmpty() ? k : prefix + u'.' + k);
        if (obj.isEmpty())
            out.append({prefix, QStringLiteral("{}")});
    } else if (value.isArray()) {
        const QJsonArray arr = value.toArray();
        for (qsizetype i = 0; i < arr.size(); ++i)
            out += flatten(arr.at(i), QStringLiteral("%1[%2]").arg(prefix).arg(i));
        if (arr.isEmpty())
            out.append({prefix, QStringLiteral("[]")});
    } else if (value.isString()) {
        out.append({prefix, value.toString()});
    } else if (value.isBool()) {
        out.append({prefix, value.toBool() ? QStringLiteral("true") : QStringLiteral("false")});
    } else if (value.isDouble()) {
        out.append({prefix, QString::number(value.toDouble(), 'g', 17)});
    } else {
        out.append({prefix, QStringLiteral("null")});
    }
    return out;
}

QString formatDuration(qint64 ms)
{
    const qint64 s = std::max<qint64>(0, (ms + 999) / 1000);
    if (s < 60)
        return QStringLiteral("%1s").arg(s);
    return QStringLiteral("%1m %2s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

QString isoTime(qint64 msSinceEpoch)
{
    return QDateTime::fromMSecsSinceEpoch(msSinceEpoch, Qt::UTC).toString(Qt::ISODateWithMs);
}

QString priceLine(const QJsonObject &price)
{
    if (!price.value(QStringLiteral("priced")).toBool()) {
        // One short line in human words; the details (the raw Fabric error) stay in "reason",
        // which the dialog's details, the propose result and the audit record carry.
        QString summary = price.value(QStringLiteral("summary")).toString().simplified();
        if (summary.isEmpty() || summary.size() > 120)
            summary = QStringLiteral("no rate-card price");
        return QStringLiteral("unpriced: ") + summary;
    }
    const QString currency = price.value(QStringLiteral("currency")).toString();
    const double mrc = price.value(QStringLiteral("monthly_recurring")).toDouble();
    const double nrc = price.value(QStringLiteral("non_recurring")).toDouble();
    QString line = QStringLiteral("rate card: %1 %2/month + %1 %3 one-time")
                       .arg(currency)
                       .arg(mrc, 0, 'f', 2)
                       .arg(nrc, 0, 'f', 2);
    QStringList extra;
    if (price.contains(QStringLiteral("term_length_months")))
        extra << QStringLiteral("term %1 month(s)")
                     .arg(price.value(QStringLiteral("term_length_months")).toInt());
    if (!price.value(QStringLiteral("product_code")).toString().isEmpty())
        extra << QStringLiteral("product ") +
                     price.value(QStringLiteral("product_code")).toString();
    if (!extra.isEmpty())
        line += QStringLiteral(" (") + extra.join(QStringLiteral(", ")) + u')';
    return line + QStringLiteral(" - context, not a quote");
}

QString displayValue(const QString &value)
{
    return UntrustedText::escapeForMessage(value);
}

QString plainValue(const QString &value)
{
    return UntrustedText::escapeInvisible(value);
}

QString shortUuid(const QString &uuid)
{
    // First 8 and last 4 hex digits: short, and still distinct for sequential ids.
    const QString shortened =
        uuid.size() > 12 ? uuid.left(8) + QChar(0x2026) + uuid.right(4) : uuid;
    return u'[' + displayValue(shortened) + u']';
}

QString approvalText(const Proposal &proposal, const CompiledRequest &request, qint64 nowMs)
{
    QStringList lines;
    lines << QStringLiteral("Approve a billable Equinix Fabric create?");
    lines << QString();
    lines << QStringLiteral("Change type: ") + changeTypeName(proposal.changeType);
    // Built by target() from identifiers and Fabric's names, every part already escaped.
    lines << QStringLiteral("Target: ") + proposal.target;
    lines << QStringLiteral("Price: ") +
                 displayValue(
                     priceLine(proposal.context.value(QStringLiteral("price")).toObject()));
    if (const QString policy =
            policyLine(proposal.context.value(QStringLiteral("policy")).toObject());
        !policy.isEmpty())
        lines << QStringLiteral("Policy: ") + displayValue(policy);
    lines << QStringLiteral("Proposed: %1 ago (at %2)")
                 .arg(formatDuration(nowMs - proposal.proposedAtMs),
                      isoTime(proposal.proposedAtMs));
    lines << QStringLiteral("Expires: in %1 (at %2)")
                 .arg(formatDuration(proposal.expiresAtMs - nowMs), isoTime(proposal.expiresAtMs));
    const QJsonObject client = proposal.context.value(QStringLiteral("client")).toObject();
    if (!client.isEmpty())
        lines << QStringLiteral("Proposed by: %1 %2 (session %3)")
                     .arg(displayValue(client.value(QStringLiteral("name")).toString()),
                          displayValue(client.value(QStringLiteral("version")).toString()),
                          displayValue(
                              client.value(QStringLiteral("sessionId")).toVariant().toString()));
    if (!proposal.fabricEndpoint.isEmpty())
        lines << QStringLiteral("Fabric account: %1 with %2")
                     .arg(displayValue(proposal.fabricEndpoint),
                          displayValue(proposal.credentialIdentity));
    lines << QStringLiteral("Request SHA-256: ") + proposal.requestSha256;
    lines << QString();
    lines << QStringLiteral("%1 %2 (validated by Fabric's dry run; values as the agent wrote "
                            "them):")
                 .arg(QString::fromLatin1(request.method), displayValue(request.path));
    // Paths are the broker's (schema-validated keys, [i] indexes); values are the agent's.
    for (const auto &[path, value] : flatten(QJsonDocument::fromJson(request.body).object()))
        lines << QStringLiteral("  %1 = %2").arg(plainValue(path), displayValue(value));
    return lines.join(u'\n');
}

namespace {

QString str(const QJsonObject &o, QStringView key)
{
    return o.value(key).toString();
}

QJsonObject sub(const QJsonObject &o, QStringView key)
{
    return o.value(key).toObject();
}

QString orUnknown(const QString &s)
{
    return s.isEmpty() ? QStringLiteral("?") : displayValue(s);
}

// Fabric's names are a seller's or account's words: at most kMaxNameCodePoints of them.
constexpr qsizetype kMaxNameCodePoints = 100;

QString quotedName(const QString &name)
{
    QString escaped = displayValue(UntrustedText::bounded(name, kMaxNameCodePoints));
    escaped.replace(u'"', QStringLiteral("\\u0022"));
    return u'"' + escaped + u'"';
}

// 'port "SV-1" [5f2d0e3a…0001]' when Fabric named the same uuid; 'port <uuid> (no name from
// Fabric)' otherwise. `requested` is the request's object, `fabric` the dry run's.
QString entity(const QString &kind, const QJsonObject &requested, const QJsonObject &fabric,
               const QHash<QString, QString> &names)
{
    const QString uuid = str(requested, u"uuid");
    if (uuid.isEmpty())
        return kind + QStringLiteral(" ?");
    // A catalog lookup of the uuid first, then the dry run's answer for the same uuid.
    QString name = names.value(uuid);
    if (name.isEmpty() && str(fabric, u"uuid") == uuid) {
        name = str(fabric, u"name");
        if (name.isEmpty())
            name = str(fabric, u"portName");
    }
    if (name.isEmpty())
        return kind + u' ' + displayValue(uuid) + QStringLiteral(" (no name from Fabric)");
    return kind + u' ' + quotedName(name) + u' ' + shortUuid(uuid);
}

QString metroOf(const QJsonObject &requested, const QJsonObject &fabric)
{
    QString metro = str(sub(fabric, u"location"), u"metroCode");
    if (metro.isEmpty())
        metro = str(sub(requested, u"location"), u"metroCode");
    return metro.isEmpty() ? QString() : QStringLiteral(" (") + displayValue(metro) + u')';
}

QString connectionSide(const QJsonObject &req, const QJsonObject &val,
                       const QHash<QString, QString> &names,
                       const QHash<QString, QString> &providers)
{
    if (req.contains(u"serviceToken"))
        return entity(QStringLiteral("service token"), sub(req, u"serviceToken"),
                      sub(val, u"serviceToken"), names);
    const QJsonObject ap = sub(req, u"accessPoint");
    const QJsonObject vap = sub(val, u"accessPoint");
    const QString type = str(ap, u"type");
    if (type == u"COLO")
        return entity(QStringLiteral("port"), sub(ap, u"port"), sub(vap, u"port"), names) +
               metroOf(ap, vap);
    if (type == u"SP") {
        QString text = entity(QStringLiteral("service profile"), sub(ap, u"profile"),
                              sub(vap, u"profile"), names);
        // Who provides the service: the catalog's account of the profile, not the seller's
        // own marketing name.
        if (const QString org = providers.value(str(sub(ap, u"profile"), u"uuid")); !org.isEmpty())
            text += QStringLiteral(" (provider ") + quotedName(org) + u')';
        const QString region = str(ap, u"sellerRegion");
        if (region.isEmpty())
            return text + metroOf(ap, vap);
        return text + u' ' + displayValue(region);
    }
    if (type == u"NETWORK") {
        QString text =
            entity(QStringLiteral("network"), sub(ap, u"network"), sub(vap, u"network"), names);
        if (ap.contains(u"role"))
            text += QStringLiteral(" as ") + orUnknown(str(ap, u"role"));
        return text;
    }
    if (type == u"VD")
        return entity(QStringLiteral("virtual device"), sub(ap, u"virtualDevice"),
                      sub(vap, u"virtualDevice"), names);
    return orUnknown(type);
}

QString bandwidth(const QJsonValue &v)
{
    return v.isDouble() ? ChangeSpec::bandwidthText(v.toDouble()) : QStringLiteral("? Mbps");
}

QString selector(const QJsonObject &sel, const QJsonObject &val,
                 const QHash<QString, QString> &names)
{
    const QString type = str(sel, u"type");
    if (type == u"COLO") {
        QString text = entity(QStringLiteral("port"), sub(sel, u"port"), sub(val, u"port"), names);
        const QJsonObject lp = sub(sel, u"linkProtocol");
        if (!lp.isEmpty()) {
            text += u' ' + orUnknown(str(lp, u"type"));
            QStringList tags;
            for (const auto key : {u"vlanTag", u"vlanSTag", u"vlanCTag"}) {
                if (lp.value(key).isDouble())
                    tags.append(QString::fromLatin1(canonicalNumber(lp.value(key).toDouble())));
            }
            if (!tags.isEmpty())
                text += u' ' + tags.join(u'.');
        }
        return text;
    }
    if (type == u"VD")
        return entity(QStringLiteral("virtual device"), sub(sel, u"virtualDevice"),
                      sub(val, u"virtualDevice"), names);
    if (type == u"NETWORK")
        return entity(QStringLiteral("network"), sub(sel, u"network"), sub(val, u"network"), names);
    return orUnknown(type);
}

// Calls visit on every object in v, outer before inner, through arrays, at most 16 levels deep.
void forEachObject(const QJsonValue &v, const std::function<void(const QJsonObject &)> &visit,
                   int depth = 0)
{
    if (depth > 16)
        return;
    if (v.isArray()) {
        for (const QJsonValue &e : v.toArray())
            forEachObject(e, visit, depth + 1);
        return;
    }
    const QJsonObject o = v.toObject();
    visit(o);
    for (auto it = o.begin(); it != o.end(); ++it)
        forEachObject(it.value(), visit, depth + 1);
}

} // namespace

QList<QPair<QString, QString>> nameLookups(const QJsonObject &request, const QJsonObject &validated)
{
    // The dry run's names by uuid (connection sides say "name", token selectors "portName").
    QHash<QString, QString> dryRunNames;
    forEachObject(validated, [&](const QJsonObject &o) {
        const QString uuid = str(o, u"uuid");
        const QString name = str(o, u"name").isEmpty() ? str(o, u"portName") : str(o, u"name");
        if (!uuid.isEmpty() && !name.isEmpty())
            dryRunNames.insert(uuid, name);
    });

    // Every object in the request that names an entity by uuid, by the key that holds it.
    static const QList<QPair<QString, QString>> kCollections = {
        {QStringLiteral("port"), QStringLiteral("/fabric/v4/ports/")},
        {QStringLiteral("profile"), QStringLiteral("/fabric/v4/serviceProfiles/")},
        {QStringLiteral("network"), QStringLiteral("/fabric/v4/networks/")},
        {QStringLiteral("serviceToken"), QStringLiteral("/fabric/v4/serviceTokens/")}};
    QList<QPair<QString, QString>> out;
    QStringList seen;
    forEachObject(request, [&](const QJsonObject &o) {
        for (const auto &[key, collection] : kCollections) {
            const QString uuid = str(sub(o, key), u"uuid");
            // Only well-formed uuids reach a URL path (the schema guarantees them anyway).
            static const QRegularExpression isUuid(QRegularExpression::anchoredPattern(
                QStringLiteral("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                               "[0-9a-fA-F]{12}")));
            if (uuid.isEmpty() || !isUuid.match(uuid).hasMatch() || seen.contains(uuid))
                continue;
            seen << uuid;
            // The dry run's name is Fabric's own unless it could be an echo of the agent's label.
            const QString label = str(sub(o, key), u"name");
            const QString fromDryRun = dryRunNames.value(uuid);
            if (fromDryRun.isEmpty() || (!label.isEmpty() && label == fromDryRun))
                out.append({uuid, collection + uuid});
        }
    });
    return out;
}

QList<QPair<QString, QString>> providerLookups(const QJsonObject &request)
{
    static const QRegularExpression isUuid(QRegularExpression::anchoredPattern(
        QStringLiteral("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                       "[0-9a-fA-F]{12}")));
    QList<QPair<QString, QString>> out;
    QStringList seen;
    forEachObject(request, [&](const QJsonObject &o) {
        const QString uuid = str(sub(o, u"profile"), u"uuid");
        if (uuid.isEmpty() || !isUuid.match(uuid).hasMatch() || seen.contains(uuid))
            return;
        seen << uuid;
        out.append({uuid, QStringLiteral("/fabric/v4/serviceProfiles/") + uuid});
    });
    return out;
}

QString providerOf(const QJsonObject &profile, const QString &uuid)
{
    if (uuid.isEmpty() || str(profile, u"uuid") != uuid)
        return {};
    return str(sub(profile, u"account"), u"organizationName");
}

QString target(ChangeType type, const QJsonObject &request, const QJsonObject &validated,
               const QHash<QString, QString> &names, const QHash<QString, QString> &providers)
{
    const QString specType = orUnknown(str(request, u"type"));
    switch (type) {
    case ChangeType::ConnectionCreate:
        return specType + u' ' + bandwidth(request.value(u"bandwidth")) + u' ' +
               connectionSide(sub(request, u"aSide"), sub(validated, u"aSide"), names, providers) +
               QStringLiteral(" \u2192 ") +
               connectionSide(sub(request, u"zSide"), sub(validated, u"zSide"), names, providers);
    case ChangeType::NetworkCreate: {
        const QJsonObject location = sub(request, u"location");
        QString where = orUnknown(str(request, u"scope"));
        for (const auto key : {u"region", u"metroCode"}) {
            if (!str(location, key).isEmpty())
                where += u' ' + displayValue(str(location, key));
        }
        return specType + QStringLiteral(" network (") + where + u')';
    }
    case ChangeType::ServiceTokenCreate: {
        const QJsonObject conn = sub(request, u"connection");
        const QJsonObject vconn = sub(validated, u"connection");
        const bool zSide = conn.contains(u"zSide") && !conn.contains(u"aSide");
        const QStringView sideKey = zSide ? u"zSide" : u"aSide";
        const QJsonArray selectors = sub(conn, sideKey).value(u"accessPointSelectors").toArray();
        const QJsonArray vselectors = sub(vconn, sideKey).value(u"accessPointSelectors").toArray();
        QString text = specType + QStringLiteral(" for ") + orUnknown(str(conn, u"type")) +
                       (zSide ? QStringLiteral(" Z-side ") : QStringLiteral(" A-side ")) +
                       (selectors.isEmpty() ? QStringLiteral("?")
                                            : selector(selectors.first().toObject(),
                                                       vselectors.at(0).toObject(), names));
        if (conn.contains(u"bandwidthLimit")) {
            text += QStringLiteral(", up to ") + bandwidth(conn.value(u"bandwidthLimit"));
        } else if (conn.value(u"supportedBandwidths").isArray()) {
            QStringList bws;
            for (const auto &bw : conn.value(u"supportedBandwidths").toArray())
                bws.append(bandwidth(bw));
            text += QStringLiteral(", bandwidths ") + bws.join(QStringLiteral("/"));
        }
        if (request.contains(u"expirationDateTime"))
            text +=
                QStringLiteral(", expires ") + displayValue(str(request, u"expirationDateTime"));
        return text;
    }
    }
    return orUnknown(QString());
}

QJsonObject listRow(const Proposal &proposal, qint64 nowMs)
{
    return {{QStringLiteral("change_type"), changeTypeName(proposal.changeType)},
            {QStringLiteral("target"), proposal.target},
            {QStringLiteral("request_sha256"), proposal.requestSha256},
            {QStringLiteral("proposed_at"), isoTime(proposal.proposedAtMs)},
            {QStringLiteral("expires_at"), isoTime(proposal.expiresAtMs)},
            {QStringLiteral("age_seconds"),
             static_cast<double>((nowMs - proposal.proposedAtMs) / 1000)},
            {QStringLiteral("expires_in_seconds"),
             static_cast<double>(std::max<qint64>(0, proposal.expiresAtMs - nowMs) / 1000)},
            {QStringLiteral("price"), proposal.context.value(QStringLiteral("price"))}};
}

} // namespace fb::ProposalView
