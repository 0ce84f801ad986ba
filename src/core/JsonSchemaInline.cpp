// JsonSchema::inlined(): the schema with every "$ref" replaced by its target, for clients that
// cannot follow references.
#include "core/JsonSchema.h"

#include <QJsonArray>

namespace fb {

using namespace Qt::StringLiterals;

QJsonValue JsonSchema::inlineValue(const QJsonValue &value, int depth, QStringList &stack,
                                   bool *ok) const
{
    if (depth > m_maxDepth) {
        *ok = false;
        return {};
    }
    if (value.isArray()) {
        QJsonArray a;
        for (const auto &e : value.toArray())
            a.append(inlineValue(e, depth + 1, stack, ok));
        return a;
    }
    if (!value.isObject())
        return value;
    const QJsonObject o = value.toObject();
    QJsonObject result;
    if (o.contains(u"$ref")) {
        const QString ref = o.value(u"$ref").toString();
        const QJsonValue target = resolveRef(ref);
        if (target.isUndefined() || stack.contains(ref)) {
            *ok = false;
            return {};
        }
        stack.append(ref);
        const QJsonValue inlinedTarget = inlineValue(target, depth + 1, stack, ok);
        stack.removeLast();
        result = inlinedTarget.toObject();
        bool conflict = false;
        for (auto it = o.begin(); it != o.end(); ++it) {
            if (it.key() != u"$ref" && result.contains(it.key()))
                conflict = true;
        }
        if (conflict)
            result = QJsonObject{{u"allOf"_s, QJsonArray{result}}};
    }
    for (auto it = o.begin(); it != o.end(); ++it) {
        if (it.key() == u"$ref" || it.key() == u"$defs" || it.key() == u"definitions")
            continue;
        // Keyword values that hold schemas (or maps/arrays of them) are inlined; others (enum,
        // const, examples) are plain data and copied. Copy-through is harmless for data without
        // "$ref" keys, and the schemas here never use "$ref" as a data key.
        result.insert(it.key(), inlineValue(it.value(), depth + 1, stack, ok));
    }
    return result;
}

QJsonObject JsonSchema::inlined() const
{
    QStringList stack;
    bool ok = true;
    const QJsonValue v = inlineValue(m_root, 0, stack, &ok);
    return ok ? v.toObject() : QJsonObject{};
}

} // namespace fb
