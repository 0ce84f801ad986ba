// FabricUrl (src/fabric/FabricUrl): which hosts plain http:// may go to, what counts as the same
// origin (scheme, host and port, the scheme's default port filled in), and a URL as messages
// show it (no user info, query or fragment).
#include "TestEnvironment.h"
#include "fabric/FabricUrl.h"

#include <QTest>
#include <QUrl>

using namespace fb;

class TestFabricUrl : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void loopbackHosts_data()
    {
        QTest::addColumn<QString>("host");
        QTest::addColumn<bool>("loopback");
        QTest::newRow("localhost") << "localhost" << true;
        QTest::newRow("LocalHost") << "LocalHost" << true;
        QTest::newRow("ipv4") << "127.0.0.1" << true;
        QTest::newRow("ipv6") << "::1" << true;
        QTest::newRow("other 127") << "127.0.0.2" << false;
        QTest::newRow("localhost suffix") << "localhost.example.com" << false;
        QTest::newRow("equinix") << "api.equinix.com" << false;
        QTest::newRow("empty") << "" << false;
    }

    void loopbackHosts()
    {
        QFETCH(QString, host);
        QFETCH(bool, loopback);
        QCOMPARE(isLoopbackHost(host), loopback);
    }

    void sameOrigin_data()
    {
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::addColumn<bool>("same");
        QTest::newRow("identical") << "https://api.equinix.com/fabric/v4"
                                   << "https://api.equinix.com/oauth2/v1/token" << true;
        QTest::newRow("default https port") << "https://api.equinix.com"
                                            << "https://api.equinix.com:443/x" << true;
        QTest::newRow("default http port") << "http://localhost"
                                           << "http://localhost:80" << true;
        QTest::newRow("host case") << "https://API.Equinix.com"
                                   << "https://api.equinix.com" << true;
        QTest::newRow("scheme case") << "HTTPS://api.equinix.com"
                                     << "https://api.equinix.com" << true;
        QTest::newRow("other scheme") << "http://api.equinix.com"
                                      << "https://api.equinix.com" << false;
        QTest::newRow("other host") << "https://api.equinix.com"
                                    << "https://evil.example.com" << false;
        QTest::newRow("other port") << "https://api.equinix.com"
                                    << "https://api.equinix.com:8443" << false;
        QTest::newRow("explicit 80 on https") << "https://api.equinix.com:80"
                                              << "https://api.equinix.com" << false;
    }

    void sameOrigin()
    {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QFETCH(bool, same);
        QCOMPARE(fb::sameOrigin(QUrl(a), QUrl(b)), same);
        QCOMPARE(fb::sameOrigin(QUrl(b), QUrl(a)), same);
    }

    void displayLeavesOutSecretsAndQueries()
    {
        QCOMPARE(displayUrl(QUrl("https://id:secret@api.equinix.com/fabric/v4?token=x#frag")),
                 "https://api.equinix.com/fabric/v4");
        QCOMPARE(displayUrl(QUrl("http://127.0.0.1:8080/")), "http://127.0.0.1:8080/");
    }
};

QTEST_APPLESS_MAIN(TestFabricUrl)
#include "tst_fabricurl.moc"
