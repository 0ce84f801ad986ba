// HttpMessages: the message rules of the Streamable HTTP transport, pure: JSON-RPC error bodies,
// the shape check of posted messages, the protocol version an envelope claims, the Mcp-Name
// field per method and its Base64 sentinel, the HTTP status of a 2026-07-28 error, and the first
// disagreement between a modern message and its standard headers.
#include "TestEnvironment.h"
#include "transport/http/HttpMessages.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace fb::transport::http;

namespace {

QJsonValue json(const char *text)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray(text), &error);
    return doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(doc.array());
}

// A modern tools/call named `name` (id 1, or a notification when id is false).
QJsonObject modernCall(const QString &name, bool withId = true)
{
    QJsonObject m{
        {"jsonrpc", "2.0"}, {"method", "tools/call"}, {"params", QJsonObject{{"name", name}}}};
    if (withId)
        m.insert("id", 1);
    return m;
}

} // namespace

class TestHttpMessages : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void reasonPhrases()
    {
        QCOMPARE(reasonPhrase(200), QByteArray("OK"));
        QCOMPARE(reasonPhrase(413), QByteArray("Content Too Large"));
        QCOMPARE(reasonPhrase(406), QByteArray("Not Acceptable"));
        QCOMPARE(reasonPhrase(503), QByteArray("Service Unavailable"));
        QCOMPARE(reasonPhrase(418), QByteArray("Error"));
    }

    void rpcErrorBody()
    {
        const QJsonObject e = QJsonDocument::fromJson(rpcError(7, -32600, "bad")).object();
        QCOMPARE(e.value("jsonrpc").toString(), QStringLiteral("2.0"));
        QCOMPARE(e.value("id").toInt(), 7);
        QCOMPARE(e.value("error").toObject().value("code").toInt(), -32600);
        QCOMPARE(e.value("error").toObject().value("message").toString(), QStringLiteral("bad"));
        QVERIFY(!e.value("error").toObject().contains("data")); // no data, not a null one
        QVERIFY(!QJsonDocument::fromJson(rpcError(7, -1, "x", QJsonValue::Null))
                     .object()
                     .value("error")
                     .toObject()
                     .contains("data"));
        const QJsonObject withData =
            QJsonDocument::fromJson(rpcError(QJsonValue::Null, -32020, "m", QJsonObject{{"a", 1}}))
                .object();
        QVERIFY(withData.value("id").isNull());
        QCOMPARE(withData.value("error").toObject().value("data").toObject().value("a").toInt(), 1);
    }

    void validMessages_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("valid");
        QTest::newRow("request") << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"ping"})")
                                 << true;
        QTest::newRow("string id")
            << QByteArray(R"({"jsonrpc":"2.0","id":"a","method":"m","params":{}})") << true;
        QTest::newRow("notification")
            << QByteArray(R"({"jsonrpc":"2.0","method":"notifications/initialized"})") << true;
        QTest::newRow("result") << QByteArray(R"({"jsonrpc":"2.0","id":1,"result":{}})") << true;
        QTest::newRow("error")
            << QByteArray(R"({"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}})") << true;
        QTest::newRow("no version") << QByteArray(R"({"id":1,"method":"ping"})") << false;
        QTest::newRow("version 1.0")
            << QByteArray(R"({"jsonrpc":"1.0","id":1,"method":"ping"})") << false;
        QTest::newRow("object id")
            << QByteArray(R"({"jsonrpc":"2.0","id":{},"method":"m"})") << false;
        QTest::newRow("method not a string")
            << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":3})") << false;
        QTest::newRow("params an array")
            << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"m","params":[1]})") << false;
        QTest::newRow("response without id")
            << QByteArray(R"({"jsonrpc":"2.0","result":{}})") << false;
        QTest::newRow("id alone") << QByteArray(R"({"jsonrpc":"2.0","id":1})") << false;
        QTest::newRow("array") << QByteArray(R"([{"jsonrpc":"2.0","method":"m"}])") << false;
    }

    void validMessages()
    {
        QFETCH(QByteArray, text);
        QFETCH(bool, valid);
        QCOMPARE(validMessage(json(text.constData())), valid);
    }

    void envelopeAndVersions()
    {
        QJsonObject m = modernCall("echo");
        QVERIFY(envelopeClaim(m).isUndefined());
        m["params"] =
            QJsonObject{{"name", "echo"},
                        {"_meta", QJsonObject{{EnvelopeVersionKey, QStringLiteral("2026-07-28")}}}};
        QCOMPARE(envelopeClaim(m).toString(), QStringLiteral("2026-07-28"));
        QVERIFY(isModernVersion("2026-07-28"));
        QVERIFY(isModernVersion("2026-01-01"));
        QVERIFY(!isModernVersion("2025-11-25"));
        QVERIFY(!isModernVersion("2025-12-31"));
    }

    void nameFields()
    {
        QCOMPARE(nameField("tools/call"), QStringLiteral("name"));
        QCOMPARE(nameField("prompts/get"), QStringLiteral("name"));
        QCOMPARE(nameField("resources/read"), QStringLiteral("uri"));
        QCOMPARE(nameField("tasks/get"), QStringLiteral("taskId"));
        QCOMPARE(nameField("tasks/list"), QString());
        QCOMPARE(nameField("tools/list"), QString());
    }

    void paramValues()
    {
        QCOMPARE(decodeParamValue("echo"), std::optional<QString>(QStringLiteral("echo")));
        QCOMPARE(decodeParamValue("  echo \t"), std::optional<QString>(QStringLiteral("echo")));
        const QByteArray sentinel = "=?base64?" + QStringLiteral("ünï").toUtf8().toBase64() + "?=";
        QCOMPARE(decodeParamValue(sentinel), std::optional<QString>(QStringLiteral("ünï")));
        const QByteArray emptySentinel = QByteArray("=?base64?") + "?=";
        QCOMPARE(decodeParamValue(emptySentinel), std::optional<QString>(QString()));
        QVERIFY(!decodeParamValue("=?base64?!!!?="));
        // Not a whole sentinel: the plain value.
        QCOMPARE(decodeParamValue("=?base64?abc"),
                 std::optional<QString>(QStringLiteral("=?base64?abc")));
    }

    void errorStatuses()
    {
        const auto status = [](int code) { return modernErrorStatus(rpcError(1, code, "m")); };
        QCOMPARE(status(-32601), 404);
        for (int code : {-32700, -32600, -32022, -32021, -32020})
            QCOMPARE(status(code), 400);
        QCOMPARE(status(-32602), 200); // invalid params: in-band
        QCOMPARE(status(-32603), 200);
        QCOMPARE(modernErrorStatus("not json"), 200);
    }

    void headerMismatches()
    {
        const QString v = QStringLiteral("2026-07-28");
        const QJsonObject call = modernCall("echo");
        QVERIFY(!modernHeaderMismatch(call, v, "2026-07-28", "tools/call", "echo"));
        QVERIFY(!modernHeaderMismatch(call, v, "2026-07-28", "tools/call", "=?base64?ZWNobw==?="));
        // Each header that disagrees, named with its value.
        auto m = modernHeaderMismatch(call, v, "2025-11-25", "tools/call", "echo");
        QVERIFY(m);
        QCOMPARE(m->header, QStringLiteral("2025-11-25"));
        QVERIFY(m->what.contains("MCP-Protocol-Version"));
        m = modernHeaderMismatch(call, v, "2026-07-28", "tools/list", "echo");
        QVERIFY(m);
        QCOMPARE(m->header, QStringLiteral("tools/list"));
        m = modernHeaderMismatch(call, v, "2026-07-28", "tools/call", "other");
        QVERIFY(m);
        QVERIFY(m->what.contains("differ"));
        m = modernHeaderMismatch(call, v, "2026-07-28", "tools/call", "=?base64?%%?=");
        QVERIFY(m);
        QVERIFY(m->what.contains("Base64"));
        // A request needs every header; the missing one is named.
        for (const auto &[version, method, name, what] :
             {std::tuple{"", "tools/call", "echo", "MCP-Protocol-Version"},
              std::tuple{"2026-07-28", "", "echo", "Mcp-Method"},
              std::tuple{"2026-07-28", "tools/call", "", "Mcp-Name"}}) {
            m = modernHeaderMismatch(call, v, version, method, name);
            QVERIFY2(m, what);
            QCOMPARE(m->header, QStringLiteral("(missing)"));
            QVERIFY2(m->what.contains(QLatin1String(what)), qPrintable(m->what));
        }
        // A method without a name field needs no Mcp-Name.
        const QJsonObject list{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/list"}};
        QVERIFY(!modernHeaderMismatch(list, v, "2026-07-28", "tools/list", ""));
        // A notification needs none of them, but those present must agree.
        const QJsonObject note = modernCall("echo", false);
        QVERIFY(!modernHeaderMismatch(note, v, "", "", ""));
        QVERIFY(modernHeaderMismatch(note, v, "2025-06-18", "", ""));
        QVERIFY(modernHeaderMismatch(note, v, "", "tools/list", ""));
    }
};

QTEST_GUILESS_MAIN(TestHttpMessages)
#include "tst_httpmessages.moc"
