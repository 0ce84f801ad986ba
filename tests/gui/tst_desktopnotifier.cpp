// DesktopNotifier against a notification service on a private D-Bus session bus (a dbus-daemon of
// this suite, no service folder of the system's: nothing real is activated or shown). The fake
// service records each call as the specification defines it. What is sent: the app name, a
// summary and body made inert (bounded, invisible characters escaped, one body line per line;
// '&', '<', '>' as entities only when the service declares body-markup), the one action
// "default" labelled Open and never one that approves; the same key replaces its notification,
// withdraw() closes it. What is taken: ActionInvoked "default" of its own ids from the service
// that owns the name opens the key; another program's ids, other actions and the same signal
// sent by a program that does not own the name do nothing; NotificationClosed forgets the key.
// Without a service or a bus: nothing is shown, nothing crashes, one info line is logged.
#include "TestEnvironment.h"
#include "gui/DesktopNotifier.h"

#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDeadlineTimer>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace fb;
using namespace Qt::StringLiterals;

namespace {

// The bus configuration: listens in dir, activates nothing, lets the test own any name.
QByteArray busConfig(const QString &dir)
{
    return (u"<busconfig>\n"
            "  <type>session</type>\n"
            "  <listen>unix:dir="_s +
            dir +
            u"</listen>\n"
            "  <auth>EXTERNAL</auth>\n"
            "  <policy context=\"default\">\n"
            "    <allow send_destination=\"*\" eavesdrop=\"true\"/>\n"
            "    <allow eavesdrop=\"true\"/>\n"
            "    <allow own=\"*\"/>\n"
            "  </policy>\n"
            "</busconfig>\n"_s)
        .toUtf8();
}

struct NotifyCall {
    QString appName;
    uint replacesId = 0;
    QString icon;
    QString summary;
    QString body;
    QStringList actions;
    QVariantMap hints;
    int timeout = 0;
};

} // namespace

// org.freedesktop.Notifications as the specification defines it, recording what it is asked.
class FakeNotifications : public QObject {
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "org.freedesktop.Notifications")
public:
    QStringList capabilities{u"body"_s, u"body-markup"_s, u"actions"_s};
    QList<NotifyCall> notifies;
    QList<uint> closed;
    int capabilityCalls = 0;
    uint nextId = 41;

public slots:
    QStringList GetCapabilities()
    {
        ++capabilityCalls;
        return capabilities;
    }
    uint Notify(const QString &appName, uint replacesId, const QString &icon,
                const QString &summary, const QString &body, const QStringList &actions,
                const QVariantMap &hints, int timeout)
    {
        notifies.append({appName, replacesId, icon, summary, body, actions, hints, timeout});
        return replacesId != 0 ? replacesId : ++nextId;
    }
    void CloseNotification(uint id) { closed.append(id); }
};

