// The keychain stores (src/keychain) against a real Secret Service, linked without Qt Widgets
// (what `fabric-broker team key` and the headless parts use): gnome-keyring-daemon on a private
// D-Bus session of this test, its HOME and XDG folders in a scratch folder (never the real
// user's keyrings), its login keyring unlocked with a throwaway password. The approval key is
// made once and read back (never made again), a keychain entry that is not a key is refused, and
// the Fabric credentials and the team password are written, read and removed.
#include "TestEnvironment.h"
#include "keychain/ApproverKeyStore.h"
#include "keychain/CredentialStore.h"
#include "team/ApprovalKeys.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <qt6keychain/keychain.h>

using namespace fb;
using namespace fb::keychain;

namespace {

// One private D-Bus session with gnome-keyring-daemon's secrets component on it.
class SecretService {
public:
    ~SecretService()
    {
        for (QProcess *p : {&m_keyring, &m_bus}) {
            if (p->state() == QProcess::NotRunning)
                continue;
            p->terminate();
            if (!p->waitForFinished(5000)) {
                p->kill();
                p->waitForFinished(5000);
            }
        }
    }

    // Starts both in dir; the bus address, or empty with why.
    QByteArray start(const QString &dir, QString *why)
    {
        const QString busDir = dir + QStringLiteral("/bus");
        const QString home = dir + QStringLiteral("/home");
        QDir().mkpath(busDir + QStringLiteral("/services"));
        QDir().mkpath(home);
        QFile config(busDir + QStringLiteral("/session.conf"));
        if (!config.open(QIODevice::WriteOnly))
            return fail(why, config.errorString());
        // Only this test's (empty) service folder: nothing of the real user's is activated.
        config.write(
            QStringLiteral(
                R"(<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=%1</listen>
  <auth>EXTERNAL</auth>
  <servicedir>%1/services</servicedir>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
)")
                .arg(busDir)
                .toUtf8());
        config.close();
        QProcessEnvironment env;
        env.insert(QStringLiteral("PATH"), qEnvironmentVariable("PATH"));
        env.insert(QStringLiteral("HOME"), home);
        env.insert(QStringLiteral("XDG_RUNTIME_DIR"), home);
        m_bus.setProcessEnvironment(env);
        m_bus.start(QStringLiteral("dbus-daemon"),
                    {QStringLiteral("--config-file=") + config.fileName(),
                     QStringLiteral("--nofork"), QStringLiteral("--print-address")});
        QDeadlineTimer deadline(20000);
        while (!m_bus.canReadLine() && m_bus.state() != QProcess::NotRunning &&
               !deadline.hasExpired())
            m_bus.waitForReadyRead(100);
        const QByteArray address = m_bus.readLine().trimmed();
        if (!address.startsWith("unix:"))
            return fail(why, QStringLiteral("dbus-daemon printed \"%1\": %2")
                                 .arg(QString::fromUtf8(address),
                                      QString::fromLocal8Bit(m_bus.readAllStandardError())));

        for (const char *folder : {"data", "config", "cache"})
            env.insert(QStringLiteral("XDG_%1_HOME").arg(QString::fromLatin1(folder).toUpper()),
                       home + u'/' + QString::fromLatin1(folder));
        env.insert(QStringLiteral("LANG"), QStringLiteral("C.UTF-8"));
        env.insert(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"), QString::fromUtf8(address));
        m_keyring.setProcessEnvironment(env);
        m_keyring.setProcessChannelMode(QProcess::MergedChannels);
        m_keyring.start(QStringLiteral("gnome-keyring-daemon"),
                        {QStringLiteral("--foreground"), QStringLiteral("--unlock"),
                         QStringLiteral("--components=secrets")});
        if (!m_keyring.waitForStarted(10000))
            return fail(why, m_keyring.errorString());
        m_keyring.write("test-keyring-password");
        m_keyring.closeWriteChannel();
        // Ready when its default collection answers unlocked on the bus.
        QString state;
        while ((state = defaultCollection(address)) != u"unlocked") {
            if (deadline.hasExpired() || m_keyring.state() == QProcess::NotRunning)
                return fail(why, QStringLiteral("gnome-keyring-daemon did not serve an unlocked "
                                                "default collection (%1): %2")
                                     .arg(state, QString::fromLocal8Bit(m_keyring.readAll())));
            QTest::qWait(100);
        }
        return address;
    }

private:
    static QByteArray fail(QString *why, const QString &text)
    {
        *why = text;
        return {};
    }

    static QString defaultCollection(const QByteArray &address)
    {
        QProcess send;
        send.start(QStringLiteral("dbus-send"),
                   {QStringLiteral("--bus=") + QString::fromUtf8(address),
                    QStringLiteral("--print-reply"),
                    QStringLiteral("--dest=org.freedesktop.secrets"),
                    QStringLiteral("/org/freedesktop/secrets/aliases/default"),
                    QStringLiteral("org.freedesktop.DBus.Properties.Get"),
                    QStringLiteral("string:org.freedesktop.Secret.Collection"),
                    QStringLiteral("string:Locked")});
        if (!send.waitForFinished(10000)) {
            send.kill();
            send.waitForFinished();
            return QStringLiteral("no answer in 10 s");
        }
        if (send.exitCode() != 0)
            return QStringLiteral("no answer");
        const QByteArray out = send.readAllStandardOutput();
        return out.contains("boolean false") ? QStringLiteral("unlocked")
                                             : QString::fromUtf8(out.trimmed());
    }

    QProcess m_bus;
    QProcess m_keyring;
};

struct Loaded {
    int calls = 0;
    bool ok = false;
    QByteArray key;
    bool created = false;
    QString error;
};

Loaded load(ApproverKeyStore &store, bool create)
{
    Loaded r;
    store.load(create, [&r](bool ok, const QByteArray &key, bool created, const QString &error) {
        ++r.calls;
        r.ok = ok;
        r.key = key;
        r.created = created;
        r.error = error;
    });
    [&r] { QTRY_VERIFY_WITH_TIMEOUT(r.calls > 0, 20000); }();
    return r;
}

} // namespace

class TestKeychainSecretService : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QString why;
        const QByteArray address = m_service.start(m_dir.path(), &why);
        QVERIFY2(!address.isEmpty(), qPrintable(why));
        // QtKeychain (libsecret) connects to the session bus on its first job: this one.
        qputenv("DBUS_SESSION_BUS_ADDRESS", address);
    }
    void init() { fbtest::failOnWarnings(); }

    void approvalKeyIsMadeOnceThenReadBack()
    {
        ApproverKeyStore store(QStringLiteral("fabric-broker-test-keys"));
        const Loaded missing = load(store, false);
        QCOMPARE(missing.calls, 1);
        QVERIFY(!missing.ok);
        QVERIFY2(missing.error.contains(QStringLiteral("run 'fabric-broker team key'")),
                 qPrintable(missing.error));

        const Loaded first = load(store, true);
        QVERIFY2(first.ok, qPrintable(first.error));
        QVERIFY(first.created);
        QCOMPARE(first.key.size(), team::ApprovalKeys::KeyBytes);
        QVERIFY(team::ApprovalKeys::publicKeyOf(first.key));

        // Kept, not made again: by the same store, and by a new one (the next `team key`).
        const Loaded again = load(store, true);
        QVERIFY2(again.ok, qPrintable(again.error));
        QVERIFY(!again.created);
        QCOMPARE(again.key, first.key);
        ApproverKeyStore other(QStringLiteral("fabric-broker-test-keys"));
        const Loaded read = load(other, false);
        QVERIFY2(read.ok, qPrintable(read.error));
        QCOMPARE(read.key, first.key);
        QTest::qWait(50);
        QCOMPARE(first.calls + again.calls + read.calls, 3);

        // Another service (another app's keychain entries) has its own key.
        ApproverKeyStore elsewhere(QStringLiteral("fabric-broker-test-other"));
        const Loaded made = load(elsewhere, true);
        QVERIFY2(made.ok && made.created, qPrintable(made.error));
        QVERIFY(made.key != first.key);
    }

    void entryThatIsNotAKeyIsRefused()
    {
        const QString service = QStringLiteral("fabric-broker-test-bad");
        auto *job = new QKeychain::WritePasswordJob(service);
        job->setAutoDelete(true);
        job->setInsecureFallback(false);
        job->setKey(QString::fromLatin1(ApproverKeyStore::EntryName));
        job->setBinaryData(QByteArray(31, 'k').toBase64());
        bool written = false;
        connect(job, &QKeychain::Job::finished, this, [&written](QKeychain::Job *j) {
            QCOMPARE(j->error(), QKeychain::NoError);
            written = true;
        });
        job->start();
        QTRY_VERIFY_WITH_TIMEOUT(written, 20000);

        ApproverKeyStore store(service);
        const Loaded r = load(store, true); // never replaced by a new key
        QVERIFY(!r.ok);
        QVERIFY(r.key.isEmpty());
        QVERIFY2(r.error.contains(QStringLiteral("is not an Ed25519 key")), qPrintable(r.error));
    }

    void credentialsAndTeamPasswordRoundTrip()
    {
        CredentialStore store(QStringLiteral("fabric-broker-test-credentials"));
        auto write = [&](const FabricCredentials &c) {
            int calls = 0;
            bool ok = false;
            QString error;
            store.write(c, [&](bool o, const QString &e) {
                ++calls;
                ok = o;
                error = e;
            });
            QTRY_COMPARE_WITH_TIMEOUT(calls, 1, 20000);
            QVERIFY2(ok, qPrintable(error));
        };
        auto read = [&] {
            int calls = 0;
            FabricCredentials got{QStringLiteral("unread"), {}};
            store.read([&](bool ok, const FabricCredentials &c, const QString &error) {
                ++calls;
                QVERIFY2(ok, qPrintable(error));
                got = c;
            });
            [&] { QTRY_COMPARE_WITH_TIMEOUT(calls, 1, 20000); }();
            return got;
        };
        write({QStringLiteral("client-id"), QStringLiteral("s3cret \u00e9")});
        FabricCredentials got = read();
        QCOMPARE(got.clientId, QStringLiteral("client-id"));
        QCOMPARE(got.clientSecret, QStringLiteral("s3cret \u00e9"));

        auto password = [&] {
            int calls = 0;
            QString value;
            store.readTeamPassword([&](bool ok, const QString &p, const QString &error) {
                ++calls;
                QVERIFY2(ok, qPrintable(error));
                value = p;
            });
            [&] { QTRY_COMPARE_WITH_TIMEOUT(calls, 1, 20000); }();
            return value;
        };
        auto writePassword = [&](const QString &p) {
            int calls = 0;
            store.writeTeamPassword(p, [&](bool ok, const QString &error) {
                ++calls;
                QVERIFY2(ok, qPrintable(error));
            });
            QTRY_COMPARE_WITH_TIMEOUT(calls, 1, 20000);
        };
        QCOMPARE(password(), QString()); // missing reads as empty
        writePassword(QStringLiteral("team-pw"));
        QCOMPARE(password(), QStringLiteral("team-pw"));
        QCOMPARE(read().clientId, QStringLiteral("client-id")); // its own entry

        // Removing: both Fabric entries go, the team password stays until written empty.
        int removed = 0;
        store.remove([&](bool ok, const QString &error) {
            ++removed;
            QVERIFY2(ok, qPrintable(error));
        });
        QTRY_COMPARE_WITH_TIMEOUT(removed, 1, 20000);
        got = read();
        QVERIFY(got.isEmpty());
        QCOMPARE(password(), QStringLiteral("team-pw"));
        writePassword({});
        QCOMPARE(password(), QString());
    }

private:
    QTemporaryDir m_dir;
    SecretService m_service; // after m_dir: stopped before the folder goes
};

QTEST_GUILESS_MAIN(TestKeychainSecretService)
#include "tst_keychain_secretservice.moc"
