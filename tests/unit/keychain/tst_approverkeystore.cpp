// ApproverKeyStore (src/keychain) without a keychain: `fabric-broker team key` in a build or on
// a machine without one fails with the keychain's reason, once, and makes no key. Links the
// keychain library alone, no Qt Widgets or Gui. The real Secret Service (a key made once, then
// read back): tests/integration/keychain.
#include "TestEnvironment.h"
#include "keychain/ApproverKeyStore.h"

#include <QTemporaryDir>
#include <QTest>

using namespace fb::keychain;

class TestApproverKeyStore : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        qputenv("DBUS_SESSION_BUS_ADDRESS",
                QFile::encodeName(QStringLiteral("unix:path=%1/no-bus").arg(m_dir.path())));
    }
    void init() { fbtest::failOnWarnings(); }

    void withoutKeychainLoadFailsOnce_data()
    {
        QTest::addColumn<bool>("create");
        QTest::newRow("read") << false;
        QTest::newRow("create") << true;
    }
    void withoutKeychainLoadFailsOnce()
    {
        QFETCH(bool, create);
        ApproverKeyStore store(
            QStringLiteral("fabric-broker-test-%1").arg(QCoreApplication::applicationPid()));
        int calls = 0;
        bool gotOk = true;
        bool gotCreated = true;
        QByteArray key = "x";
        QString why;
        store.load(create,
                   [&](bool ok, const QByteArray &privateKey, bool created, const QString &error) {
                       ++calls;
                       gotOk = ok;
                       key = privateKey;
                       gotCreated = created;
                       why = error;
                   });
        QCOMPARE(calls, 0);
        QTRY_COMPARE_WITH_TIMEOUT(calls, 1, 10000);
        QVERIFY(!gotOk);
        QVERIFY(key.isEmpty());
        QVERIFY(!gotCreated);
        QVERIFY2(why.contains(QStringLiteral("no keychain service answered")), qPrintable(why));
    }

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestApproverKeyStore)
#include "tst_approverkeystore.moc"
