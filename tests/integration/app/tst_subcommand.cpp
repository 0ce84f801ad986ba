// Subcommand: what every subcommand does alike with its command line. The words after its name
// (whether the program comes first or not); no words is a usage error (exit 2) and a first word
// asking for help prints the usage (exit 0); an options-only subcommand refuses an unknown
// option or a stray argument on stderr (exit 2) and answers --help with its own usage line.
#include "AppOutput.h"
#include "TestEnvironment.h"
#include "app/Subcommand.h"

#include <QCommandLineParser>
#include <QTest>

using namespace fb;

class TestSubcommand : public QObject {
    Q_OBJECT

    static void addOptions(QCommandLineParser &parser)
    {
        parser.addHelpOption();
        parser.addOption(QCommandLineOption(QStringLiteral("port"), QStringLiteral("The port."),
                                            QStringLiteral("n")));
    }

private slots:
    void init() { fbtest::failOnWarnings(); }

    void subcommandWords()
    {
        const QStringList withProgram{"fabric-broker", "policy", "show", "--json"};
        QCOMPARE(fb::subcommandWords(withProgram, u"policy"), (QStringList{"show", "--json"}));
        QCOMPARE(fb::subcommandWords(QStringList{"policy", "show"}, u"policy"),
                 QStringList{"show"});
        QCOMPARE(fb::subcommandWords(QStringList{"fabric-broker", "policy"}, u"policy"),
                 QStringList{});
        QCOMPARE(fb::subcommandWords(QStringList{}, u"policy"), QStringList{});
    }

    void answerUsage_data()
    {
        QTest::addColumn<QStringList>("words");
        QTest::addColumn<int>("exitCode"); // -1: go on
        QTest::newRow("none") << QStringList{} << 2;
        QTest::newRow("--help") << QStringList{"--help"} << 0;
        QTest::newRow("-h") << QStringList{"-h", "more"} << 0;
        QTest::newRow("help") << QStringList{"help"} << 0;
        QTest::newRow("a command") << QStringList{"show"} << -1;
        QTest::newRow("help later") << QStringList{"show", "--help"} << -1;
    }

    void answerUsage()
    {
        QFETCH(QStringList, words);
        QFETCH(int, exitCode);
        const QString usage = QStringLiteral("Usage: fabric-broker policy <command>\n");
        fbtest::AppOutput output;
        const std::optional<int> code = fb::answerUsage(words, usage);
        const QString out = output.out();
        QCOMPARE(code.value_or(-1), exitCode);
        QCOMPARE(out, exitCode < 0 ? QString() : usage);
        QCOMPARE(output.err(), QString());
    }

    void parseOptionsGoesOn()
    {
        QCommandLineParser parser;
        addOptions(parser);
        fbtest::AppOutput output;
        const std::optional<int> code =
            fb::parseOptions(parser, QStringList{"fabric-broker", "http-headers", "--port", "7431"},
                             QStringLiteral("http-headers"), QStringLiteral("Usage: x"));
        output.restore();
        QVERIFY(!code);
        QCOMPARE(parser.value(QStringLiteral("port")), QStringLiteral("7431"));
        QCOMPARE(output.out(), QString());
        QCOMPARE(output.err(), QString());
    }

    void parseOptionsRefuses_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("error");
        QTest::newRow("unknown option")
            << QStringList{"fabric-broker", "http-headers", "--nope"} << "Unknown option 'nope'.";
        QTest::newRow("positional")
            << QStringList{"fabric-broker", "http-headers", "extra"} << "Unexpected argument";
    }

    void parseOptionsRefuses()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, error);
        QCommandLineParser parser;
        addOptions(parser);
        fbtest::AppOutput output;
        const std::optional<int> code =
            fb::parseOptions(parser, args, QStringLiteral("http-headers"), QStringLiteral("U"));
        const QString err = output.err();
        QCOMPARE(code, std::optional<int>(2));
        QCOMPARE(output.out(), QString());
        QVERIFY2(err.startsWith(error), qPrintable(err));
        QVERIFY2(err.endsWith(QStringLiteral("\nTry 'fabric-broker http-headers --help'.\n")),
                 qPrintable(err));
    }

    void parseOptionsHelp()
    {
        QCommandLineParser parser;
        addOptions(parser);
        fbtest::AppOutput output;
        const std::optional<int> code =
            fb::parseOptions(parser, QStringList{"/usr/bin/fabric-broker", "http-headers", "-h"},
                             QStringLiteral("http-headers"),
                             QStringLiteral("Usage: fabric-broker http-headers [options]"));
        const QString out = output.out();
        QCOMPARE(code, std::optional<int>(0));
        // The usage line replaces Qt's, which names the program as typed.
        QVERIFY2(out.startsWith(QStringLiteral("Usage: fabric-broker http-headers [options]\n")),
                 qPrintable(out));
        QVERIFY2(!out.contains(QStringLiteral("/usr/bin")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("--port <n>")), qPrintable(out));
        QCOMPARE(output.err(), QString());
    }
};

QTEST_GUILESS_MAIN(TestSubcommand)
#include "tst_subcommand.moc"
