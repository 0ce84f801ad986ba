// JsonSchema (src/core/JsonSchema, JsonSchemaFormats, JsonSchemaInline): the validator the
// change specs and tool arguments are checked with, on its own: every keyword's semantics and
// message with its JSON path, the depth bound on self-referencing schemas (which cannot be
// inlined), and the format helpers and path spellings.
#include "TestEnvironment.h"
#include "jsonschema_fixtures.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace fb;
using fbtest::check;
using fbtest::parse;
using fbtest::text;

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
};

QTEST_GUILESS_MAIN(TestJsonSchema)
#include "tst_jsonschema.moc"
