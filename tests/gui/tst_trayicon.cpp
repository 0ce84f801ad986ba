// TrayIcon: the badge in the icon's top-right corner carries the approval count (none at 0),
// the tooltip counts approvals waiting and proposals pending and says SANDBOX on the sandbox.
#include "TestEnvironment.h"
#include "gui/TrayIcon.h"

#include <QIcon>
#include <QImage>
#include <QPixmap>
#include <QTest>

using namespace fb;

namespace {

QIcon blueIcon()
{
    QPixmap base(32, 32);
    base.fill(Qt::blue);
    return QIcon(base);
}

} // namespace

class TestTrayIcon : public QObject {
    Q_OBJECT

private slots:
    void init() { fbtest::failOnWarnings(); }

    void trayBadge()
    {
        const QIcon icon = blueIcon();
        const QImage plain = TrayIcon::badgePixmap(icon, 0, 32).toImage();
        const QImage badged = TrayIcon::badgePixmap(icon, 3, 32).toImage();
        QCOMPARE(plain.size(), QSize(32, 32));
        QVERIFY(plain != badged);
        // The badge sits in the top-right corner; the bottom-left is untouched.
        QCOMPARE(badged.pixelColor(2, 30), plain.pixelColor(2, 30));
        QVERIFY(badged.pixelColor(26, 6) != plain.pixelColor(26, 6));

        TrayIcon tray(icon);
        tray.setCounts(2, 5);
        QVERIFY(tray.toolTip().contains(QStringLiteral("2 approval(s) waiting")));
        QVERIFY(tray.toolTip().contains(QStringLiteral("5 proposal(s) pending")));
        tray.setSandbox(true);
        QVERIFY(tray.toolTip().contains(QStringLiteral("SANDBOX")));
    }

    void noBadgeWithoutApprovals()
    {
        const QIcon icon = blueIcon();
        QCOMPARE(TrayIcon::badgeIcon(icon, 0).cacheKey(), icon.cacheKey());
        QCOMPARE(TrayIcon::badgeIcon(icon, -1).cacheKey(), icon.cacheKey());
        QVERIFY(TrayIcon::badgeIcon(icon, 1).cacheKey() != icon.cacheKey());
        // A null base still gets a badge, on a transparent square of the asked size.
        const QImage onNothing = TrayIcon::badgePixmap(QIcon(), 4, 24).toImage();
        QCOMPARE(onNothing.size(), QSize(24, 24));
        QCOMPARE(onNothing.pixelColor(1, 22).alpha(), 0);
        QVERIFY(onNothing.pixelColor(18, 5).alpha() > 0);
    }

    void countsFollowTheIconAndTooltip()
    {
        const QIcon base = blueIcon();
        TrayIcon tray(base);
        QCOMPARE(tray.approvalsWaiting(), 0);
        QVERIFY(tray.toolTip().startsWith(QStringLiteral("Fabric Broker\n")));
        QVERIFY(tray.toolTip().contains(QStringLiteral("0 approval(s) waiting")));
        const QImage plain = tray.icon().pixmap(32, 32).toImage();
        tray.setCounts(1, 0);
        QCOMPARE(tray.approvalsWaiting(), 1);
        QVERIFY(tray.icon().pixmap(32, 32).toImage() != plain);
        tray.setCounts(0, 3);
        QCOMPARE(tray.approvalsWaiting(), 0);
        QCOMPARE(tray.icon().pixmap(32, 32).toImage(), plain);
        QVERIFY(tray.toolTip().contains(QStringLiteral("3 proposal(s) pending")));
        QVERIFY(!tray.toolTip().contains(QStringLiteral("SANDBOX")));
    }
};

QTEST_MAIN(TestTrayIcon)
#include "tst_trayicon.moc"
