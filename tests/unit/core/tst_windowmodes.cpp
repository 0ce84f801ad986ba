// WindowModes (src/core/WindowModes.h): which command lines may show a window. The launcher runs
// fabric-broker-server (no Qt Gui/Widgets) for every other one, and the app's main() creates a
// QApplication only for these; both read this one rule. Which binary the launcher really runs,
// and that it maps no GUI library: tests/e2e/launcher.test.mjs.
#include "TestEnvironment.h"
#include "core/WindowModes.h"

#include <QTest>

#include <vector>

using namespace fb::windowmodes;

namespace {

bool windowless(const QStringList &args)
{
    std::vector<QByteArray> bytes{QByteArray("fabric-broker")};
    for (const QString &a : args)
        bytes.push_back(a.toUtf8());
    std::vector<const char *> argv;
    for (const QByteArray &b : bytes)
        argv.push_back(b.constData());
    argv.push_back(nullptr);
    return windowlessCommandLine(int(bytes.size()), argv.data());
}

} // namespace

class TestWindowModes : public QObject {
    Q_OBJECT
private slots:
    void init()
    {
        fbtest::failOnWarnings();
        for (const char *name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
            qunsetenv(name);
    }

    void commandLines_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<bool>("windowless");
        QTest::addRow("nothing: the desktop app") << QStringList() << false;
        QTest::addRow("--stdio: may become the app") << QStringList{"--stdio"} << false;
        QTest::addRow("--sandbox --stdio") << QStringList{"--sandbox", "--stdio"} << false;
        QTest::addRow("--listen") << QStringList{"--listen"} << false;
        for (const char *sub : {"audit", "client-config", "http-headers", "policy", "team"}) {
            QTest::addRow("subcommand %s", sub) << QStringList{sub} << true;
            QTest::addRow("subcommand %s with arguments", sub)
                << QStringList{sub, "--json", "x"} << true;
            // Only argv[1] names a subcommand; elsewhere it is an option's value.
            QTest::addRow("%s as a value", sub) << QStringList{"--socket", sub} << false;
        }
        for (const char *flag : {"--headless", "--sandbox-only", "--print-estate", "--help", "-h",
                                 "--help-all", "--version", "-v"}) {
            QTest::addRow("%s first", flag) << QStringList{flag} << true;
            QTest::addRow("%s last", flag) << QStringList{"--stdio", "--sandbox", flag} << true;
        }
        QTest::addRow("prefix of a flag") << QStringList{"--headles"} << false;
        QTest::addRow("flag with a suffix") << QStringList{"--headless=1"} << false;
        QTest::addRow("upper case") << QStringList{"--HEADLESS"} << false;
        QTest::addRow("unknown subcommand") << QStringList{"audits"} << false;
        QTest::addRow("empty argument") << QStringList{""} << false;
    }

    void commandLines()
    {
        QFETCH(QStringList, args);
        QFETCH(bool, windowless);
        QCOMPARE(::windowless(args), windowless);
    }

    void displays_data()
    {
        QTest::addColumn<QByteArray>("display");
        QTest::addColumn<QByteArray>("wayland");
        QTest::addColumn<QByteArray>("platform");
        QTest::addColumn<bool>("available");
        // A null QByteArray leaves the variable unset; an empty one sets it empty.
        QTest::addRow("none") << QByteArray() << QByteArray() << QByteArray() << false;
        QTest::addRow("DISPLAY") << QByteArray(":99") << QByteArray() << QByteArray() << true;
        QTest::addRow("DISPLAY set empty")
            << QByteArray("") << QByteArray() << QByteArray() << true;
        QTest::addRow("WAYLAND_DISPLAY")
            << QByteArray() << QByteArray("wayland-0") << QByteArray() << true;
        QTest::addRow("platform xcb") << QByteArray() << QByteArray() << QByteArray("xcb") << true;
        QTest::addRow("platform empty") << QByteArray() << QByteArray() << QByteArray("") << false;
        QTest::addRow("offscreen wins over DISPLAY")
            << QByteArray(":99") << QByteArray() << QByteArray("offscreen") << false;
        QTest::addRow("minimal wins over WAYLAND_DISPLAY")
            << QByteArray() << QByteArray("wayland-0") << QByteArray("minimal") << false;
        QTest::addRow("offscreen with options")
            << QByteArray(":99") << QByteArray() << QByteArray("offscreen:fontengine=freetype")
            << false;
    }

    void displays()
    {
        QFETCH(QByteArray, display);
        QFETCH(QByteArray, wayland);
        QFETCH(QByteArray, platform);
        QFETCH(bool, available);
        if (!display.isNull())
            qputenv("DISPLAY", display);
        if (!wayland.isNull())
            qputenv("WAYLAND_DISPLAY", wayland);
        if (!platform.isNull())
            qputenv("QT_QPA_PLATFORM", platform);
        QCOMPARE(displayInEnvironment(), available);
        const char *desktop[] = {"fabric-broker", nullptr};
        const char *headless[] = {"fabric-broker", "--headless", nullptr};
        QCOMPARE(mayShowWindows(1, desktop), available);
        QVERIFY(!mayShowWindows(2, headless));
    }
};

QTEST_GUILESS_MAIN(TestWindowModes)
#include "tst_windowmodes.moc"
