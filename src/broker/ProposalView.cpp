#include "broker/ProposalView.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

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

QString approvalText(const Proposal &proposal, const CompiledRequest &request, qint64 nowMs)
{
    QStringList lines;
    lines << QStringLiteral("Approve a billable Equinix Fabric create?");
    lines << QString();
    lines << QStringLiteral("Change type: ") + changeTypeName(proposal.changeType);
    lines << QStringLiteral("Target: ") + proposal.target;
    lines << QStringLiteral("Price: ") +
                 priceLine(proposal.context.value(QStringLiteral("price")).toObject());
    lines << QStringLiteral("Proposed: %1 ago (at %2)")
                 .arg(formatDuration(nowMs - proposal.proposedAtMs),
                      isoTime(proposal.proposedAtMs));
    lines << QStringLiteral("Expires: in %1 (at %2)")
                 .arg(formatDuration(proposal.expiresAtMs - nowMs), isoTime(proposal.expiresAtMs));
    const QJsonObject client = proposal.context.value(QStringLiteral("client")).toObject();
    if (!client.isEmpty())
        lines << QStringLiteral("Proposed by: %1 %2 (session %3)")
                     .arg(client.value(QStringLiteral("name")).toString(),
                          client.value(QStringLiteral("version")).toString(),
                          client.value(QStringLiteral("sessionId")).toVariant().toString());
    lines << QStringLiteral("Request SHA-256: ") + proposal.requestSha256;
    lines << QString();
    lines << QStringLiteral("%1 %2 (validated by Fabric's dry run):")
                 .arg(QString::fromLatin1(request.method), request.path);
    for (const auto &[path, value] : flatten(QJsonDocument::fromJson(request.body).object()))
        lines << QStringLiteral("  %1 = %2").arg(path, value);
    return lines.join(u'\n');
}

QJsonObject withFabricNames(const QJsonObject &spec, const QJsonObject &validated)
{
    QJsonObject out = spec;
    for (auto it = spec.begin(); it != spec.end(); ++it) {
        const QJsonValue v = validated.value(it.key());
        if (it->isObject() && v.isObject())
            out.insert(it.key(), withFabricNames(it->toObject(), v.toObject()));
    }
    const QJsonValue uuid = spec.value(QStringLiteral("uuid"));
    const QJsonValue name = validated.value(QStringLiteral("name"));
    if (uuid.isString() && validated.value(QStringLiteral("uuid")) == uuid &&
        !spec.contains(QStringLiteral("name")) && name.isString())
        out.insert(QStringLiteral("name"), name);
    const QJsonValue metro =
        validated.value(QStringLiteral("location")).toObject().value(QStringLiteral("metroCode"));
    if (spec.contains(QStringLiteral("port")) && !spec.contains(QStringLiteral("location")) &&
        metro.isString())
        out.insert(QStringLiteral("location"), QJsonObject{{QStringLiteral("metroCode"), metro}});
    return out;
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
