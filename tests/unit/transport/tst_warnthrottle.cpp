// WarnThrottle (src/transport/http): one line per interval and kind, the next line carrying how
// many were not logged (issue #34, item 9: refused connections flooded the log).
#include "TestEnvironment.h"
#include "transport/http/WarnThrottle.h"

#include <QtTest>

class TestWarnThrottle : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void oneLineASecondWithTheCount()
    {
        fb::transport::WarnThrottle t;
        qint64 unlogged = -1;
        QVERIFY(t.allow(1000, &unlogged));
        QCOMPARE(unlogged, 0);
        int logged = 0;
        // 190,102 refusals in 12 s (the flood the issue measured) give 12 lines.
        for (qint64 i = 0; i < 190102; ++i)
            logged += t.allow(1000 + i * 12000 / 190102, &unlogged) ? 1 : 0;
        QVERIFY2(logged <= 12, qPrintable(QString::number(logged)));
        QVERIFY(t.allow(14000, &unlogged));
        QVERIFY(unlogged > 0);
        QVERIFY(t.allow(16000, &unlogged));
        QCOMPARE(unlogged, 0);
    }
    void aClockSteppedBackDoesNotSilenceIt()
    {
        fb::transport::WarnThrottle t;
        qint64 unlogged = 0;
        QVERIFY(t.allow(50000, &unlogged));
        QVERIFY(t.allow(1000, &unlogged));
    }
};

QTEST_GUILESS_MAIN(TestWarnThrottle)
#include "tst_warnthrottle.moc"
