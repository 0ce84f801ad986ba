#include "broker/ResultJson.h"

#include <QJsonDocument>

namespace fb::result {

QJsonArray violationsJson(const QList<SpecViolation> &violations)
{
    QJsonArray out;
    for (const SpecViolation &v : violations)
        out.append(
            QJsonObject{{QStringLiteral("path"), v.path}, {QStringLiteral("message"), v.message}});
    return out;
}

QJsonArray fabricErrorsJson(const FabricResult &r)
{
    QJsonArray out;
    for (const FabricError &e : r.errors) {
        if (out.size() == kMaxFabricErrorsShown)
            break;
        out.append(e.toJson());
    }
    return out;
}

QString renderText(const QString &summary, const QJsonObject &structured)
{
    return summary + QStringLiteral("\n\n") +
           QString::fromUtf8(QJsonDocument(structured).toJson(QJsonDocument::Indented));
}

QStringList unknownArguments(const QJsonObject &args, const QStringList &allowed)
{
    QStringList out;
    for (auto it = args.begin(); it != args.end(); ++it) {
        if (!allowed.contains(it.key()))
            out << it.key();
    }
    return out;
}

} // namespace fb::result
