// CredentialStore (src/keychain) without a keychain: what a failed keychain job says (what is
// missing, and how to do without it), and that with no Secret Service at all (no D-Bus session)
// every call answers exactly once, later, with ok = false and that text, and nothing read. Links
// the keychain library alone: no Qt Widgets or Gui (keychain_links_without_widgets checks the
// binary). The real Secret Service: tests/integration/keychain.
#include "TestEnvironment.h"
#include "keychain/CredentialStore.h"

#include <QTemporaryDir>
#include <QTest>
#include <qt6keychain/keychain.h>

using namespace fb::keychain;

class TestCredentialStore : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // No D-Bus session: QtKeychain finds no keychain, as on a bare server.
        qputenv("DBUS_SESSION_BUS_ADDRESS",
                QFile::encodeName(QStringLiteral("unix:path=%1/no-bus").arg(m_dir.path())));
    }
    void init() { fbtest::failOnWarnings({QStringLiteral("keychain read failed:")}); }

    void failureTextSaysWhatIsMissing()
    {
        const QString none =
            CredentialStore::failureText(QKeychain::NoBackendAvailable, QStringLiteral("detail"));
        for (const char *word :
             {"no keychain service answered (detail)", "Secret Service", "GNOME Keyring",
              "KeePassXC", "KWallet", "EQUINIX_API_CLIENTID", "EQUINIX_API_CLIENTSECRET"})
            QVERIFY2(none.contains(QLatin1String(word)), qPrintable(none));
        QCOMPARE(CredentialStore::failureText(QKeychain::OtherError, QStringLiteral("detail")),
                 none);
        const QString denied =
            CredentialStore::failureText(QKeychain::AccessDenied, QStringLiteral("no"));
        QVERIFY2(denied.startsWith(QStringLiteral("the keychain refused access (no).")),
                 qPrintable(denied));
        QVERIFY(denied.contains(QStringLiteral("EQUINIX_API_CLIENTID")));
        QCOMPARE(CredentialStore::failureText(QKeychain::AccessDeniedByUser, QStringLiteral("no")),
                 denied);
    }

    void withoutKeychainEveryCallFailsOnce()
    {
        CredentialStore store(
            QStringLiteral("fabric-broker-test-%1").arg(QCoreApplication::applicationPid()));
        int reads = 0;
        bool readOk = true;
        FabricCredentials read{QStringLiteral("x"), QStringLiteral("y")};
        QString readError;
        store.read([&](bool ok, const FabricCredentials &c, const QString &error) {
            ++reads;
            readOk = ok;
            read = c;
            readError = error;
        });
        QCOMPARE(reads, 0); // asynchronous: never from inside the call
        QTRY_COMPARE_WITH_TIMEOUT(reads, 1, 10000);
        QVERIFY(!readOk);
        QVERIFY(read.isEmpty());
        QVERIFY2(readError.contains(QStringLiteral("EQUINIX_API_CLIENTID")), qPrintable(readError));

        int writes = 0;
        bool writeOk = true;
        store.write({QStringLiteral("id"), QStringLiteral("secret")},
                    [&](bool ok, const QString &) {
                        ++writes;
                        writeOk = ok;
                    });
        QTRY_COMPARE_WITH_TIMEOUT(writes, 1, 10000);
        QVERIFY(!writeOk);

        int passwords = 0;
        bool passwordOk = true;
        QString password = QStringLiteral("x");
        store.readTeamPassword([&](bool ok, const QString &p, const QString &) {
            ++passwords;
            passwordOk = ok;
            password = p;
        });
        QTRY_COMPARE_WITH_TIMEOUT(passwords, 1, 10000);
        QVERIFY(!passwordOk);
        QVERIFY(password.isEmpty());

        QCOMPARE(reads + writes + passwords, 3);
    }

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestCredentialStore)
#include "tst_credentialstore.moc"
