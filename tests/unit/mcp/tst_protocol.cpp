// mcp::protocol: the JSON-RPC and MCP helpers every session relies on: which request ids are
// ids, the map key that makes 1 and 1.0 one id but "1" another, the compact JSON of one value,
// the served protocol versions, the RFC 5424 log levels of logging/setLevel, and the flat
// request subset that skips the JSON document.
#include "TestEnvironment.h"
#include "mcp/Protocol.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTest>

using namespace fb::mcp;
using namespace Qt::StringLiterals;

class TestProtocol : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void requestIds()
    {
        QVERIFY(protocol::isValidRequestId(QJsonValue(u"a"_s)));
        QVERIFY(protocol::isValidRequestId(QJsonValue(u""_s)));
        QVERIFY(protocol::isValidRequestId(QJsonValue(7)));
        QVERIFY(protocol::isValidRequestId(QJsonValue(1.5)));
        QVERIFY(!protocol::isValidRequestId(QJsonValue()));
        QVERIFY(!protocol::isValidRequestId(QJsonValue(true)));
        QVERIFY(!protocol::isValidRequestId(QJsonObject{}));
        QVERIFY(!protocol::isValidRequestId(QJsonArray{1}));
        QVERIFY(!protocol::isValidRequestId(QJsonValue(QJsonValue::Undefined)));
    }

    // What is in the flat subset (and its parts), and what must go to the document: anything
    // with params, other members, duplicates, escapes, non-ASCII, numbers the document would
    // normalise, or bytes after the object.
    void flatRequests_data()
    {
        QTest::addColumn<QByteArray>("frame");
        QTest::addColumn<bool>("flat");
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QByteArray>("id");
        QTest::addColumn<bool>("idIsString");
        const auto row = [](const char *name, const QByteArray &frame, bool flat,
                            const QByteArray &method = {}, const QByteArray &id = {},
                            bool idIsString = false) {
            QTest::newRow(name) << frame << flat << method << id << idIsString;
        };
        row("ping", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", true, "ping", "1");
        row("any order, spaces",
            " {\t\"method\" :\"tools/list\",\r\n\"id\": \"a b\" , \"jsonrpc\":\"2.0\"}\n", true,
            "tools/list", "a b", true);
        row("zero", "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\"}", true, "ping", "0");
        row("negative", "{\"jsonrpc\":\"2.0\",\"id\":-15,\"method\":\"ping\"}", true, "ping",
            "-15");
        row("15 digits", "{\"jsonrpc\":\"2.0\",\"id\":123456789012345,\"method\":\"ping\"}", true,
            "ping", "123456789012345");
        row("16 digits", "{\"jsonrpc\":\"2.0\",\"id\":1234567890123456,\"method\":\"ping\"}",
            false);
        row("leading zero", "{\"jsonrpc\":\"2.0\",\"id\":01,\"method\":\"ping\"}", false);
        row("minus zero", "{\"jsonrpc\":\"2.0\",\"id\":-0,\"method\":\"ping\"}", false);
        row("minus alone", "{\"jsonrpc\":\"2.0\",\"id\":-,\"method\":\"ping\"}", false);
        row("fraction", "{\"jsonrpc\":\"2.0\",\"id\":1.0,\"method\":\"ping\"}", false);
        row("exponent", "{\"jsonrpc\":\"2.0\",\"id\":1e3,\"method\":\"ping\"}", false);
        row("params", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{}}", false);
        row("other member", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":1}", false);
        row("duplicate id", "{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"ping\"}", false);
        row("duplicate method",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\",\"method\":\"ping\"}", false);
        row("duplicate jsonrpc",
            "{\"jsonrpc\":\"2.0\",\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", false);
        row("no id", "{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}", false);
        row("no method", "{\"jsonrpc\":\"2.0\",\"id\":1}", false);
        row("no jsonrpc", "{\"id\":1,\"method\":\"ping\"}", false);
        row("jsonrpc 1.0", "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}", false);
        row("escape in method", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"pi\\u006eg\"}", false);
        row("escape in key", "{\"json\\u0072pc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", false);
        row("escape in id", "{\"jsonrpc\":\"2.0\",\"id\":\"a\\\"b\",\"method\":\"ping\"}", false);
        row("non-ASCII", "{\"jsonrpc\":\"2.0\",\"id\":\"\xc3\xa9\",\"method\":\"ping\"}", false);
        row("control char", "{\"jsonrpc\":\"2.0\",\"id\":\"a\tb\",\"method\":\"ping\"}", false);
        row("NUL", QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"pi\0g\"}", 34), false);
        row("id null", "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", false);
        row("id true", "{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}", false);
        row("method number", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":5}", false);
        row("trailing comma", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",}", false);
        row("trailing bytes", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}x", false);
        row("two objects", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}{}", false);
        row("unterminated", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"", false);
        row("unterminated string", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping", false);
        row("batch", "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", false);
        row("empty", "", false);
        row("empty object", "{}", false);
        row("form feed", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\f", false);
    }

    void flatRequests()
    {
        QFETCH(QByteArray, frame);
        QFETCH(bool, flat);
        protocol::FlatRequest out;
        QCOMPARE(protocol::scanFlatRequest(frame, &out), flat);
        if (!flat)
            return;
        QFETCH(QByteArray, method);
        QFETCH(QByteArray, id);
        QFETCH(bool, idIsString);
        QCOMPARE(out.method.toByteArray(), method);
        QCOMPARE(out.id.toByteArray(), id);
        QCOMPARE(out.idIsString, idIsString);
        // Whatever the subset takes is valid JSON to the document too.
        QJsonParseError error;
        QJsonDocument::fromJson(frame, &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
    }

    // Differential: 200,000 seeded mutations of flat frames (a byte replaced, inserted or
    // removed, from an alphabet of JSON's own characters). Whatever the subset takes, the
    // document reads as an object of exactly jsonrpc "2.0", that method and that id.
    void flatSubsetAgreesWithTheDocument()
    {
        const QList<QByteArray> seeds = {
            "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"ping\"}",
            "{ \"method\" : \"tools/list\" , \"id\" : \"x1\" , \"jsonrpc\" : \"2.0\" }",
            "{\"id\":-3,\"jsonrpc\":\"2.0\",\"method\":\"a\"}",
        };
        const QByteArray alphabet = QByteArrayLiteral("{}[]:,\"\\ \t\r\n-+.eE0123456789aijdmo"
                                                      "nprst/u\x00\x7f\xc3\xa9");
        QRandomGenerator rng(35);
        int taken = 0;
        for (int i = 0; i < 200000; ++i) {
            QByteArray frame = seeds.at(int(rng.bounded(seeds.size())));
            const int edits = 1 + int(rng.bounded(3));
            for (int e = 0; e < edits && !frame.isEmpty(); ++e) {
                const qsizetype at = rng.bounded(int(frame.size()));
                const char c = alphabet.at(int(rng.bounded(alphabet.size())));
                switch (rng.bounded(3)) {
                case 0:
                    frame[at] = c;
                    break;
                case 1:
                    frame.insert(at, c);
                    break;
                default:
                    frame.remove(at, 1);
                    break;
                }
            }
            protocol::FlatRequest out;
            if (!protocol::scanFlatRequest(frame, &out))
                continue;
            ++taken;
            QJsonParseError error;
            const QJsonDocument doc = QJsonDocument::fromJson(frame, &error);
            QVERIFY2(error.error == QJsonParseError::NoError && doc.isObject(), frame.constData());
            const QJsonObject o = doc.object();
            QVERIFY2(o.size() == 3 && o.value(u"jsonrpc"_s) == u"2.0"_s, frame.constData());
            QVERIFY2(o.value(u"method"_s) == QString::fromLatin1(out.method), frame.constData());
            const QJsonValue id = out.idIsString ? QJsonValue(QString::fromLatin1(out.id))
                                                 : QJsonValue(out.id.toLongLong());
            QVERIFY2(o.value(u"id"_s) == id, frame.constData());
            QVERIFY2(protocol::valueToJson(o.value(u"id"_s)) == protocol::valueToJson(id),
                     frame.constData());
        }
        QVERIFY2(taken > 1000, QByteArray::number(taken)); // the mutations reach the subset
    }

    void idKeys()
    {
        QCOMPARE(protocol::idKey(QJsonValue(1)), protocol::idKey(QJsonValue(1.0)));
        QVERIFY(protocol::idKey(QJsonValue(u"1"_s)) != protocol::idKey(QJsonValue(1)));
        QCOMPARE(protocol::idKey(QJsonValue(u"1"_s)), u"s1"_s);
        QCOMPARE(protocol::idKey(QJsonValue(-42)), u"i-42"_s);
        QCOMPARE(protocol::idKey(QJsonValue(1.5)), u"d1.5"_s);
        QVERIFY(protocol::idKey(QJsonValue(1.5)) != protocol::idKey(QJsonValue(1)));
        // Beyond 64-bit integers the id stays a double, never a wrapped integer.
        QVERIFY(protocol::idKey(QJsonValue(1e19)).startsWith(u'd'));
        QCOMPARE(protocol::idKey(QJsonValue(9007199254740992.0)), u"i9007199254740992"_s);
    }

    void valueToJson()
    {
        QCOMPARE(protocol::valueToJson(QJsonValue(u"a\"b\n"_s)), QByteArray("\"a\\\"b\\n\""));
        QCOMPARE(protocol::valueToJson(QJsonValue(3)), QByteArray("3"));
        QCOMPARE(protocol::valueToJson(QJsonValue(1.5)), QByteArray("1.5"));
        QCOMPARE(protocol::valueToJson(QJsonValue()), QByteArray("null"));
        QCOMPARE(protocol::valueToJson(QJsonObject{{u"k"_s, true}}), QByteArray("{\"k\":true}"));
        QCOMPARE(protocol::valueToJson(QJsonArray{1, u"x"_s}), QByteArray("[1,\"x\"]"));
    }

    void versions()
    {
        const QStringList v = protocol::supportedVersions();
        QCOMPARE(protocol::latestVersion(), v.constFirst());
        QVERIFY(v.contains(protocol::batchVersion()));
        QVERIFY(v.contains(u"2024-11-05"_s));
        QStringList sorted = v;
        std::sort(sorted.begin(), sorted.end(), std::greater<>());
        QCOMPARE(v, sorted); // newest first
    }

    void logLevels()
    {
        QCOMPARE(protocol::logLevels().size(), 8);
        QCOMPARE(protocol::logLevelIndex(u"debug"), 0);
        QCOMPARE(protocol::logLevelIndex(u"warning"), 3);
        QCOMPARE(protocol::logLevelIndex(u"emergency"), 7);
        QCOMPARE(protocol::logLevelIndex(u"Debug"), -1);
        QCOMPARE(protocol::logLevelIndex(u"warn"), -1);
        QCOMPARE(protocol::logLevelIndex(u""), -1);
        for (qsizetype i = 0; i < protocol::logLevels().size(); ++i)
            QCOMPARE(protocol::logLevelIndex(protocol::logLevels().at(i)), i);
    }
};

QTEST_GUILESS_MAIN(TestProtocol)
#include "tst_protocol.moc"
