// `fabric-broker <command> [<subcommand>] --help` (and -h) for every command the top-level help
// names and every subcommand each command's help lists: exit 0, its own usage on stdout, nothing
// on stderr, and no app started. The bash completion (packaging/linux) offers exactly the
// commands and subcommands the help lists, so a new one cannot be added without both.
#include "TestEnvironment.h"

#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QTest>

namespace {

struct Run {
    int exitCode = -1;
    QString out;
    QString err;
};

Run run(const QStringList &args)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    // No display: a mode that wrongly starts the app serves headless and never exits, which
    // the 20 s wait below turns into a failure naming the arguments.
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    env.insert(QStringLiteral("XDG_RUNTIME_DIR"), qEnvironmentVariable("TMPDIR"));
    p.setProcessEnvironment(env);
    p.start(fbtest::brokerBinary(), args);
    Run r;
    if (!p.waitForFinished(20000)) {
        p.kill();
        p.waitForFinished();
        r.err = QStringLiteral("did not exit within 20 s");
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err += QString::fromUtf8(p.readAllStandardError());
    return r;
}

// The words a help text lists under its "Commands:" heading (two spaces, then the word), or,
// for the top-level help, the commands named as "fabric-broker <word>" under "Modes:".
QStringList commandsOf(const QString &help, bool topLevel)
{
    QStringList words;
    const QString heading = topLevel ? QStringLiteral("Modes:") : QStringLiteral("Commands:");
    const qsizetype at = help.indexOf(heading);
    if (at < 0)
        return words;
    static const QRegularExpression sub(QStringLiteral("^  ([a-z][a-z-]*)\\b"));
    static const QRegularExpression top(QStringLiteral("^  fabric-broker ([a-z][a-z-]*)"));
    const QStringList lines = help.mid(at + heading.size() + 1).split(u'\n');
    for (const QString &line : lines) {
        if (line.isEmpty())
            break;
        const auto m = (topLevel ? top : sub).match(line);
        if (!m.hasMatch())
            continue;
        // "team init|status URI": the first word; the others come from the command's help.
        const QString w = m.captured(1);
        if (!words.contains(w))
            words << w;
    }
    return words;
}

// What the bash completion offers after `fabric-broker <words...> <cur>`, with a stand-in for
// bash-completion's _init_completion (which the test machine need not have installed).
QStringList complete(const QStringList &words, const QString &cur)
{
    QStringList all{QStringLiteral("fabric-broker")};
    all << words << cur;
    QStringList quoted;
    for (const QString &w : all)
        quoted << QLatin1Char('\'') + w + QLatin1Char('\'');
    const QString script =
        QStringLiteral("_init_completion() { words=(\"${COMP_WORDS[@]}\"); cword=$COMP_CWORD; "
                       "cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; }\n"
                       "_filedir() { :; }\n"
                       "complete() { :; }\n"
                       "compopt() { :; }\n"
                       "source \"$FB_COMPLETION\"\n"
                       "COMP_WORDS=(%1); COMP_CWORD=%2\n"
                       "_fabric_broker\n"
                       "printf '%s\\n' \"${COMPREPLY[@]}\"\n")
            .arg(quoted.join(u' '))
            .arg(all.size() - 1);
    QProcess p;
    p.start(QStringLiteral("bash"), {QStringLiteral("-c"), script});
    if (!p.waitForFinished(10000))
        return {QStringLiteral("<bash did not finish>")};
    QStringList out = QString::fromUtf8(p.readAllStandardOutput()).split(u'\n');
    out.removeAll(QString());
    return out;
}

QSet<QString> setOf(const QStringList &l)
{
    return QSet<QString>(l.begin(), l.end());
}

} // namespace

