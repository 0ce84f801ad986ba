// GuiResources: the icons compiled into the static GUI library are reachable once registered
// (registering again is harmless), and the app icon carries every PNG rendition.
#include "TestEnvironment.h"
#include "gui/GuiResources.h"

#include <QFile>
#include <QIcon>
#include <QTest>

class TestGuiResources : public QObject {
    Q_OBJECT

private slots:
    void init() { fbtest::failOnWarnings(); }

    void registeredOnceAndAgain()
    {
        const QString png = QStringLiteral(":/fabric-broker/icons/fabric-broker-16.png");
        fb::initGuiResources();
        QVERIFY(QFile::exists(png));
        fb::initGuiResources();
        QVERIFY(QFile::exists(png));
    }

    void appIconHasEveryRendition()
    {
        const QIcon icon = fb::appIcon();
        QVERIFY(!icon.isNull());
        const QList<QSize> sizes = icon.availableSizes();
        for (int size : {16, 32, 48, 64, 128, 256, 512})
            QVERIFY2(sizes.contains(QSize(size, size)), qPrintable(QString::number(size)));
        QCOMPARE(icon.pixmap(QSize(48, 48)).size(), QSize(48, 48));
    }
};

QTEST_MAIN(TestGuiResources)
#include "tst_guiresources.moc"
