// The sandbox's seeded estate, pinned: SandboxEstate's JSON (every resource the sandbox serves,
// its VLAN reservations and rate card) and its description must equal the golden files in data/,
// byte for byte. A deliberate change of the estate regenerates them: run this test with
// FB_WRITE_ESTATE_GOLDEN set to data/'s path, then review the diff.
#include "TestEnvironment.h"
#include "sandbox/SandboxEstate.h"

#include <QFile>
#include <QJsonDocument>
#include <QTest>

using fb::SandboxEstate;

namespace {

QString goldenPath(const char *name)
{
    return QStringLiteral(FB_TEST_DATA_DIR "/") + QLatin1String(name);
}

// Compares actual with the golden file line by line, so a failure names the first differing line.
void compareWithGolden(const char *name, const QByteArray &actual)
{
    const QString writeDir = qEnvironmentVariable("FB_WRITE_ESTATE_GOLDEN");
    if (!writeDir.isEmpty()) {
        QFile out(writeDir + QLatin1Char('/') + QLatin1String(name));
        QVERIFY2(out.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable(out.fileName()));
        out.write(actual);
        QSKIP("golden file written");
    }
    QFile in(goldenPath(name));
    QVERIFY2(in.open(QIODevice::ReadOnly), qPrintable(in.fileName()));
    const QByteArray golden = in.readAll();
    const QList<QByteArray> want = golden.split('\n');
    const QList<QByteArray> got = actual.split('\n');
    for (qsizetype i = 0; i < qMin(want.size(), got.size()); ++i) {
        if (want.at(i) != got.at(i))
            QFAIL(
                qPrintable(QStringLiteral("%1 line %2: expected\n  %3\nbut the estate has\n  %4")
                               .arg(QLatin1String(name))
                               .arg(i + 1)
                               .arg(QString::fromUtf8(want.at(i)), QString::fromUtf8(got.at(i)))));
    }
    QCOMPARE(got.size(), want.size());
    QCOMPARE(actual, golden);
}

} // namespace

class TestFabricSandboxSeed : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init() { fbtest::failOnWarnings(); }

    void estateJsonMatchesGolden()
    {
        const SandboxEstate estate; // seeded on http://127.0.0.1
        compareWithGolden("estate.golden.json",
                          QJsonDocument(estate.toJson()).toJson(QJsonDocument::Indented));
    }

    void estateDescriptionMatchesGolden()
    {
        const SandboxEstate estate;
        compareWithGolden("estate.golden.txt", estate.describe().toUtf8());
    }

    void reseedOnAnotherBaseUrlOnlyMovesHrefs()
    {
        SandboxEstate estate;
        estate.seed(QStringLiteral("http://127.0.0.1:4711"));
        QByteArray moved = QJsonDocument(estate.toJson()).toJson(QJsonDocument::Indented);
        moved.replace("http://127.0.0.1:4711/", "http://127.0.0.1/");
        compareWithGolden("estate.golden.json", moved);
    }
};

QTEST_GUILESS_MAIN(TestFabricSandboxSeed)
#include "tst_sandboxestate.moc"
