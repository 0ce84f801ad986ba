// The JSON Schema validator behind the change specs, and the published schemas themselves:
// keyword semantics and messages, strictness of every schema (additionalProperties: false,
// descriptions), the propose tool's input schema, and that the specs stay a subset of the
// official Fabric v4 OpenAPI document.
#include "JsonRpc.h"
#include "TestEnvironment.h"
#include "changespec_fixtures.h"
#include "core/ChangeSpec.h"
#include "core/JsonSchema.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace fb;

namespace {

constexpr auto parse = &fbtest::parseJsonFixture;

QList<SchemaViolation> check(const QByteArray &schema, const QByteArray &instance)
{
    return JsonSchema(parse(schema).toObject()).validate(parse(instance));
}

QString text(const QList<SchemaViolation> &violations)
{
    QStringList parts;
    for (const auto &v : violations)
        parts.append(v.path + ": " + v.message);
    return parts.join("; ");
}

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

class TestJsonSchema : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }
    void keywords_data()
    {
        QTest::addColumn<QByteArray>("schema");
        QTest::addColumn<QByteArray>("instance");
        QTest::addColumn<QString>("expected"); // formatted violations; empty = valid
        const QByteArray integer = "{\"type\":\"integer\",\"minimum\":2,\"maximum\":4092}";
        QTest::newRow("integer ok") << integer << QByteArray("2") << "";
        QTest::newRow("integer 2.0 ok") << integer << QByteArray("2.0") << "";
        QTest::newRow("integer fractional")
            << integer << QByteArray("2.5")
            << "$: must be an integer between 2 and 4092 (got number)";
        QTest::newRow("integer below")
            << integer << QByteArray("1") << "$: must be an integer between 2 and 4092";
        QTest::newRow("integer above")
            << integer << QByteArray("1e4") << "$: must be an integer between 2 and 4092";
        QTest::newRow("number min only") << QByteArray("{\"type\":\"number\",\"minimum\":0.5}")
                                         << QByteArray("0.25") << "$: must be a number >= 0.5";
        QTest::newRow("exclusive") << QByteArray("{\"exclusiveMinimum\":0,\"exclusiveMaximum\":1}")
                                   << QByteArray("1") << "$: must be < 1";
        QTest::newRow("type array ok")
            << QByteArray("{\"type\":[\"string\",\"null\"]}") << QByteArray("null") << "";
        QTest::newRow("type array bad")
            << QByteArray("{\"type\":[\"string\",\"null\"]}") << QByteArray("3")
            << "$: must be a string or null (got integer)";
        QTest::newRow("boolean") << QByteArray("{\"type\":\"boolean\"}") << QByteArray("0")
                                 << "$: must be a boolean (got integer)";
        QTest::newRow("const") << QByteArray("{\"const\":\"COLO\"}") << QByteArray("\"SP\"")
                               << "$: must be COLO";
        QTest::newRow("enum numbers")
            << QByteArray("{\"enum\":[1,12]}") << QByteArray("2") << "$: must be one of: 1, 12";
        QTest::newRow("enum 12.0 equals 12")
            << QByteArray("{\"enum\":[1,12]}") << QByteArray("12.0") << "";
        QTest::newRow("code points") << QByteArray("{\"maxLength\":2}")
                                     << QByteArray("\"\\ud83d\\ude00\\ud83d\\ude00\"") << "";
        QTest::newRow("code points over")
            << QByteArray("{\"maxLength\":2}") << QByteArray("\"abc\"")
            << "$: must be at most 2 characters long (got 3)";
        QTest::newRow("minLength") << QByteArray("{\"minLength\":2}") << QByteArray("\"a\"")
                                   << "$: must be at least 2 characters long (got 1)";
        QTest::newRow("pattern is a search")
            << QByteArray("{\"pattern\":\"b+\"}") << QByteArray("\"abbbc\"") << "";
        QTest::newRow("pattern dollar is end")
            << QByteArray("{\"pattern\":\"^[A-Z]{2}$\"}") << QByteArray("\"SV\\n\"")
            << "$: must match the pattern ^[A-Z]{2}$";
        QTest::newRow("pattern dollar in class")
            << QByteArray("{\"pattern\":\"^[$]+$\"}") << QByteArray("\"$$\"") << "";
        QTest::newRow("bad pattern") << QByteArray("{\"pattern\":\"(\"}") << QByteArray("\"x\"")
                                     << "$: schema error: invalid pattern (";
        QTest::newRow("uuid") << QByteArray("{\"format\":\"uuid\"}")
                              << QByteArray("\"3fa85f64-5717-4562-b3fc-2c963f66afa6\"") << "";
        QTest::newRow("uuid urn rejected")
            << QByteArray("{\"format\":\"uuid\"}")
            << QByteArray("\"urn:uuid:3fa85f64-5717-4562-b3fc-2c963f66afa6\"")
            << "$: must be a UUID (8-4-4-4-12 hexadecimal digits, e.g. "
               "3fa85f64-5717-4562-b3fc-2c963f66afa6)";
        QTest::newRow("format ignores non-strings")
            << QByteArray("{\"format\":\"uuid\"}") << QByteArray("5") << "";
        QTest::newRow("email ok") << QByteArray("{\"format\":\"email\"}")
                                  << QByteArray("\"first.last+tag@sub.example.co.uk\"") << "";
        QTest::newRow("email no domain dot")
            << QByteArray("{\"format\":\"email\"}") << QByteArray("\"a@b\"")
            << "$: must be an e-mail address";
        QTest::newRow("email two ats")
            << QByteArray("{\"format\":\"email\"}") << QByteArray("\"a@b@example.com\"")
            << "$: must be an e-mail address";
        QTest::newRow("date-time leap day") << QByteArray("{\"format\":\"date-time\"}")
                                            << QByteArray("\"2028-02-29T23:59:59.5-08:00\"") << "";
        QTest::newRow("date-time hour 24")
            << QByteArray("{\"format\":\"date-time\"}") << QByteArray("\"2028-02-28T24:00:00Z\"")
            << "$: must be an RFC 3339 date-time with a time zone, "
               "e.g. 2026-12-31T00:00:00Z";
        QTest::newRow("date only")
            << QByteArray("{\"format\":\"date-time\"}") << QByteArray("\"2028-02-28\"")
            << "$: must be an RFC 3339 date-time with a time zone, "
               "e.g. 2026-12-31T00:00:00Z";
        QTest::newRow("items and unique")
            << QByteArray("{\"type\":\"array\",\"minItems\":1,\"maxItems\":3,\"uniqueItems\":true,"
                          "\"items\":{\"type\":\"integer\"}}")
            << QByteArray("[1, \"x\", 1, {\"a\":1}]")
            << "$: must have at most 3 item(s); $[2]: duplicate of item [0]; items must be unique; "
               "$[1]: must be an integer (got string); $[3]: must be an integer (got object)";
        QTest::newRow("unique objects")
            << QByteArray("{\"uniqueItems\":true}") << QByteArray("[{\"a\":[1]},{\"a\":[1]}]")
            << "$[1]: duplicate of item [0]; items must be unique";
        QTest::newRow("object")
            << QByteArray("{\"type\":\"object\",\"required\":[\"a\",\"b\"],\"properties\":"
                          "{\"a\":{\"type\":\"string\"},\"b\":{}},\"additionalProperties\":false}")
            << QByteArray("{\"a\":1,\"c\":2,\"d e\":3}")
            << "$.b: required field missing; $.a: must be a string (got integer); $.c: unknown "
               "field; allowed: a, b; $['d e']: unknown field; allowed: a, b";
        QTest::newRow("additionalProperties schema")
            << QByteArray("{\"additionalProperties\":{\"type\":\"integer\"}}")
            << QByteArray("{\"x\":1,\"y\":\"2\"}") << "$.y: must be an integer (got string)";
        QTest::newRow("boolean schemas")
            << QByteArray("{\"properties\":{\"no\":false,\"yes\":true}}")
            << QByteArray("{\"no\":1,\"yes\":1}") << "$.no: not allowed";
        QTest::newRow("$ref")
            << QByteArray(
                   "{\"$defs\":{\"v\":{\"type\":\"integer\",\"minimum\":2,\"maximum\":4092}},"
                   "\"properties\":{\"tag\":{\"$ref\":\"#/$defs/v\"}}}")
            << QByteArray("{\"tag\":1}") << "$.tag: must be an integer between 2 and 4092";
        QTest::newRow("dangling $ref")
            << QByteArray("{\"$ref\":\"#/$defs/nope\"}") << QByteArray("1")
            << "$: schema error: unresolvable $ref #/$defs/nope";
        QTest::newRow("allOf") << QByteArray("{\"allOf\":[{\"minimum\":1},{\"maximum\":0}]}")
                               << QByteArray("0.5")
                               << "$: must be a number >= 1; $: must be a number <= 0";
        QTest::newRow("anyOf ok") << QByteArray(
                                         "{\"anyOf\":[{\"type\":\"string\"},{\"minimum\":1}]}")
                                  << QByteArray("2") << "";
        QTest::newRow("anyOf closest")
            << QByteArray("{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\",\"minimum\":1,"
                          "\"title\":\"count\"}]}")
            << QByteArray("0")
            << "$: matches none of the 2 alternatives; the closest is #0:; $: must be a string "
               "(got integer)";
        QTest::newRow("oneOf two match")
            << QByteArray("{\"oneOf\":[{\"type\":\"integer\"},{\"minimum\":1}]}") << QByteArray("2")
            << "$: matches more than one alternative (oneOf branches 0, 1); it must match exactly "
               "one";
        QTest::newRow("oneOf discriminated by const")
            << QByteArray(
                   "{\"oneOf\":["
                   "{\"type\":\"object\",\"properties\":{\"type\":{\"const\":\"DOT1Q\"},"
                   "\"vlanTag\":{\"type\":\"integer\",\"minimum\":2}},\"required\":[\"vlanTag\"]},"
                   "{\"type\":\"object\",\"properties\":{\"type\":{\"const\":\"QINQ\"},"
                   "\"vlanSTag\":{\"type\":\"integer\"}},\"required\":[\"vlanSTag\"]}]}")
            << QByteArray("{\"type\":\"DOT1Q\",\"vlanTag\":1}")
            << "$.vlanTag: must be an integer >= 2";
        QTest::newRow("oneOf unknown discriminator")
            << QByteArray("{\"oneOf\":["
                          "{\"type\":\"object\",\"properties\":{\"type\":{\"const\":\"A\"}}},"
                          "{\"type\":\"object\",\"properties\":{\"type\":{\"enum\":[\"B\"]}}}]}")
            << QByteArray("{\"type\":\"C\"}") << "$.type: must be one of: A, B";
    }
    void keywords()
    {
        QFETCH(QByteArray, schema);
        QFETCH(QByteArray, instance);
        QFETCH(QString, expected);
        QCOMPARE(text(check(schema, instance)), expected);
    }

    void depthIsBounded()
    {
        // A self-referencing schema over a deeply nested instance stops at the depth limit.
        const QJsonObject schema = parse("{\"properties\":{\"a\":{\"$ref\":\"#\"}}}").toObject();
        QByteArray deep;
        for (int i = 0; i < 200; ++i)
            deep += "{\"a\":";
        deep += "1";
        for (int i = 0; i < 200; ++i)
            deep += "}";
        const QJsonValue instance = QJsonDocument::fromJson(deep).object();
        QVERIFY(instance.isObject());
        const auto violations = JsonSchema(schema, 16).validate(instance);
        QCOMPARE(violations.size(), 1);
        QVERIFY(violations.first().message.startsWith("nesting too deep"));
        QVERIFY(JsonSchema(schema).inlined().isEmpty()); // cyclic: cannot inline
    }

    void formatHelpers()
    {
        QVERIFY(JsonSchema::isUuid("00000000-0000-0000-0000-000000000000"));
        QVERIFY(!JsonSchema::isUuid("00000000-0000-0000-0000-00000000000"));
        QVERIFY(!JsonSchema::isUuid("00000000-0000-0000-0000-00000000000g"));
        QVERIFY(JsonSchema::isEmail("noc@example.com"));
        QVERIFY(!JsonSchema::isEmail(QString(250, 'a') + "@example.com"));
        QVERIFY(!JsonSchema::isEmail("noc@example.com\n"));
        QVERIFY(JsonSchema::isDateTime("2030-03-18T06:43:49.980Z"));
        QVERIFY(JsonSchema::isDateTime("2030-03-18t06:43:49+05:30"));
        QVERIFY(!JsonSchema::isDateTime("2030-03-18T06:43:49+24:00"));
        QVERIFY(!JsonSchema::isDateTime("2030-04-31T06:43:49Z"));
        QVERIFY(!JsonSchema::isDateTime("2030-03-18T06:43:49Z\n"));
        QCOMPARE(JsonSchema::childPath("$", "aSide"), QString("$.aSide"));
        QCOMPARE(JsonSchema::childPath("$", "a'b"), QString("$['a\\'b']"));
        QCOMPARE(JsonSchema::indexPath("$.x", 3), QString("$.x[3]"));
    }

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

QTEST_GUILESS_MAIN(TestJsonSchema)
#include "tst_changespec_jsonschema.moc"
