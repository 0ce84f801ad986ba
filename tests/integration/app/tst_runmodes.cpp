// The run modes (RunModes.cpp, RunModesDesktop.cpp) in this test process, their stdin, stdout
// and stderr pipes the test holds (SwappedStdio.h), every path in a scratch runtime directory:
// SIGTERM runs the hook once and a second one ends the loop; --sandbox-only prints its URL
// first and serves until the signal, refuses a bad --port and prints the estate; --headless
// serves the per-user socket by default, says where HTTP is served (or why not) and refuses
// invalid settings; --stdio without --headless (the launcher found no app to relay to) serves
// the session itself, saying that approvals go through the client; without a display the
// app serves headless on the socket; a display is one the GUI can use, never offscreen. The modes
// run as processes in tests/e2e and tst_mdwe.
#include "BrokerScratch.h"
#include "McpSocketClient.h"
#include "SwappedStdio.h"
#include "TestEnvironment.h"
#include "app/CommandLine.h"
#include "app/RunModes.h"
#include "mcp/McpServer.h"
#include "sandbox/FabricSandbox.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLocalServer>
#include <QLocalSocket>
#include <QLoggingCategory>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <csignal>

using namespace fb;
using namespace fbtest;
using namespace Qt::StringLiterals;

class TstRunModes : public QObject {
    Q_OBJECT
    BrokerScratch m_scratch;

    QString socketPath() const { return m_scratch.path(u"fabric-broker.sock"_s); }

