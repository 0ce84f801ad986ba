#pragma once
// A small JSON Schema validator (the draft 2020-12 keywords the change specs use) that reports
// every violation with its JSON path, e.g. "$.aSide.accessPoint.linkProtocol.vlanTag".
//
// Supported: type (incl. type arrays), properties, required, additionalProperties (false or a
// schema), enum, const, minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength,
// maxLength (in code points), pattern (unanchored search, as JSON Schema says), format (uuid,
// email, date-time), items, minItems, maxItems, uniqueItems, oneOf, anyOf, allOf, $ref to a
// JSON pointer in the same document ("#/$defs/..."). Annotations (title, description, default,
// examples) are ignored. Unknown keywords are ignored.
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>

namespace fb {

struct SchemaViolation {
    QString path;    // "$", "$.name", "$.notifications[0].emails[1]"
    QString message; // readable: "must be an integer between 2 and 4092"
    bool operator==(const SchemaViolation &) const = default;
};

class JsonSchema {
public:
    static constexpr int kDefaultMaxDepth = 64;

    explicit JsonSchema(QJsonObject root, int maxDepth = kDefaultMaxDepth);

    const QJsonObject &root() const { return m_root; }
    // Every violation of the instance against the root schema, in document order. Empty = valid.
    QList<SchemaViolation> validate(const QJsonValue &instance) const;

    // The root schema with every "$ref" replaced by its target and "$defs" removed, for clients
    // that do not resolve references. Fails (returns an empty object) on a cyclic or dangling
    // reference or on nesting deeper than maxDepth.
    QJsonObject inlined() const;

    // Path helpers: "$" + ".name" or "['odd key']", and "[3]".
    static QString childPath(const QString &parent, const QString &key);
    static QString indexPath(const QString &parent, qsizetype index);

    // Format checks, exposed for reuse by cross-field rules and tests.
    static bool isUuid(const QString &s);
    static bool isEmail(const QString &s);
    static bool isDateTime(const QString &s);

private:
    void validateValue(const QJsonValue &schema, const QJsonValue &instance, const QString &path,
                       int depth, QList<SchemaViolation> &out) const;
    void validateObjectSchema(const QJsonObject &schema, const QJsonValue &instance,
                              const QString &path, int depth, QList<SchemaViolation> &out) const;
    void validateCombinator(const QJsonArray &branches, bool exactlyOne, const QJsonValue &instance,
                            const QString &path, int depth, QList<SchemaViolation> &out) const;
    QJsonValue resolveRef(const QString &ref) const;
    QJsonValue inlineValue(const QJsonValue &value, int depth, QStringList &stack, bool *ok) const;

    QJsonObject m_root;
    int m_maxDepth;
};

} // namespace fb
