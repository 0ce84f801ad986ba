// The published change spec schemas, checked with core/JsonSchema: strictness of every schema
// (additionalProperties: false, descriptions, bounded arrays), the inlined form, the propose
// tool's input schema, and that the specs stay a subset of the official Fabric v4 OpenAPI
// document. The validator's own keyword semantics and messages: tst_jsonschema.
#include "JsonRpc.h"
#include "TestEnvironment.h"
#include "changespec_fixtures.h"
#include "core/ChangeSpec.h"
#include "core/JsonSchema.h"
#include "jsonschema_fixtures.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace fb;

namespace {

using fbtest::parse;
using fbtest::text;

// Calls f(schemaObject, pointer) for every subschema-bearing object in a schema document.
template <typename F> void forEachObjectSchema(const QJsonValue &v, const QString &pointer, F &&f)
{
    if (v.isArray()) {
        const QJsonArray a = v.toArray();
        for (qsizetype i = 0; i < a.size(); ++i)
            forEachObjectSchema(a.at(i), pointer + "/" + QString::number(i), f);
        return;
    }
    if (!v.isObject())
        return;
    const QJsonObject o = v.toObject();
    f(o, pointer);
    for (const auto key : {"properties", "$defs"}) {
        const QJsonObject map = o.value(key).toObject();
        for (auto it = map.begin(); it != map.end(); ++it)
            forEachObjectSchema(it.value(), pointer + "/" + key + "/" + it.key(), f);
    }
    for (const auto key : {"items", "additionalProperties"}) {
        if (o.value(key).isObject())
            forEachObjectSchema(o.value(key), pointer + "/" + key, f);
    }
    for (const auto key : {"oneOf", "anyOf", "allOf"})
        forEachObjectSchema(o.value(key), pointer + "/" + key, f);
}

const ChangeType kTypes[] = {ChangeType::ConnectionCreate, ChangeType::NetworkCreate,
                             ChangeType::ServiceTokenCreate};

} // namespace