class TestDesktopNotifier : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QProcess m_daemon;
    QString m_address;
    int m_connections = 0;
    FakeNotifications *m_fake = nullptr;
    std::optional<QDBusConnection> m_service;

    QDBusConnection connect(const QString &what)
    {
        return QDBusConnection::connectToBus(m_address, what + QString::number(++m_connections));
    }

    // The fake service on a connection of its own (the one owning the name).
    bool startService(const QStringList &capabilities)
    {
        stopService();
        m_fake = new FakeNotifications;
        m_fake->capabilities = capabilities;
        m_service = connect(u"service"_s);
        return m_service->registerObject(DesktopNotifier::Path, m_fake,
                                         QDBusConnection::ExportAllSlots) &&
               m_service->registerService(DesktopNotifier::Service);
    }
    void stopService()
    {
        if (m_service) {
            m_service->unregisterService(DesktopNotifier::Service);
            m_service->unregisterObject(DesktopNotifier::Path);
            QDBusConnection::disconnectFromBus(m_service->name());
            m_service.reset();
        }
        delete m_fake;
        m_fake = nullptr;
    }

    void emitFrom(QDBusConnection &from, const QString &name, const QVariantList &args)
    {
        QDBusMessage signal =
            QDBusMessage::createSignal(DesktopNotifier::Path, DesktopNotifier::Interface, name);
        signal.setArguments(args);
        QVERIFY(from.send(signal));
    }

    // Returns once the bus delivered to `to` every message `from` sent before, and `to`'s
    // owner thread ran what they queued: a Peer.Ping from `from` answered by `to` comes after them.
    static void barrier(QDBusConnection &from, const QDBusConnection &to)
    {
        const QDBusMessage ping = QDBusMessage::createMethodCall(
            to.baseService(), u"/"_s, u"org.freedesktop.DBus.Peer"_s, u"Ping"_s);
        QDBusPendingCallWatcher watcher(from.asyncCall(ping));
        QTRY_VERIFY_WITH_TIMEOUT(watcher.isFinished(), 10000);
        QVERIFY2(!watcher.isError(), qPrintable(watcher.error().message()));
        QCoreApplication::processEvents(); // the queued signal deliveries of before
        QCoreApplication::processEvents();
    }

    // A notifier on a connection of its own, and the key shown through it (with its id).
    uint showAndWait(DesktopNotifier &n, const QString &key, const QString &summary,
                     const QStringList &body)
    {
        QSignalSpy shown(&n, &DesktopNotifier::shown);
        n.show(key, summary, body);
        if (!shown.wait(10000))
            return 0;
        return shown.constFirst().at(1).toUInt();
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QFile config(m_dir.filePath(u"session.conf"_s));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write(busConfig(m_dir.path()));
        config.close();
        m_daemon.start(u"dbus-daemon"_s, {u"--config-file="_s + config.fileName(), u"--nofork"_s,
                                          u"--print-address"_s});
        QDeadlineTimer deadline(20000);
        while (!m_daemon.canReadLine() && m_daemon.state() != QProcess::NotRunning &&
               !deadline.hasExpired())
            m_daemon.waitForReadyRead(100);
        m_address = QString::fromUtf8(m_daemon.readLine().trimmed());
        QVERIFY2(m_address.startsWith(u"unix:"),
                 qPrintable(u"dbus-daemon printed \"%1\": %2"_s.arg(
                     m_address, QString::fromLocal8Bit(m_daemon.readAllStandardError()))));
    }
    void cleanupTestCase()
    {
        stopService();
        m_daemon.terminate();
        if (!m_daemon.waitForFinished(5000)) {
            m_daemon.kill();
            m_daemon.waitForFinished(5000);
        }
    }
    void init()
    {
        fbtest::failOnWarnings();
        QVERIFY(startService({u"body"_s, u"body-markup"_s, u"actions"_s}));
    }
    void cleanup() { stopService(); }

    void notifyIsInertAndOnlyOpens()
    {
        DesktopNotifier n(connect(u"app"_s));
        QVERIFY(n.hasBus());
        const QString agent = u"<b>x</b> & <img src=x>\nPrice: USD 0.00 \u202Eevil"_s;
        QVERIFY(showAndWait(n, u"approval:abc"_s, u"Approval needed\nsecond line"_s,
                            {u"An agent asks to create a connection:"_s, agent}) != 0);
        QCOMPARE(m_fake->capabilityCalls, 1);
        QCOMPARE(m_fake->notifies.size(), 1);
        const NotifyCall &c = m_fake->notifies.constFirst();
        QCOMPARE(c.appName, u"Fabric Broker"_s);
        QCOMPARE(c.replacesId, 0u);
        QCOMPARE(c.icon, u"fabric-broker"_s);
        // The summary is plain text by the specification: one line, escapes only.
        QCOMPARE(c.summary, u"Approval needed\\nsecond line"_s);
        // Each body line is one line; the agent's line break and override are escapes, and with
        // body-markup its tags are entities.
        const QStringList lines = c.body.split(u'\n');
        QCOMPARE(lines.size(), 2);
        QCOMPARE(lines.at(0), u"An agent asks to create a connection:"_s);
        QCOMPARE(lines.at(1), u"&lt;b&gt;x&lt;/b&gt; &amp; &lt;img src=x&gt;\\nPrice: USD 0.00 "
                              "\\u202Eevil"_s);
        QVERIFY(!c.body.contains(u'<') && !c.body.contains(u'>'));
        // One action, the default one, which opens; nothing that approves.
        QCOMPARE(c.actions, QStringList({u"default"_s, u"Open"_s}));
        for (const QString &a : c.actions)
            QVERIFY2(!a.contains(u"approv"_s, Qt::CaseInsensitive), qPrintable(a));
        QCOMPARE(c.hints.value(u"desktop-entry"_s).toString(),
                 u"io.github.fabric_broker.FabricBroker"_s);
        QCOMPARE(c.timeout, -1);
    }

    void withoutBodyMarkupTheTextIsSentAsItIs()
    {
        QVERIFY(startService({u"body"_s, u"actions"_s}));
        DesktopNotifier n(connect(u"app"_s));
        QVERIFY(showAndWait(n, u"k"_s, u"S"_s, {u"<b>x</b> & y"_s}) != 0);
        // A service without markup shows the characters as they are: no entity would be read.
        QCOMPARE(m_fake->notifies.constFirst().body, u"<b>x</b> & y"_s);
    }

    void textIsBounded()
    {
        DesktopNotifier n(connect(u"app"_s));
        const QString longLine(10000, u'a');
        QVERIFY(showAndWait(n, u"k"_s, longLine, {longLine, u"2"_s, u"3"_s, u"4"_s, u"5"_s}) != 0);
        const NotifyCall &c = m_fake->notifies.constFirst();
        QCOMPARE(c.summary.size(), DesktopNotifier::MaxSummary + 1); // cut, then U+2026
        QVERIFY(c.summary.endsWith(u'\u2026'));
        const QStringList lines = c.body.split(u'\n');
        QCOMPARE(lines.size(), DesktopNotifier::MaxBodyLines);
        QCOMPARE(lines.constFirst().size(), DesktopNotifier::MaxLine + 1);
        QCOMPARE(lines.constLast(), u"4"_s);
    }

    void theSameKeyReplacesItsNotification()
    {
        DesktopNotifier n(connect(u"app"_s));
        const uint first = showAndWait(n, u"decision:1"_s, u"Approved by the team"_s, {});
        QVERIFY(first != 0);
        QCOMPARE(showAndWait(n, u"decision:1"_s, u"Approved by the team and created"_s, {}), first);
        QCOMPARE(m_fake->notifies.size(), 2);
        QCOMPARE(m_fake->notifies.at(1).replacesId, first);
        QCOMPARE(m_fake->notifies.at(1).summary, u"Approved by the team and created"_s);
        // Another key is another notification.
        const uint other = showAndWait(n, u"decision:2"_s, u"Denied by the team"_s, {});
        QVERIFY(other != 0 && other != first);
        QCOMPARE(m_fake->notifies.at(2).replacesId, 0u);
        QCOMPARE(m_fake->capabilityCalls, 1); // asked once
    }

    void twoShowsBeforeTheAnswerMakeOneNotification()
    {
        DesktopNotifier n(connect(u"app"_s));
        QSignalSpy shown(&n, &DesktopNotifier::shown);
        n.show(u"k"_s, u"first"_s, {});
        n.show(u"k"_s, u"second"_s, {});
        QTRY_COMPARE_WITH_TIMEOUT(shown.size(), 1, 10000);
        const uint id = shown.constFirst().at(1).toUInt();
        // While the capabilities were asked for, the second replaced the first before it went.
        QCOMPARE(m_fake->notifies.size(), 1);
        QCOMPARE(m_fake->notifies.constFirst().summary, u"second"_s);
        n.show(u"k"_s, u"third"_s, {});
        n.show(u"k"_s, u"fourth"_s, {});
        QTRY_COMPARE_WITH_TIMEOUT(shown.size(), 3, 10000);
        QCOMPARE(m_fake->notifies.size(), 3);
        QCOMPARE(m_fake->notifies.at(1).replacesId, id);
        QCOMPARE(m_fake->notifies.at(2).replacesId, id);
        QCOMPARE(m_fake->notifies.at(2).summary, u"fourth"_s);
    }

    void defaultActionOfItsOwnIdOpensTheKey()
    {
        QDBusConnection app = connect(u"app"_s);
        DesktopNotifier n(app);
        const uint id = showAndWait(n, u"approval:abc"_s, u"Approval needed"_s, {});
        QVERIFY(id != 0);
        QSignalSpy opened(&n, &DesktopNotifier::openRequested);
        // Another program's notification, and an action this one never offered: nothing.
        emitFrom(*m_service, u"ActionInvoked"_s, {id + 100, u"default"_s});
        emitFrom(*m_service, u"ActionInvoked"_s, {id, u"approve"_s});
        // The same signal from a program that does not own the service's name: nothing.
        QDBusConnection spoof = connect(u"spoof"_s);
        emitFrom(spoof, u"ActionInvoked"_s, {id, u"default"_s});
        barrier(spoof, app);
        barrier(*m_service, app);
        QCOMPARE(opened.size(), 0);
        // The service's own: the key is opened, once.
        emitFrom(*m_service, u"ActionInvoked"_s, {id, u"default"_s});
        QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 1, 10000);
        QCOMPARE(opened.constFirst().at(0).toString(), u"approval:abc"_s);
        barrier(*m_service, app);
        QCOMPARE(opened.size(), 1);
    }

    void closedByTheServiceIsForgotten()
    {
        QDBusConnection app = connect(u"app"_s);
        DesktopNotifier n(app);
        const uint id = showAndWait(n, u"k"_s, u"S"_s, {});
        QVERIFY(n.isShown(u"k"_s));
        emitFrom(*m_service, u"NotificationClosed"_s, {id + 7, 2u}); // not ours
        barrier(*m_service, app);
        QVERIFY(n.isShown(u"k"_s));
        emitFrom(*m_service, u"NotificationClosed"_s, {id, 2u}); // dismissed
        QTRY_VERIFY_WITH_TIMEOUT(!n.isShown(u"k"_s), 10000);
        // A later notification of the key is a new one; invoking the old id does nothing.
        QSignalSpy opened(&n, &DesktopNotifier::openRequested);
        emitFrom(*m_service, u"ActionInvoked"_s, {id, u"default"_s});
        barrier(*m_service, app);
        QCOMPARE(opened.size(), 0);
        QVERIFY(showAndWait(n, u"k"_s, u"S again"_s, {}) != 0);
        QCOMPARE(m_fake->notifies.constLast().replacesId, 0u);
    }

    void withdrawAndTurningOffCloseWhatIsShown()
    {
        DesktopNotifier n(connect(u"app"_s));
        const uint a = showAndWait(n, u"a"_s, u"A"_s, {});
        const uint b = showAndWait(n, u"b"_s, u"B"_s, {});
        n.withdraw(u"a"_s);
        QVERIFY(!n.isShown(u"a"_s));
        QTRY_COMPARE_WITH_TIMEOUT(m_fake->closed, QList<uint>{a}, 10000);
        n.setEnabled(false);
        QVERIFY(!n.isShown(u"b"_s));
        QTRY_COMPARE_WITH_TIMEOUT(m_fake->closed, QList<uint>({a, b}), 10000);
        // Off: nothing new is shown.
        n.show(u"c"_s, u"C"_s, {});
        QVERIFY(!n.isShown(u"c"_s));
        n.setEnabled(true);
        QVERIFY(showAndWait(n, u"c"_s, u"C"_s, {}) != 0);
        QCOMPARE(m_fake->notifies.size(), 3);
    }

    void withdrawnWhileOnItsWayIsClosedWhenItArrives()
    {
        DesktopNotifier n(connect(u"app"_s));
        QVERIFY(showAndWait(n, u"warm"_s, u"W"_s, {}) != 0); // capabilities known
        n.show(u"k"_s, u"S"_s, {});
        n.withdraw(u"k"_s); // the Notify is on its way
        QTRY_COMPARE_WITH_TIMEOUT(m_fake->notifies.size(), 2, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(m_fake->closed.size(), 1, 10000);
        QCOMPARE(m_fake->closed.constFirst(), m_fake->nextId);
        QVERIFY(!n.isShown(u"k"_s));
    }

    void atMostMaxKeysAreRemembered()
    {
        DesktopNotifier n(connect(u"app"_s));
        QSignalSpy shown(&n, &DesktopNotifier::shown);
        for (int i = 0; i <= DesktopNotifier::MaxKeys; ++i)
            n.show(u"k%1"_s.arg(i), u"S"_s, {});
        QVERIFY(!n.isShown(u"k0"_s));
        QVERIFY(n.isShown(u"k%1"_s.arg(DesktopNotifier::MaxKeys)));
        QTRY_COMPARE_WITH_TIMEOUT(shown.size(), DesktopNotifier::MaxKeys, 10000);
    }

    void withoutAServiceNothingIsShownAndOneLineIsLogged()
    {
        stopService();
        static int unavailable = 0;
        unavailable = 0;
        static QtMessageHandler previous = nullptr;
        previous = qInstallMessageHandler(
            [](QtMsgType type, const QMessageLogContext &context, const QString &text) {
                if (type == QtInfoMsg && text.startsWith(u"no desktop notifications"_s))
                    ++unavailable;
                if (previous)
                    previous(type, context, text);
            });
        {
            DesktopNotifier n(connect(u"app"_s));
            QVERIFY(n.hasBus());
            n.show(u"a"_s, u"A"_s, {u"x"_s});
            QTRY_COMPARE_WITH_TIMEOUT(unavailable, 1, 10000);
            QTRY_VERIFY_WITH_TIMEOUT(!n.isShown(u"a"_s), 10000);
            n.show(u"b"_s, u"B"_s, {});
            n.withdraw(u"a"_s);
            QTRY_VERIFY_WITH_TIMEOUT(!n.isShown(u"b"_s), 10000);
            // A service that starts later is used.
            QVERIFY(startService({u"body"_s}));
            QVERIFY(showAndWait(n, u"c"_s, u"C"_s, {}) != 0);
        }
        // No bus at all: nothing either.
        {
            DesktopNotifier none(QDBusConnection(u"fabricbroker-test-no-bus"_s));
            QVERIFY(!none.hasBus());
            none.show(u"a"_s, u"A"_s, {});
            QVERIFY(!none.isShown(u"a"_s));
        }
        qInstallMessageHandler(previous);
        QCOMPARE(unavailable, 2); // once per notifier
    }
};

QTEST_MAIN(TestDesktopNotifier)
#include "tst_desktopnotifier.moc"
