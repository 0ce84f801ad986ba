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
// And DesktopUi's use of it: an approval dialog that opens is announced, opening it brings that
// dialog (not the main window) and decides nothing, the approval's end withdraws it; the team's
// decision on this workstation's proposal is announced, then its outcome in the same
// notification; a desktop approval or an agent's withdrawal is no team decision; off is off.
#include "GuiTestData.h"
#include "TestEnvironment.h"
#include "broker/MutationBroker.h"
#include "core/ProposalStore.h"
#include "core/UntrustedText.h"
#include "fabric/FabricClient.h"
#include "gui/DesktopApprover.h"
#include "gui/DesktopNotifier.h"
#include "gui/DesktopUi.h"
#include "gui/MainWindow.h"

#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDeadlineTimer>
#include <QProcess>
#include <QSettings>
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

// The desktop app's parts DesktopUi wires the notifications to (no MCP server: no session here).
// What ServerHost gives the embedded sandbox: a loopback address and placeholder credentials.
FabricConfig config()
{
    FabricConfig c;
    c.endpoint = QUrl(u"http://127.0.0.1:4799"_s);
    c.clientId = u"sandbox"_s;
    c.clientSecret = u"sandbox"_s;
    return c;
}

struct Host {
    ManualClock clock;
    ProposalStore store{&clock};
    FabricClient fabric{config()};
    MutationBroker broker{&store, &fabric, BrokerSettings{}, &clock};
    DesktopContext context(const QDBusConnection &bus)
    {
        DesktopContext ctx;
        ctx.store = &store;
        ctx.broker = &broker;
        ctx.fabric = &fabric;
        ctx.sandbox = true;
        ctx.clock = &clock;
        ctx.notificationBus = bus;
        return ctx;
    }
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
        // DesktopUi reads its saved preferences: from this suite's folder, never the user's.
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_dir.filePath(u"config"_s)));
        qputenv("XDG_CONFIG_DIRS", QFile::encodeName(m_dir.filePath(u"etc"_s)));
        QCoreApplication::setOrganizationName(u"fabric-broker-tests"_s);
        QCoreApplication::setApplicationName(u"tst_desktopnotifier"_s);
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
        fbtest::failOnWarnings({u"keychain read failed: "_s});
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

    // DesktopUi (DesktopUiNotify.cpp): what is announced, and what opening it does.
    void theDesktopAppAnnouncesApprovalsAndTheTeamsDecisions()
    {
        QSettings().clear();
        Host host;
        QDBusConnection app = connect(u"app"_s);
        DesktopUi ui(host.context(app));
        QVERIFY(ui.notifier() && ui.notifier()->isEnabled());

        // A desktop approval dialog opens: announced with the target line.
        const ApprovalContext a = guitest::sampleContext(host.clock.nowMs());
        int answers = 0;
        ui.desktopApprover()->requestApprovalFor(nullptr, false, a,
                                                 [&](const HumanDecision &) { ++answers; });
        QCOMPARE(ui.desktopApprover()->pendingCount(), 1);
        QTRY_COMPARE_WITH_TIMEOUT(m_fake->notifies.size(), 1, 10000);
        const NotifyCall c = m_fake->notifies.constFirst();
        QCOMPARE(c.summary, u"Approval needed (sandbox)"_s);
        QCOMPARE(c.body, u"An agent asks to create a connection:\n"_s +
                             UntrustedText::escapeInvisible(a.proposal.target)
                                 .replace(u'&', u"&amp;"_s)
                                 .replace(u'<', u"&lt;"_s)
                                 .replace(u'>', u"&gt;"_s));
        QTRY_VERIFY_WITH_TIMEOUT(ui.notifier()->isShown(u"approval:"_s + a.proposal.requestSha256),
                                 10000);
        // Opened: its dialog is what comes forward (not the main window); nothing is decided.
        QSignalSpy opened(ui.notifier(), &DesktopNotifier::openRequested);
        emitFrom(*m_service, u"ActionInvoked"_s, {m_fake->nextId, u"default"_s});
        QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 1, 10000);
        QVERIFY(!ui.mainWindow()->isVisible());
        QCOMPARE(answers, 0);
        QCOMPARE(ui.desktopApprover()->pendingCount(), 1);
        // The approval ends (the broker says so): its notification is withdrawn.
        QVERIFY(showAndWait(*ui.notifier(), u"approval:"_s + a.proposal.requestSha256, u"again"_s,
                            {}) != 0);
        emit host.broker.approvalFinished(a.proposal, u"declined"_s);
        QVERIFY(!ui.notifier()->isShown(u"approval:"_s + a.proposal.requestSha256));
        QTRY_COMPARE_WITH_TIMEOUT(m_fake->closed.size(), 1, 10000);
        ui.desktopApprover()->denyAllPending();
        QCOMPARE(answers, 1);

        // This workstation's proposal waits for the team: the decision, then the outcome in the
        // same notification.
        Proposal ours =
            guitest::sampleContext(host.clock.nowMs(), ChangeType::ConnectionCreate, u"ours"_s, 'b')
                .proposal;
        const QString key = u"decision:"_s + ours.requestSha256;
        emit host.broker.approvalStarted(ours, u"team"_s);
        QVERIFY(!ui.notifier()->isShown(key));
        emit host.broker.approvalFinished(ours, u"accepted"_s);
        QVERIFY(ui.notifier()->isShown(key));
        QTRY_COMPARE_WITH_TIMEOUT(m_fake->notifies.size(), 3, 10000);
        QCOMPARE(m_fake->notifies.at(2).summary, u"Approved by the team"_s);
        QVERIFY(m_fake->notifies.at(2).body.startsWith(
            u"Your agent's proposal to create a connection:\n"_s));
        emit host.broker.executionFinished(ours, true, u"created"_s);
        QTRY_COMPARE_WITH_TIMEOUT(m_fake->notifies.size(), 4, 10000);
        QCOMPARE(m_fake->notifies.at(3).summary, u"Approved by the team and created"_s);
        QCOMPARE(m_fake->notifies.at(3).replacesId, m_fake->nextId);
        // Opened: the main window.
        emitFrom(*m_service, u"ActionInvoked"_s, {m_fake->nextId, u"default"_s});
        QTRY_VERIFY_WITH_TIMEOUT(ui.mainWindow()->isVisible(), 10000);

        // A denial is announced; a desktop approval's end or an agent's withdrawal is not a
        // decision of the team's.
        Proposal denied = ours;
        denied.requestSha256 = guitest::fakeSha('c');
        emit host.broker.approvalStarted(denied, u"team"_s);
        emit host.broker.approvalFinished(denied, u"declined"_s);
        QVERIFY(ui.notifier()->isShown(u"decision:"_s + denied.requestSha256));
        QTRY_COMPARE_WITH_TIMEOUT(m_fake->notifies.size(), 5, 10000);
        QCOMPARE(m_fake->notifies.at(4).summary, u"Denied by the team"_s);
        emit host.broker.executionFinished(denied, false, u"not_approved"_s);
        Proposal local = ours;
        local.requestSha256 = guitest::fakeSha('d');
        emit host.broker.approvalStarted(local, u"desktop"_s);
        emit host.broker.approvalFinished(local, u"accepted"_s);
        Proposal withdrawn = ours;
        withdrawn.requestSha256 = guitest::fakeSha('e');
        emit host.broker.approvalStarted(withdrawn, u"team"_s);
        emit host.broker.approvalFinished(withdrawn, u"call_cancelled"_s);
        for (const Proposal &p : {local, withdrawn})
            QVERIFY(!ui.notifier()->isShown(u"decision:"_s + p.requestSha256));
        barrier(app, *m_service);
        QCOMPARE(m_fake->notifies.size(), 5);

        // Turned off (Settings): nothing more is announced.
        ui.notifier()->setEnabled(false);
        const ApprovalContext b =
            guitest::sampleContext(host.clock.nowMs(), ChangeType::ConnectionCreate, u"b"_s, 'f');
        ui.desktopApprover()->requestApprovalFor(nullptr, false, b, [](const HumanDecision &) {});
        QVERIFY(!ui.notifier()->isShown(u"approval:"_s + b.proposal.requestSha256));
        ui.desktopApprover()->denyAllPending();
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
