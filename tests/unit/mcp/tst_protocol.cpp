// mcp::protocol: the JSON-RPC and MCP helpers every session relies on: which request ids are
// ids, the map key that makes 1 and 1.0 one id but "1" another, the compact JSON of one value,
// the served protocol versions and the RFC 5424 log levels of logging/setLevel.
#include "TestEnvironment.h"
#include "mcp/Protocol.h"

#include <QJsonArray>
#include <QJsonObject>
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
