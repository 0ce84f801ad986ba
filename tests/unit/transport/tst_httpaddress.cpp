// HttpAddress: the address the HTTP transport binds, loopback only (127.0.0.1, [::1] or
// localhost with a port); anything else refused with a reason.
#include "TestEnvironment.h"
#include "transport/http/HttpAddress.h"

#include <QHostAddress>
#include <QTest>

using namespace fb::transport;

class TestHttpAddress : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void parseAddress();
};

void TestHttpAddress::parseAddress()
{
    QHostAddress a;
    quint16 p = 1;
    QString error;
    QVERIFY(HttpAddress::parse("127.0.0.1:0", &a, &p, &error));
    QCOMPARE(a, QHostAddress(QHostAddress::LocalHost));
    QCOMPARE(p, 0);
    QVERIFY(HttpAddress::parse("[::1]:8080", &a, &p, &error));
    QCOMPARE(a, QHostAddress(QHostAddress::LocalHostIPv6));
    QCOMPARE(p, 8080);
    QVERIFY(HttpAddress::parse("localhost:9", &a, &p, &error));
    QCOMPARE(a, QHostAddress(QHostAddress::LocalHost));
    for (const char *bad : {"0.0.0.0:80", "10.1.2.3:80", "[::]:80", "example.com:80", "127.0.0.1",
                            "127.0.0.1:70000", "127.0.0.1:x", ""}) {
        error.clear();
        QVERIFY2(!HttpAddress::parse(bad, &a, &p, &error), bad);
        QVERIFY(!error.isEmpty());
    }
}

QTEST_GUILESS_MAIN(TestHttpAddress)
#include "tst_httpaddress.moc"
