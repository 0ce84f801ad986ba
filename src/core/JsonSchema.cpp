#include "core/JsonSchema.h"

#include "core/CanonicalJson.h"
#include "core/NameTable.h"

#include <QJsonArray>
#include <QRegularExpression>

#include <cmath>

namespace fb {

using namespace Qt::StringLiterals;

namespace {

QString numberText(double d)
{
    return QString::fromLatin1(canonicalNumber(d));
}

// Human text of a JSON value for messages: strings bare, everything else as canonical JSON.
QString valueText(const QJsonValue &v)
{
    if (v.isString())
        return v.toString();
    return QString::fromUtf8(canonicalJson(v));
}

bool isIntegerValue(const QJsonValue &v)
{
    if (!v.isDouble())
        return false;
    const double d = v.toDouble();
    return std::isfinite(d) && std::floor(d) == d;
}

constexpr EnumName<QJsonValue::Type> kJsonTypes[] = {
    {QJsonValue::Null, u"null"},     {QJsonValue::Bool, u"boolean"},
    {QJsonValue::Double, u"number"}, {QJsonValue::String, u"string"},
    {QJsonValue::Array, u"array"},   {QJsonValue::Object, u"object"},
};

QString jsonTypeName(const QJsonValue &v)
{
    if (v.isDouble() && isIntegerValue(v))
        return u"integer"_s;
    const QString name = nameOf(kJsonTypes, v.type());
    return name.isEmpty() ? u"undefined"_s : name;
}

bool matchesType(const QString &type, const QJsonValue &v)
{
    if (type == u"object")
        return v.isObject();
    if (type == u"array")
        return v.isArray();
    if (type == u"string")
        return v.isString();
    if (type == u"boolean")
        return v.isBool();
    if (type == u"null")
        return v.isNull();
    if (type == u"number")
        return v.isDouble() && std::isfinite(v.toDouble());
    if (type == u"integer")
        return isIntegerValue(v);
    return false;
}

QString withArticle(const QString &type)
{
    if (type == u"integer" || type == u"object" || type == u"array")
        return u"an "_s + type;
    if (type == u"null")
        return type;
    return u"a "_s + type;
}

// "between 2 and 4092", ">= 0", "<= 100000", or empty when the schema has no bounds.
QString rangeText(const QJsonObject &schema)
{
    const bool hasMin = schema.contains(u"minimum");
    const bool hasMax = schema.contains(u"maximum");
    if (hasMin && hasMax) {
        return u" between "_s + numberText(schema.value(u"minimum").toDouble()) + u" and "_s +
               numberText(schema.value(u"maximum").toDouble());
    }
    if (hasMin)
        return u" >= "_s + numberText(schema.value(u"minimum").toDouble());
    if (hasMax)
        return u" <= "_s + numberText(schema.value(u"maximum").toDouble());
    return {};
}

qsizetype codePointCount(const QString &s)
{
    qsizetype n = 0;
    for (qsizetype i = 0; i < s.size(); ++i) {
        if (s.at(i).isHighSurrogate() && i + 1 < s.size() && s.at(i + 1).isLowSurrogate())
            ++i;
        ++n;
    }
    return n;
}

// JSON Schema patterns are ECMA-262 regular expressions, where an unescaped '$' outside a
// character class only matches at the very end of the input. In PCRE it also matches before a
// final newline, so "^[A-Z]{2}$" would accept "SV\n": rewrite such '$' to "\z".
QString ecmaDollarToPcre(const QString &pattern)
{
    QString out;
    out.reserve(pattern.size() + 8);
    bool inClass = false;
    for (qsizetype i = 0; i < pattern.size(); ++i) {
        const QChar c = pattern.at(i);
        if (c == u'\\' && i + 1 < pattern.size()) {
            out += c;
            out += pattern.at(++i);
            continue;
        }
        if (inClass) {
            if (c == u']')
                inClass = false;
            out += c;
            continue;
        }
        if (c == u'[')
            inClass = true;
        if (c == u'$')
            out += u"\\z"_s;
        else
            out += c;
    }
    return out;
}

} // namespace

JsonSchema::JsonSchema(QJsonObject root, int maxDepth)
    : m_root(std::move(root))
    , m_maxDepth(maxDepth)
{
}

QList<SchemaViolation> JsonSchema::validate(const QJsonValue &instance) const
{
    QList<SchemaViolation> out;
    validateValue(m_root, instance, u"$"_s, 0, out);
    // De-duplicate while keeping order (several branches may report the same thing).
    QList<SchemaViolation> unique;
    for (const auto &v : std::as_const(out)) {
        if (!unique.contains(v))
            unique.append(v);
    }
    return unique;
}

QJsonValue JsonSchema::resolveRef(const QString &ref) const
{
    if (ref == u"#")
        return m_root;
    if (!ref.startsWith(u"#/"_s))
        return QJsonValue(QJsonValue::Undefined);
    QJsonValue cur = m_root;
    const auto parts = QStringView(ref).mid(2).split(u'/');
    for (const auto &rawPart : parts) {
        QString part = rawPart.toString();
        part.replace(u"~1"_s, u"/"_s).replace(u"~0"_s, u"~"_s);
        if (cur.isObject()) {
            const QJsonObject o = cur.toObject();
            if (!o.contains(part))
                return QJsonValue(QJsonValue::Undefined);
            cur = o.value(part);
        } else if (cur.isArray()) {
            bool ok = false;
            const int index = part.toInt(&ok);
            const QJsonArray a = cur.toArray();
            if (!ok || index < 0 || index >= a.size())
                return QJsonValue(QJsonValue::Undefined);
            cur = a.at(index);
        } else {
            return QJsonValue(QJsonValue::Undefined);
        }
    }
    return cur;
}

void JsonSchema::validateValue(const QJsonValue &schema, const QJsonValue &instance,
                               const QString &path, int depth, QList<SchemaViolation> &out) const
{
    if (depth > m_maxDepth) {
        out.append({path, u"nesting too deep (limit %1)"_s.arg(m_maxDepth)});
        return;
    }
    if (schema.isBool()) {
        if (!schema.toBool())
            out.append({path, u"not allowed"_s});
        return;
    }
    if (!schema.isObject()) {
        out.append({path, u"schema error: schema is not an object"_s});
        return;
    }
    validateObjectSchema(schema.toObject(), instance, path, depth, out);
}

void JsonSchema::validateObjectSchema(const QJsonObject &schema, const QJsonValue &instance,
                                      const QString &path, int depth,
                                      QList<SchemaViolation> &out) const
{
    if (schema.contains(u"$ref")) {
        const QString ref = schema.value(u"$ref").toString();
        const QJsonValue target = resolveRef(ref);
        if (target.isUndefined())
            out.append({path, u"schema error: unresolvable $ref "_s + ref});
        else
            validateValue(target, instance, path, depth + 1, out);
    }

    // type: on mismatch nothing else is checked here (the other keywords are type specific).
    if (schema.contains(u"type")) {
        const QJsonValue t = schema.value(u"type");
        QStringList types;
        if (t.isArray()) {
            for (const auto &e : t.toArray())
                types.append(e.toString());
        } else {
            types.append(t.toString());
        }
        bool ok = false;
        for (const auto &type : std::as_const(types))
            ok = ok || matchesType(type, instance);
        if (!ok) {
            QString message;
            if (types.size() == 1) {
                message = u"must be "_s + withArticle(types.first());
                if (types.first() == u"integer" || types.first() == u"number")
                    message += rangeText(schema);
            } else {
                QStringList named;
                for (const auto &type : std::as_const(types))
                    named.append(withArticle(type));
                message = u"must be "_s + named.join(u" or "_s);
            }
            message += u" (got "_s + jsonTypeName(instance) + u')';
            out.append({path, message});
            return;
        }
    }

    if (schema.contains(u"const") && instance != schema.value(u"const"))
        out.append({path, u"must be "_s + valueText(schema.value(u"const"))});

    if (schema.contains(u"enum")) {
        const QJsonArray values = schema.value(u"enum").toArray();
        if (!values.contains(instance)) {
            QStringList names;
            for (const auto &v : values)
                names.append(valueText(v));
            out.append({path, u"must be one of: "_s + names.join(u", "_s)});
        }
    }

    if (instance.isDouble()) {
        const double d = instance.toDouble();
        const bool hasMin = schema.contains(u"minimum");
        const bool hasMax = schema.contains(u"maximum");
        const bool below = hasMin && d < schema.value(u"minimum").toDouble();
        const bool above = hasMax && d > schema.value(u"maximum").toDouble();
        if (below || above) {
            const QString type = schema.value(u"type").toString();
            const QString noun = type == u"integer" ? u"an integer"_s : u"a number"_s;
            out.append({path, u"must be "_s + noun + rangeText(schema)});
        }
        if (schema.contains(u"exclusiveMinimum") &&
            d <= schema.value(u"exclusiveMinimum").toDouble()) {
            out.append(
                {path, u"must be > "_s + numberText(schema.value(u"exclusiveMinimum").toDouble())});
        }
        if (schema.contains(u"exclusiveMaximum") &&
            d >= schema.value(u"exclusiveMaximum").toDouble()) {
            out.append(
                {path, u"must be < "_s + numberText(schema.value(u"exclusiveMaximum").toDouble())});
        }
    }

    if (instance.isString()) {
        const QString s = instance.toString();
        // A lone surrogate ("\\ud800" in the JSON text) is not Unicode: canonical JSON would
        // send "?" in its place, so the bytes would differ from what was written.
        if (!QStringView(s).isValidUtf16())
            out.append({path, u"must be valid Unicode (contains a lone UTF-16 "
                              "surrogate escape)"_s});
        const qsizetype len = codePointCount(s);
        const bool hasMinLen = schema.contains(u"minLength");
        const bool hasMaxLen = schema.contains(u"maxLength");
        const qint64 minLen = schema.value(u"minLength").toInteger();
        const qint64 maxLen = schema.value(u"maxLength").toInteger();
        if ((hasMinLen && len < minLen) || (hasMaxLen && len > maxLen)) {
            QString message;
            if (hasMinLen && hasMaxLen)
                message = u"must be %1 to %2 characters long"_s.arg(minLen).arg(maxLen);
            else if (hasMinLen)
                message = u"must be at least %1 characters long"_s.arg(minLen);
            else
                message = u"must be at most %1 characters long"_s.arg(maxLen);
            out.append({path, message + u" (got %1)"_s.arg(len)});
        }
        if (schema.contains(u"pattern")) {
            const QString pattern = schema.value(u"pattern").toString();
            const QRegularExpression re(ecmaDollarToPcre(pattern));
            if (!re.isValid())
                out.append({path, u"schema error: invalid pattern "_s + pattern});
            else if (!re.match(s).hasMatch())
                out.append({path, u"must match the pattern "_s + pattern});
        }
        if (schema.contains(u"format")) {
            const QString format = schema.value(u"format").toString();
            if (format == u"uuid" && !isUuid(s)) {
                out.append({path, u"must be a UUID (8-4-4-4-12 hexadecimal digits, "
                                  "e.g. 3fa85f64-5717-4562-b3fc-2c963f66afa6)"_s});
            } else if (format == u"email" && !isEmail(s)) {
                out.append({path, u"must be an e-mail address"_s});
            } else if (format == u"date-time" && !isDateTime(s)) {
                out.append({path, u"must be an RFC 3339 date-time with a time zone, "
                                  "e.g. 2026-12-31T00:00:00Z"_s});
            }
        }
    }

    if (instance.isArray()) {
        const QJsonArray a = instance.toArray();
        if (schema.contains(u"minItems") && a.size() < schema.value(u"minItems").toInteger()) {
            out.append({path, u"must have at least %1 item(s)"_s.arg(
                                  schema.value(u"minItems").toInteger())});
        }
        if (schema.contains(u"maxItems") && a.size() > schema.value(u"maxItems").toInteger()) {
            out.append({path, u"must have at most %1 item(s)"_s.arg(
                                  schema.value(u"maxItems").toInteger())});
        }
        if (schema.value(u"uniqueItems").toBool()) {
            for (qsizetype i = 1; i < a.size(); ++i) {
                for (qsizetype j = 0; j < i; ++j) {
                    if (a.at(i) == a.at(j)) {
                        out.append({indexPath(path, i),
                                    u"duplicate of item [%1]; items must be unique"_s.arg(j)});
                        break;
                    }
                }
            }
        }
        if (schema.contains(u"items")) {
            const QJsonValue items = schema.value(u"items");
            for (qsizetype i = 0; i < a.size(); ++i)
                validateValue(items, a.at(i), indexPath(path, i), depth + 1, out);
        }
    }

    if (instance.isObject()) {
        const QJsonObject o = instance.toObject();
        const QJsonObject properties = schema.value(u"properties").toObject();
        for (const auto &r : schema.value(u"required").toArray()) {
            const QString key = r.toString();
            if (!o.contains(key))
                out.append({childPath(path, key), u"required field missing"_s});
        }
        const QJsonValue additional = schema.value(u"additionalProperties");
        for (auto it = o.begin(); it != o.end(); ++it) {
            const QString child = childPath(path, it.key());
            if (properties.contains(it.key())) {
                validateValue(properties.value(it.key()), it.value(), child, depth + 1, out);
            } else if (additional.isBool() && !additional.toBool()) {
                const QStringList allowed = properties.keys();
                out.append({child, allowed.isEmpty()
                                       ? u"unknown field; no fields are allowed here"_s
                                       : u"unknown field; allowed: "_s + allowed.join(u", "_s)});
            } else if (additional.isObject()) {
                validateValue(additional, it.value(), child, depth + 1, out);
            }
        }
    }

    if (schema.contains(u"allOf")) {
        for (const auto &branch : schema.value(u"allOf").toArray())
            validateValue(branch, instance, path, depth + 1, out);
    }
    if (schema.contains(u"anyOf"))
        validateCombinator(schema.value(u"anyOf").toArray(), false, instance, path, depth, out);
    if (schema.contains(u"oneOf"))
        validateCombinator(schema.value(u"oneOf").toArray(), true, instance, path, depth, out);
}

void JsonSchema::validateCombinator(const QJsonArray &branches, bool exactlyOne,
                                    const QJsonValue &instance, const QString &path, int depth,
                                    QList<SchemaViolation> &out) const
{
    if (branches.isEmpty())
        return;
    QList<QList<SchemaViolation>> results;
    QList<qsizetype> passing;
    for (qsizetype i = 0; i < branches.size(); ++i) {
        QList<SchemaViolation> r;
        validateValue(branches.at(i), instance, path, depth + 1, r);
        if (r.isEmpty())
            passing.append(i);
        results.append(r);
    }
    if (!exactlyOne && !passing.isEmpty())
        return;
    if (exactlyOne && passing.size() == 1)
        return;
    if (exactlyOne && passing.size() > 1) {
        QStringList which;
        for (auto i : std::as_const(passing))
            which.append(QString::number(i));
        out.append({path, u"matches more than one alternative (oneOf branches %1); "
                          "it must match exactly one"_s.arg(which.join(u", "_s))});
        return;
    }

    // No branch matched. Pick the branch the instance evidently meant: the one whose "const" (or
    // single-value "enum") properties all match the instance, e.g. {"type": {"const": "COLO"}}.
    // Otherwise the branch with the fewest violations.
    auto resolved = [this](QJsonValue v) {
        for (int hops = 0; hops < 16 && v.isObject() && v.toObject().contains(u"$ref"); ++hops)
            v = resolveRef(v.toObject().value(u"$ref").toString());
        return v.toObject();
    };
    QList<qsizetype> discriminated;
    QStringList discriminatorValues;
    QString discriminatorKey;
    const QJsonObject inst = instance.toObject();
    for (qsizetype i = 0; i < branches.size(); ++i) {
        const QJsonObject props = resolved(branches.at(i)).value(u"properties").toObject();
        bool hasConst = false;
        bool allMatch = true;
        for (auto it = props.begin(); it != props.end(); ++it) {
            const QJsonObject p = it.value().toObject();
            QJsonValue constant;
            if (p.contains(u"const"))
                constant = p.value(u"const");
            else if (p.value(u"enum").toArray().size() == 1)
                constant = p.value(u"enum").toArray().first();
            else
                continue;
            hasConst = true;
            discriminatorKey = it.key();
            discriminatorValues.append(valueText(constant));
            if (!instance.isObject() || inst.value(it.key()) != constant)
                allMatch = false;
        }
        if (hasConst && allMatch)
            discriminated.append(i);
    }
    if (discriminated.size() == 1) {
        out.append(results.at(discriminated.first()));
        return;
    }
    if (instance.isObject() && discriminated.isEmpty() && !discriminatorKey.isEmpty()) {
        discriminatorValues.removeDuplicates();
        out.append({childPath(path, discriminatorKey),
                    u"must be one of: "_s + discriminatorValues.join(u", "_s)});
        return;
    }
    qsizetype best = 0;
    for (qsizetype i = 1; i < results.size(); ++i) {
        if (results.at(i).size() < results.at(best).size())
            best = i;
    }
    const QString title = resolved(branches.at(best)).value(u"title").toString();
    out.append(
        {path, u"matches none of the %1 alternatives; the closest is %2:"_s.arg(branches.size())
                   .arg(title.isEmpty() ? u"#"_s + QString::number(best) : title)});
    out.append(results.at(best));
}

} // namespace fb
