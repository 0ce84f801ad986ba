#pragma once
// What the JSON Schema suites share (tst_jsonschema, tst_changespec_jsonschema): an instance
// checked against a schema given as JSON text, and the violations as one line.
#include "JsonRpc.h"
#include "core/JsonSchema.h"

#include <QStringList>

namespace fbtest {

constexpr auto parse = &parseJsonFixture;

inline QList<fb::SchemaViolation> check(const QByteArray &schema, const QByteArray &instance)
{
    return fb::JsonSchema(parse(schema).toObject()).validate(parse(instance));
}

inline QString text(const QList<fb::SchemaViolation> &violations)
{
    QStringList parts;
    for (const auto &v : violations)
        parts.append(v.path + ": " + v.message);
    return parts.join("; ");
}

} // namespace fbtest