class TestCommandLine : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        if (fbtest::brokerBinary().isEmpty())
            QSKIP("FB_BROKER_BIN is not set (run through ctest)");
        const Run top = run({QStringLiteral("--help")});
        QCOMPARE(top.exitCode, 0);
        m_commands = commandsOf(top.out, true);
        QVERIFY2(m_commands.size() >= 5, qPrintable(top.out));
        for (const QString &c : std::as_const(m_commands)) {
            const Run r = run({c, QStringLiteral("--help")});
            QVERIFY2(r.exitCode == 0, qPrintable(c + u": " + r.err));
            m_subcommands.insert(c, commandsOf(r.out, false));
        }
    }

    void init() { fbtest::failOnWarnings(); }

    void topLevelHelpAndHelpAll()
    {
        for (const QString &flag :
             {QStringLiteral("--help"), QStringLiteral("-h"), QStringLiteral("--help-all")}) {
            const Run r = run({flag});
            QVERIFY2(r.exitCode == 0, qPrintable(flag + u": " + r.err));
            QVERIFY2(r.out.startsWith(u"Usage: "), qPrintable(flag + u": " + r.out));
            QVERIFY2(r.out.contains(u"Modes:"), qPrintable(flag + u": " + r.out));
        }
        // The commands the team mode and the HTTP endpoint added are in the top-level help.
        for (const char *c : {"audit", "client-config", "http-headers", "policy", "team"})
            QVERIFY2(m_commands.contains(QLatin1String(c)), qPrintable(m_commands.join(u' ')));
    }

    void everyCommandAnswersHelp_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("usage");
        for (const QString &c : std::as_const(m_commands)) {
            for (const QString &flag : {QStringLiteral("--help"), QStringLiteral("-h")}) {
                QTest::addRow("%s %s", qPrintable(c), qPrintable(flag))
                    << QStringList{c, flag} << QStringLiteral("Usage: fabric-broker %1").arg(c);
                for (const QString &s : m_subcommands.value(c)) {
                    QTest::addRow("%s %s %s", qPrintable(c), qPrintable(s), qPrintable(flag))
                        << QStringList{c, s, flag}
                        << QStringLiteral("Usage: fabric-broker %1 %2").arg(c, s);
                }
            }
        }
    }

    void everyCommandAnswersHelp()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, usage);
        const Run r = run(args);
        QVERIFY2(r.exitCode == 0,
                 qPrintable(
                     QStringLiteral("exit %1: %2%3").arg(r.exitCode).arg(r.err, r.out.left(300))));
        QVERIFY2(r.out.startsWith(usage), qPrintable(r.out.left(300)));
        QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
    }

    // A flag after the subcommand's arguments is still help, not an argument: `team init URI
    // --help` prints the usage and connects nowhere.
    void helpAfterArguments()
    {
        const Run r =
            run({QStringLiteral("team"), QStringLiteral("init"),
                 QStringLiteral("postgresql://nowhere.invalid/x"), QStringLiteral("--help")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.startsWith(u"Usage: fabric-broker team init URI"), qPrintable(r.out));
    }

    void unknownSubcommandIsAUsageError()
    {
        for (const QString &c :
             {QStringLiteral("team"), QStringLiteral("policy"), QStringLiteral("audit")}) {
            const Run r = run({c, QStringLiteral("frobnicate")});
            QVERIFY2(r.exitCode == 2, qPrintable(c + u": " + r.out + r.err));
            QVERIFY2(r.err.contains(u"Usage: fabric-broker " + c), qPrintable(r.err));
        }
    }

    void completionKnowsEveryCommand()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("bash")).isEmpty())
            QSKIP("bash is not installed");
        QCOMPARE(setOf(complete({}, QString())), setOf(m_commands));
        for (const QString &c : std::as_const(m_commands)) {
            const QStringList subs = m_subcommands.value(c);
            if (subs.isEmpty())
                continue;
            QSet<QString> offered = setOf(complete({c}, QString()));
            QVERIFY2(offered.remove(QStringLiteral("--help")),
                     qPrintable(c + u": " + QStringList(offered.values()).join(u' ')));
            QCOMPARE(offered, setOf(subs));
        }
        // Each subcommand completes --help among its options.
        for (const QString &c : std::as_const(m_commands)) {
            for (const QString &s : m_subcommands.value(c)) {
                const QStringList offered = complete({c, s}, QStringLiteral("--"));
                QVERIFY2(offered.contains(u"--help"),
                         qPrintable(c + u' ' + s + u": " + offered.join(u' ')));
            }
        }
    }

private:
    QStringList m_commands;
    QHash<QString, QStringList> m_subcommands;
};

QTEST_GUILESS_MAIN(TestCommandLine)
#include "tst_commandline.moc"
