#include "core/ChangeSpec.h"

#include "core/CanonicalJson.h"
#include "core/ChangeSpecRules.h"
#include "core/JsonSchema.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTimeZone>
#include <QtGlobal>

#include <cmath>
#include <map>

// Q_INIT_RESOURCE declares an extern function, so it must be used outside namespace fb. The
// schemas live in a static library, where the resource's static initializer would otherwise be
// dropped by the linker.
static void fbInitSchemaResources()
{
    Q_INIT_RESOURCE(schemas);
}

namespace fb {

namespace {

QString schemaResourcePath(ChangeType type)
{
    return QStringLiteral(":/fabricbroker/schemas/") + changeTypeName(type) +
           QStringLiteral(".json");
}

QJsonObject loadSchema(ChangeType type)
{
    fbInitSchemaResources();
    QFile file(schemaResourcePath(type));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("ChangeSpec: schema resource %s is missing", qPrintable(file.fileName()));
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject()) {
        qFatal("ChangeSpec: schema resource %s is not a JSON object: %s",
               qPrintable(file.fileName()), qPrintable(error.errorString()));
    }
    return doc.object();
}

const JsonSchema &validatorFor(ChangeType type)
{
    // One per row of the change types' table, built once, thread-safely (function-local
    // static), then only read.
    static const std::map<ChangeType, JsonSchema> validators = [] {
        std::map<ChangeType, JsonSchema> all;
        for (const ChangeType t : changeTypes())
            all.emplace(t, JsonSchema(loadSchema(t)));
        return all;
    }();
    return validators.at(type);
}

} // namespace

QString formatViolations(const QList<SpecViolation> &violations)
{
    QStringList parts;
    parts.reserve(violations.size());
    for (const auto &v : violations)
        parts.append(v.path + QStringLiteral(": ") + v.message);
    return parts.join(QStringLiteral("; "));
}

namespace ChangeSpec {

QJsonObject schema(ChangeType type)
{
    return validatorFor(type).root();
}

QJsonObject proposeInputSchema()
{
    static const QJsonObject cached = [] {
        QJsonArray alternatives;
        QStringList lines;
        for (const ChangeType type : changeTypes()) {
            // Inlined (no $ref/$defs): some MCP clients and LLM tool APIs do not resolve
            // references. It is the same schema as schema(type), expanded.
            QJsonObject inlined = validatorFor(type).inlined();
            Q_ASSERT(!inlined.isEmpty());
            alternatives.append(inlined);
            lines.append(changeTypeName(type) + QStringLiteral(": ") +
                         inlined.value(u"description").toString());
        }
        QJsonArray typeNames;
        for (const auto &name : changeTypeNames())
            typeNames.append(name);
        const QJsonObject changeType{
            {QStringLiteral("type"), QStringLiteral("string")},
            {QStringLiteral("enum"), typeNames},
            {QStringLiteral("description"),
             QStringLiteral("What to create. Only creates exist; there is no update or delete.")}};
        const QJsonObject spec{
            {QStringLiteral("description"),
             QString(QStringLiteral(
                         "The Fabric v4 request body, using Fabric's own field names and "
                         "nesting; it must match the schema of change_type (unknown fields are "
                         "rejected). ") +
                     lines.join(QStringLiteral("; ")))},
            {QStringLiteral("oneOf"), alternatives}};
        return QJsonObject{
            {QStringLiteral("type"), QStringLiteral("object")},
            {QStringLiteral("properties"), QJsonObject{{QStringLiteral("change_type"), changeType},
                                                       {QStringLiteral("spec"), spec}}},
            {QStringLiteral("required"),
             QJsonArray{QStringLiteral("change_type"), QStringLiteral("spec")}},
            {QStringLiteral("additionalProperties"), false}};
    }();
    return cached;
}

QList<SpecViolation> validate(ChangeType type, const QJsonValue &spec)
{
    QList<SpecViolation> out;
    for (const auto &v : validatorFor(type).validate(spec))
        out.append({v.path, v.message});
    if (spec.isObject())
        addCrossFieldViolations(type, spec.toObject(), &out);
    out += validateText(spec);
    QList<SpecViolation> unique;
    for (const auto &v : std::as_const(out)) {
        if (!unique.contains(v))
            unique.append(v);
    }
    return unique;
}

QList<SpecViolation> validateTimes(ChangeType type, const QJsonValue &spec, qint64 nowMs)
{
    if (type != ChangeType::ServiceTokenCreate)
        return {};
    const QString expiry = spec.toObject().value(u"expirationDateTime").toString();
    if (!JsonSchema::isDateTime(expiry))
        return {};
    const QDateTime when = QDateTime::fromString(expiry, Qt::ISODateWithMs);
    if (!when.isValid())
        return {};
    if (when.toMSecsSinceEpoch() > nowMs)
        return {};
    return {{QStringLiteral("$.expirationDateTime"),
             QStringLiteral("must be in the future (now is ") +
                 QDateTime::fromMSecsSinceEpoch(nowMs, QTimeZone::utc()).toString(Qt::ISODate) +
                 u')'}};
}

QString bandwidthText(double mbps)
{
    if (std::isfinite(mbps) && mbps >= 1000 && std::fmod(mbps, 1000) == 0)
        return QString::fromLatin1(canonicalNumber(mbps / 1000)) + QStringLiteral(" Gbps");
    return QString::fromLatin1(canonicalNumber(mbps)) + QStringLiteral(" Mbps");
}

} // namespace ChangeSpec

CompileResult ChangeCompiler::compile(ChangeType type, const QJsonValue &spec) const
{
    CompileResult result;
    result.violations = ChangeSpec::validate(type, spec);
    if (!result.violations.isEmpty())
        return result;
    CompiledRequest request;
    request.changeType = type;
    request.method = "POST";
    request.path = changeTypePath(type);
    // The spec as written, canonicalized: nothing is added, so these are the bytes on the wire.
    request.body = canonicalJson(spec);
    result.request = request;
    return result;
}

} // namespace fb
