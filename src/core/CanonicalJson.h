#pragma once
// Canonical JSON per RFC 8785 (JSON Canonicalization Scheme): object members sorted by their
// UTF-16 code units, numbers in ECMAScript shortest round-trip form, minimal string escaping,
// no whitespace. The bytes it produces are the bytes sent to Fabric and hashed for binding.
#include <QByteArray>
#include <QJsonValue>
#include <QString>
#include <optional>

namespace fb {

// Canonical serialization of a JSON value. NaN and infinities cannot occur in QJsonValue
// parsed from text; if constructed in code they serialize as null (JSON has no such numbers).
QByteArray canonicalJson(const QJsonValue &value);
// ECMAScript Number::toString for a finite double (RFC 8785 section 3.2.2.3).
QByteArray canonicalNumber(double value);
// A JSON string literal with RFC 8785 escaping (quotes included).
QByteArray canonicalString(const QString &value);

// Parses JSON text strictly (one value, no trailing data, no duplicate object keys, bounded
// nesting) and returns its canonical form, or nullopt with a reason.
std::optional<QByteArray> canonicalizeText(const QByteArray &json, QString *error = nullptr,
                                           int maxDepth = 64);

} // namespace fb
