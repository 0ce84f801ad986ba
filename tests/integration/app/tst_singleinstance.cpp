// SingleInstance: one desktop app per user. The first instance listens on the control socket
// in the per-user runtime directory (user-only permissions, a stale socket file replaced); a
// second launch that asks it to raise its window gets "yes" and the first instance is told;
// with nobody listening the answer is "no".
#include "TestEnvironment.h"
#include "app/SingleInstance.h"

#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace fb;

class TestSingleInstance : public QObject {
    Q_OBJECT
    QTemporaryDir m_runtime;
    std::unique_ptr<fbtest::ScopedEnvironmentVariable> m_env;

private slots:
    void init() { fbtest::failOnWarnings(); }

    void initTestCase()
    {
        QVERIFY(m_runtime.isValid());
        QVERIFY(QFile::setPermissions(m_runtime.path(), QFileDevice::ReadOwner |
                                                            QFileDevice::WriteOwner |
                                                            QFileDevice::ExeOwner));
        m_env = std::make_unique<fbtest::ScopedEnvironmentVariable>(
            "XDG_RUNTIME_DIR", QFile::encodeName(m_runtime.path()));
    }
    void cleanupTestCase() { m_env.reset(); }

    void socketInTheRuntimeDirectory()
    {
        QCOMPARE(SingleInstance::controlSocketPath(),
                 m_runtime.path() + QStringLiteral("/fabric-broker-ui.sock"));
    }

    void nobodyListening() { QVERIFY(!SingleInstance::askRunningInstanceToRaise(2000)); }

    void secondLaunchRaisesTheFirst()
    {
        // A stale socket file of an instance that died is replaced.
        {
            QFile stale(SingleInstance::controlSocketPath());
            QVERIFY(stale.open(QIODevice::WriteOnly));
        }
        // The first instance answers from its own thread while this one asks, blocking.
        QThread thread;
        auto *first = new SingleInstance;
        first->moveToThread(&thread);
        connect(&thread, &QThread::finished, first, &QObject::deleteLater);
        thread.start();
        bool listening = false;
        QString error;
        QMetaObject::invokeMethod(
            first, [&] { listening = first->listen(&error); }, Qt::BlockingQueuedConnection);
        QVERIFY2(listening, qPrintable(error));
        const QFileInfo socket(SingleInstance::controlSocketPath());
        QCOMPARE(socket.permissions() & (QFileDevice::ReadOther | QFileDevice::WriteOther |
                                         QFileDevice::ReadGroup | QFileDevice::WriteGroup),
                 QFileDevice::Permissions());
        QSignalSpy raised(first, &SingleInstance::raiseRequested);

        const bool answered = SingleInstance::askRunningInstanceToRaise(5000);
        QTRY_COMPARE(raised.size(), 1);
        thread.quit();
        thread.wait();
        QVERIFY(answered);
    }
};

QTEST_GUILESS_MAIN(TestSingleInstance)
#include "tst_singleinstance.moc"
