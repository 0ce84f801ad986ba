// ConsoleOutput: what the subcommands print goes to the right stream, text as UTF-8 and bytes
// as they are, straight to the file descriptor (nothing held back in a buffer of Qt's).
#include "AppOutput.h"
#include "TestEnvironment.h"
#include "app/ConsoleOutput.h"

#include <QTest>

class TestConsoleOutput : public QObject {
    Q_OBJECT

private slots:
    void init() { fbtest::failOnWarnings(); }

    void textGoesOutAsUtf8()
    {
        const QString text = QStringLiteral("Grüße, 東京 ✓\n");
        fbtest::AppOutput output;
        fb::console::out(text);
        fb::console::err(QStringLiteral("Fehler: ä\n"));
        const QString out = output.out();
        QCOMPARE(out, text);
        QCOMPARE(output.err(), QStringLiteral("Fehler: ä\n"));
    }

    void bytesGoOutAsTheyAre()
    {
        const QByteArray bytes("\x00\xff\xfe raw\r\n", 9);
        fbtest::AppOutput output;
        fb::console::writeOut(bytes);
        fb::console::out(QStringLiteral("after"));
        const QByteArray out = output.outBytes();
        QCOMPARE(out, bytes + QByteArray("after"));
        QCOMPARE(output.err(), QString());
    }
};

QTEST_GUILESS_MAIN(TestConsoleOutput)
#include "tst_consoleoutput.moc"
