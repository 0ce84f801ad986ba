// SandboxRedact: what the sandbox's request log keeps. Credentials never enter it: a credential
// value in a query, in a JSON body at any depth or in a form body is replaced by "[REDACTED]",
// names and every other value kept; a body it cannot parse that mentions a credential name is
// dropped whole; a body without credentials is kept byte for byte.
#include "TestEnvironment.h"
#include "sandbox/SandboxRedact.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace fb;

class TestSandboxRedact : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void queryValuesOfCredentialNamesAreRedacted()
    {
        QUrlQuery q;
        q.addQueryItem(QStringLiteral("limit"), QStringLiteral("10"));
        q.addQueryItem(QStringLiteral("Client_Secret"), QStringLiteral("s3cr3t"));
        q.addQueryItem(QStringLiteral("access%5Ftoken"), QStringLiteral("tok")); // encoded name
        const QUrlQuery r = redactQuery(q);
        const auto items = r.queryItems(QUrl::FullyDecoded);
        QCOMPARE(items.size(), 3);
        QCOMPARE(items.at(0), qMakePair(QStringLiteral("limit"), QStringLiteral("10")));
        QCOMPARE(items.at(1).second, QStringLiteral("[REDACTED]"));
        QCOMPARE(items.at(2).second, QStringLiteral("[REDACTED]"));
        QVERIFY(!r.toString(QUrl::FullyEncoded).contains(QStringLiteral("s3cr3t")));
    }

    void jsonCredentialsAreRedactedAtAnyDepth()
    {
        const QByteArray body =
            R"({"name":"a","auth":{"password":"pw1","list":[{"refresh_token":"rt"},{"x":1}]},)"
            R"("ID_TOKEN":"it"})";
        const QByteArray out = redactBody(body);
        for (const char *secret : {"pw1", "\"rt\"", "\"it\""})
            QVERIFY2(!out.contains(secret), out.constData());
        const QJsonObject o = QJsonDocument::fromJson(out).object();
        QCOMPARE(o.value(QStringLiteral("name")).toString(), QStringLiteral("a"));
        QCOMPARE(o.value(QStringLiteral("ID_TOKEN")).toString(), QStringLiteral("[REDACTED]"));
        const QJsonObject auth = o.value(QStringLiteral("auth")).toObject();
        QCOMPARE(auth.value(QStringLiteral("password")).toString(), QStringLiteral("[REDACTED]"));
        QCOMPARE(auth.value(QStringLiteral("list")).toArray().at(1).toObject().value("x").toInt(),
                 1);
    }

    void bodiesWithoutCredentialsAreKeptByteForByte()
    {
        // Key order and spacing as sent: tests compare what the broker sent with the log.
        const QByteArray json = "{ \"z\": 1,  \"a\": [true, null] }";
        QCOMPARE(redactBody(json), json);
        const QByteArray text = "grant_type=client_credentials&client_id=abc";
        QCOMPARE(redactBody(text), text);
        QCOMPARE(redactBody(QByteArray()), QByteArray());
    }

    void formBodiesKeepTheirOtherFields()
    {
        const QByteArray out =
            redactBody("grant_type=client_credentials&client_id=abc&client_secret=hunter2");
        QVERIFY2(!out.contains("hunter2"), out.constData());
        const QUrlQuery form{QString::fromUtf8(out)};
        QCOMPARE(form.queryItemValue(QStringLiteral("client_id")), QStringLiteral("abc"));
        QCOMPARE(form.queryItemValue(QStringLiteral("client_secret"), QUrl::FullyDecoded),
                 QStringLiteral("[REDACTED]"));
    }

    void unparsableBodiesThatMentionACredentialAreDroppedWhole()
    {
        QCOMPARE(redactBody("{\"password\": \"pw\"  broken"), QByteArray("[REDACTED]"));
        QCOMPARE(redactBody("Authorization: Bearer xyz"), QByteArray("[REDACTED]"));
    }

    void deepJsonIsBoundedAndRedacted()
    {
        // Nesting beyond the walk's depth is replaced, never walked without bound.
        QByteArray deep;
        for (int i = 0; i < 80; ++i)
            deep += "{\"a\":";
        deep += "{\"secret\":\"s\"}";
        for (int i = 0; i < 80; ++i)
            deep += "}";
        const QByteArray out = redactBody(deep);
        QVERIFY(!out.contains("\"s\""));
    }
};

QTEST_GUILESS_MAIN(TestSandboxRedact)
#include "tst_sandboxredact.moc"