class TestChangeSpecJsonSchema : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }
    void schemasAreStrictAndDescribed()
    {
        for (const ChangeType type : kTypes) {
            const QJsonObject schema = ChangeSpec::schema(type);
            QCOMPARE(schema.value("title").toString(), changeTypeName(type));
            QCOMPARE(schema.value("type").toString(), QString("object"));
            QVERIFY(!schema.value("description").toString().isEmpty());
            int objects = 0;
            forEachObjectSchema(schema, "#", [&](const QJsonObject &s, const QString &pointer) {
                if (s.value("type") == QJsonValue("object")) {
                    ++objects;
                    QVERIFY2(s.value("additionalProperties") == QJsonValue(false),
                             qPrintable(changeTypeName(type) + pointer));
                    QVERIFY2(!s.value("properties").toObject().isEmpty(), qPrintable(pointer));
                }
                const QJsonObject props = s.value("properties").toObject();
                for (auto it = props.begin(); it != props.end(); ++it) {
                    const QJsonObject p = it.value().toObject();
                    // Every field is described, directly or through its $ref target.
                    QVERIFY2(p.contains("description") || p.contains("$ref"),
                             qPrintable(changeTypeName(type) + pointer + "/" + it.key()));
                }
                if (s.contains("$ref"))
                    QVERIFY2(s.value("$ref").toString().startsWith("#/$defs/"),
                             qPrintable(pointer));
            });
            QVERIFY(objects >= 3);
            // Self-contained: inlining resolves every reference.
            const QJsonObject inlined = JsonSchema(schema).inlined();
            QVERIFY(!inlined.isEmpty());
            const QByteArray inlinedText = QJsonDocument(inlined).toJson(QJsonDocument::Compact);
            QVERIFY(!inlinedText.contains("$ref"));
            QVERIFY(!inlinedText.contains("$defs"));
        }
    }

    // Every array is bounded (an agent's hundreds of long e-mail addresses would otherwise
    // outgrow the audit record), and a bound the Fabric spec does not set says so.
    void everyArrayHasMaxItems()
    {
        for (const ChangeType type : kTypes) {
            int arrays = 0;
            forEachObjectSchema(
                ChangeSpec::schema(type), "#", [&](const QJsonObject &s, const QString &pointer) {
                    if (s.value("type") != QJsonValue("array"))
                        return;
                    ++arrays;
                    QVERIFY2(s.value("maxItems").isDouble(),
                             qPrintable(changeTypeName(type) + pointer));
                    const int max = s.value("maxItems").toInt();
                    if (pointer.endsWith("/emails"))
                        QVERIFY(max <= 20);
                    if (pointer.endsWith("/Notifications"))
                        QVERIFY(max <= 10);
                    if (max > 1)
                        QVERIFY2(s.value("description").toString().contains("Fabric v4.31 spec"),
                                 qPrintable(pointer));
                });
            QVERIFY(arrays >= 2);
        }
        const QJsonObject schema = ChangeSpec::schema(ChangeType::NetworkCreate);
        QJsonObject spec{{"type", "EVPLAN"}, {"name", "n"}, {"scope", "LOCAL"}};
        QJsonArray notifications;
        for (int i = 0; i < 11; ++i)
            notifications.append(QJsonObject{{"type", "ALL"}, {"emails", QJsonArray{"a@b.co"}}});
        spec.insert("notifications", notifications);
        QList<SchemaViolation> v = JsonSchema(schema).validate(spec);
        QVERIFY2(text(v).contains("notifications"), qPrintable(text(v)));
        notifications = QJsonArray{notifications.first()};
        spec.insert("notifications", notifications);
        QVERIFY2(JsonSchema(schema).validate(spec).isEmpty(),
                 qPrintable(text(JsonSchema(schema).validate(spec))));
        QJsonArray emails;
        for (int i = 0; i < 21; ++i)
            emails.append(QStringLiteral("a%1@b.co").arg(i));
        spec.insert("notifications", QJsonArray{QJsonObject{{"type", "ALL"}, {"emails", emails}}});
        v = JsonSchema(schema).validate(spec);
        QVERIFY2(text(v).contains("emails"), qPrintable(text(v)));
    }

    void inlinedSchemaValidatesLikeTheOriginal()
    {
        for (const auto &f : fixtures::kValid) {
            const ChangeType type = *changeTypeFromName(QString::fromLatin1(f.changeType));
            const JsonSchema original(ChangeSpec::schema(type));
            const JsonSchema inlined(original.inlined());
            const QJsonValue spec = parse(f.json);
            QVERIFY2(inlined.validate(spec).isEmpty(), f.name);
            QJsonObject bad = spec.toObject();
            bad.insert("unexpected", 1);
            bad.remove("name");
            QCOMPARE(inlined.validate(bad), original.validate(bad));
            QCOMPARE(original.validate(bad).size(), 2);
        }
    }

    void proposeInputSchema()
    {
        const QJsonObject schema = ChangeSpec::proposeInputSchema();
        QCOMPARE(schema.value("type").toString(), QString("object"));
        QCOMPARE(schema.value("additionalProperties"), QJsonValue(false));
        QCOMPARE(schema.value("required").toArray(), (QJsonArray{"change_type", "spec"}));
        // Top level stays a plain object schema (some LLM tool APIs reject top-level combinators).
        for (const auto key : {"oneOf", "anyOf", "allOf", "if", "$ref"})
            QVERIFY(!schema.contains(key));
        const QJsonObject props = schema.value("properties").toObject();
        QCOMPARE(props.keys(), (QStringList{"change_type", "spec"}));
        QJsonArray names;
        for (const auto &n : changeTypeNames())
            names.append(n);
        QCOMPARE(props.value("change_type").toObject().value("enum").toArray(), names);
        const QJsonArray alternatives = props.value("spec").toObject().value("oneOf").toArray();
        QCOMPARE(alternatives.size(), 3);
        for (qsizetype i = 0; i < alternatives.size(); ++i) {
            QCOMPARE(alternatives.at(i).toObject(),
                     JsonSchema(ChangeSpec::schema(kTypes[i])).inlined());
        }
        QVERIFY(!QJsonDocument(schema).toJson().contains("$ref"));
        QCOMPARE(ChangeSpec::proposeInputSchema(), schema); // stable

        // Every valid spec matches exactly one alternative (the one of its own change type).
        const JsonSchema validator(schema);
        for (const auto &f : fixtures::kValid) {
            const QJsonObject args{{"change_type", QString::fromLatin1(f.changeType)},
                                   {"spec", parse(f.json)}};
            const auto violations = validator.validate(args);
            QVERIFY2(violations.isEmpty(), qPrintable(QString(f.name) + ": " + text(violations)));
        }
        QVERIFY(!validator
                     .validate(QJsonObject{{"change_type", "connection_delete"},
                                           {"spec", parse(fixtures::kNetEvplanGlobal)}})
                     .isEmpty());
        QVERIFY(!validator.validate(QJsonObject{{"change_type", "network_create"}}).isEmpty());

        // FB_DUMP_DIR=dir writes the input schema and the valid fixtures, e.g. for checking them
        // with ajv (the validator of the MCP TypeScript SDK).
        const QString dumpDir = qEnvironmentVariable("FB_DUMP_DIR");
        if (!dumpDir.isEmpty()) {
            QDir().mkpath(dumpDir);
            QFile out(dumpDir + "/propose_input_schema.json");
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(QJsonDocument(schema).toJson());
            QJsonArray cases;
            for (const auto &f : fixtures::kValid)
                cases.append(QJsonObject{{"name", f.name},
                                         {"arguments", QJsonObject{{"change_type", f.changeType},
                                                                   {"spec", parse(f.json)}}}});
            QFile fx(dumpDir + "/valid_arguments.json");
            QVERIFY(fx.open(QIODevice::WriteOnly));
            fx.write(QJsonDocument(cases).toJson());
        }
    }

    // The specs are a strict subset of the official Fabric v4 request schemas: every field name
    // and every enum value used must occur in the OpenAPI document. Skipped without the document.
    void subsetOfOfficialSpec()
    {
        const QString spec = fbtest::sharedFile("reference/fabric-v4/fabricv4-openapi.yaml");
        QFile file(spec);
        if (spec.isEmpty() || !file.open(QIODevice::ReadOnly))
            QSKIP("Fabric v4 OpenAPI document not available (FB_SHARED_DIR)");
        const QByteArray yaml = file.readAll();
        for (const ChangeType type : kTypes) {
            forEachObjectSchema(
                ChangeSpec::schema(type), "#", [&](const QJsonObject &s, const QString &pointer) {
                    const QJsonObject props = s.value("properties").toObject();
                    if (!pointer.contains("/properties/") && !pointer.contains("/$defs/") &&
                        pointer != "#")
                        return;
                    for (auto it = props.begin(); it != props.end(); ++it) {
                        QVERIFY2(yaml.contains(QByteArray("        " + it.key().toUtf8() + ":\n")),
                                 qPrintable("field not in Fabric v4: " + it.key()));
                    }
                    for (const auto &v : s.value("enum").toArray()) {
                        if (v.isString()) {
                            QVERIFY2(yaml.contains(QByteArray("- " + v.toString().toUtf8() + "\n")),
                                     qPrintable("enum value not in Fabric v4: " + v.toString()));
                        }
                    }
                });
        }
    }
};

QTEST_GUILESS_MAIN(TestChangeSpecJsonSchema)
#include "tst_changespec_jsonschema.moc"