    // Runs mode with the command line args; during its event loop, then runs, and the loop ends
    // with exit code 99 if nothing ended it within 20 s.
    static int run(int (*mode)(CommandLine &), const QStringList &args,
                   std::function<void()> then = {})
    {
        CommandLine cli;
        if (cli.parse(QStringList{u"fabric-broker"_s} + args).exitCode)
            return -1;
        QTimer deadline;
        deadline.setSingleShot(true);
        QObject::connect(&deadline, &QTimer::timeout, [] { QCoreApplication::exit(99); });
        deadline.start(20000);
        QTimer start;
        start.setSingleShot(true);
        if (then)
            QObject::connect(&start, &QTimer::timeout, then);
        start.start(0);
        return mode(cli);
    }
    static void terminate() { ::raise(SIGTERM); }
    // A run that serves the embedded sandbox says so; Qt Test would print it on the stdout
    // under test unless it is expected.
    static void expectSandboxNote()
    {
        QTest::ignoreMessage(QtWarningMsg,
                             QRegularExpression(u"^SANDBOX: using the embedded Fabric sandbox"_s));
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_scratch.setUp());
        // Progress notes would land on the stdout under test (Qt Test prints them there).
        QLoggingCategory::setFilterRules(
            u"fabricbroker.*.info=false\nfabricbroker.*.debug=false"_s);
    }
    void cleanupTestCase() { m_scratch.tearDown(); }
    void init() { failOnWarnings(); }

    // First in the suite: the signal handler counts signals for the whole process.
    void aSignalRunsTheHookOnceAndASecondEndsTheLoop()
    {
        int hooks = 0;
        installQuitOnSignals([&hooks] {
            ++hooks;
            QTimer::singleShot(0, &TstRunModes::terminate);
        });
        QTimer::singleShot(0, &TstRunModes::terminate);
        QTimer deadline;
        deadline.setSingleShot(true);
        connect(&deadline, &QTimer::timeout, [] { QCoreApplication::exit(99); });
        deadline.start(20000);
        QCOMPARE(QCoreApplication::exec(), 0);
        QCOMPARE(hooks, 1);
        installQuitOnSignals();
    }

    void sandboxOnlyPrintsItsUrlFirstAndServesUntilTheSignal()
    {
        SwappedStdio stdio;
        QUrl url;
        bool served = false;
        const int rc = run(runSandboxOnly, {u"--sandbox-only"_s}, [&] {
            QByteArray out;
            QVERIFY(
                QTest::qWaitFor([&] { return (out += stdio.takeOutput()).contains('\n'); }, 10000));
            const QByteArray first = out.left(out.indexOf('\n'));
            if (first.startsWith("sandbox: "))
                url = QUrl(QString::fromUtf8(first.mid(9)));
            QTcpSocket probe;
            probe.connectToHost(u"127.0.0.1"_s, url.port());
            served = probe.waitForConnected(5000);
            terminate();
        });
        QCOMPARE(rc, 0);
        QVERIFY2(url.isValid() && url.host() == u"127.0.0.1"_s, qPrintable(url.toString()));
        QVERIFY(served);
        QTcpSocket after;
        after.connectToHost(u"127.0.0.1"_s, url.port());
        QVERIFY(!after.waitForConnected(2000));
    }

    void sandboxOnlyRefusesABadPortAndPrintsTheEstate()
    {
        SwappedStdio stdio;
        QCOMPARE(run(runSandboxOnly, {u"--sandbox-only"_s, u"--port"_s, u"65536"_s}), 2);
        QVERIFY(stdio.waitForOutput("--port must be a number between 0 and 65535\n", 2));
        QCOMPARE(run(runSandboxOnly, {u"--sandbox-only"_s, u"--print-estate"_s}), 0);
        QVERIFY(stdio.waitForOutput(FabricSandbox::estateDescription().toUtf8()));
    }

    void headlessServesThePerUserSocketByDefault()
    {
        SwappedStdio stdio;
        QJsonObject init;
        expectSandboxNote();
        const int rc = run(runHeadless, {u"--headless"_s}, [&] {
            McpSocketClient client;
            if (client.connectTo(socketPath()))
                init = client.initialize();
            terminate();
        });
        QCOMPARE(rc, 0);
        QCOMPARE(init.value(u"serverInfo"_s).toObject().value(u"title"_s).toString(),
                 u"Fabric Broker (SANDBOX)"_s);
        QVERIFY(!QFileInfo::exists(socketPath()));
        QVERIFY(stdio.takeOutput().isEmpty()); // stdout carries MCP frames only
    }

    void headlessSaysWhereHttpIsServedOrWhyNot()
    {
        SwappedStdio stdio;
        QByteArray err;
        bool socket = true;
        expectSandboxNote();
        QCOMPARE(run(runHeadless, {u"--headless"_s, u"--http"_s, u"127.0.0.1:0"_s},
                     [&] {
                         QVERIFY(QTest::qWaitFor(
                             [&] { return (err += stdio.takeOutput(2)).contains('\n'); }, 10000));
                         socket = QFileInfo::exists(socketPath()); // --http alone: no socket
                         terminate();
                     }),
                 0);
        QVERIFY2(err.startsWith("fabric-broker: MCP over HTTP at http://127.0.0.1:"),
                 err.constData());
        QVERIFY(!socket);
        QTcpServer taken;
        QVERIFY(taken.listen(QHostAddress::LocalHost));
        expectSandboxNote();
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(u"^MCP over HTTP is off: "_s));
        QCOMPARE(run(runHeadless,
                     {u"--headless"_s, u"--http"_s, u"127.0.0.1:%1"_s.arg(taken.serverPort())},
                     &TstRunModes::terminate),
                 0);
        QVERIFY(stdio.takeOutput(2).startsWith("fabric-broker: warning: MCP over HTTP is off: "));
    }

    void headlessRefusesInvalidSettings()
    {
        SwappedStdio stdio;
        QCOMPARE(run(runHeadless, {u"--headless"_s, u"--toolsets"_s, u"read,everything"_s}), 1);
        const QByteArray err = stdio.takeOutput(2);
        QVERIFY2(err.startsWith("fabric-broker: ") && err.contains("everything"), err.constData());
        QVERIFY(!QFileInfo::exists(socketPath()));
    }

    // Relaying to a running app is the launcher's (src/launcher): tests/e2e/relay.test.mjs and
    // tests/e2e/launcher.test.mjs.
    void stdioWithoutAnAppServesTheSessionItself()
    {
        SwappedStdio stdio;
        QJsonObject init;
        expectSandboxNote();
        const int rc = run(runDesktop, {u"--stdio"_s}, [&] {
            stdio.write(frame(
                1, u"initialize"_s,
                {{u"protocolVersion"_s, u"2025-06-18"_s},
                 {u"capabilities"_s, QJsonObject{}},
                 {u"clientInfo"_s, QJsonObject{{u"name"_s, u"tst"_s}, {u"version"_s, u"1"_s}}}}));
            QByteArray out;
            QVERIFY(
                QTest::qWaitFor([&] { return (out += stdio.takeOutput()).contains('\n'); }, 10000));
            init = QJsonDocument::fromJson(out.left(out.indexOf('\n')))
                       .object()
                       .value(u"result"_s)
                       .toObject();
            stdio.closeInput(); // end of input ends the process
        });
        QCOMPARE(rc, 0);
        const QString instructions = init.value(u"instructions"_s).toString();
        QVERIFY2(instructions.contains(u"NO DESKTOP APP"_s), qPrintable(instructions));
        QVERIFY(instructions.contains(u"PROPOSALS ARE OFF"_s));
        QVERIFY(stdio.takeOutput(2).contains("no Fabric Broker desktop app is running"));
        QVERIFY(!QFileInfo::exists(socketPath()));
    }

    void withoutADisplayTheAppServesHeadless()
    {
        SwappedStdio stdio;
        QJsonObject init;
        expectSandboxNote();
        const int rc = run(runDesktop, {}, [&] {
            McpSocketClient client;
            if (client.connectTo(socketPath()))
                init = client.initialize();
            terminate();
        });
        QCOMPARE(rc, 0);
        QVERIFY(init.contains(u"serverInfo"_s));
        QCOMPARE(stdio.takeOutput(2),
                 "fabric-broker: no display available; serving headless on the "
                 "per-user socket (use --headless to say so explicitly).\n");
        QVERIFY(!QFileInfo::exists(socketPath()));
    }

    void aDisplayIsOneTheGuiCanUse()
    {
        ScopedEnvironmentVariable platform("QT_QPA_PLATFORM", QByteArray());
        ScopedEnvironmentVariable x11("DISPLAY", QByteArray());
        ScopedEnvironmentVariable wayland("WAYLAND_DISPLAY", QByteArray());
        QVERIFY(!displayAvailable());
#ifndef HAVE_FABRICBROKER_GUI
        // A build without the GUI has no display to use, whatever the environment says.
        ScopedEnvironmentVariable set("DISPLAY", ":7");
        QVERIFY(!displayAvailable());
        return;
#endif
        {
            ScopedEnvironmentVariable set("DISPLAY", ":7");
            QVERIFY(displayAvailable());
            ScopedEnvironmentVariable offscreen("QT_QPA_PLATFORM", "offscreen");
            QVERIFY(!displayAvailable());
        }
        {
            ScopedEnvironmentVariable set("WAYLAND_DISPLAY", "wayland-0");
            QVERIFY(displayAvailable());
            ScopedEnvironmentVariable minimal("QT_QPA_PLATFORM", "minimal");
            QVERIFY(!displayAvailable());
        }
        ScopedEnvironmentVariable xcb("QT_QPA_PLATFORM", "xcb");
        QVERIFY(displayAvailable());
    }
};

QTEST_MAIN(TstRunModes)
#include "tst_runmodes.moc"
