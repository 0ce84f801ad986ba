// The read tools' table (broker/CatalogTable): tools/list stays what it was before the catalog
// became a table (snapshot in data/tools-list-read.json, dumped from the binary before the
// change), byte for byte: every name, description, input and output schema and annotation the
// table's descriptors build.
#include "BrokerHarness.h"
#include "TestEnvironment.h"

#include <QFile>

using namespace Qt::StringLiterals;

class TestCatalogTable : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void toolsListIsTheSnapshot()
    {
        fbtest::BrokerHarness h;
        QFile f(QStringLiteral(FB_TEST_DATA_DIR "/tools-list-read.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonDocument snapshot = QJsonDocument::fromJson(f.readAll());
        QVERIFY(snapshot.isObject());
        const QByteArray now = h.registry.toolsListJson(QStringList{u"read"_s});
        QCOMPARE(QJsonDocument::fromJson(now), snapshot);
        QCOMPARE(now, snapshot.toJson(QJsonDocument::Compact)); // byte for byte
    }
};

QTEST_GUILESS_MAIN(TestCatalogTable)
#include "tst_catalogtable.moc"
