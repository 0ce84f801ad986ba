// LoginAutostart and Settings > "Start at login": the packaged XDG autostart entry is on by
// default, a user switches it off with the spec's Hidden=true override and on again; a build
// without the system entry writes (and removes) its own user entry. Real files in scratch
// XDG_CONFIG_HOME / XDG_CONFIG_DIRS; the system entry is the one the package installs.
#include "TestEnvironment.h"
#include "broker/BrokerSettings.h"
#include "fabric/FabricClient.h"
#include "gui/LoginAutostart.h"
#include "gui/SettingsDialog.h"

#include <QApplication>
#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QPointer>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>

using namespace fb;

namespace {

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestLoginAutostart : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_user;
    QString m_system;
    const QString m_packaged =
        QStringLiteral(FB_SOURCE_DIR "/packaging/linux/autostart/") + LoginAutostart::fileName();

    void installSystemEntry()
    {
        QDir().mkpath(m_system);
        QFile::remove(m_system + "/" + LoginAutostart::fileName());
        QVERIFY(QFile::copy(m_packaged, m_system + "/" + LoginAutostart::fileName()));
    }

private slots:
    void init()
    {
        fbtest::failOnWarnings();
        QVERIFY(m_dir.isValid());
        m_user = m_dir.filePath("home/.config/autostart");
        m_system = m_dir.filePath("etc/xdg/autostart");
        QDir(m_dir.filePath("home")).removeRecursively();
        QDir(m_dir.filePath("etc")).removeRecursively();
    }

    void packagedEntryIsOnByDefaultAndUserCanSwitchItOff()
    {
        QVERIFY2(QFile::exists(m_packaged), qPrintable(m_packaged));
        installSystemEntry();
        LoginAutostart a(m_user, {m_dir.filePath("nowhere"), m_system}, "/usr/bin/fabric-broker");
        QCOMPARE(a.systemEntryPath(), m_system + "/" + LoginAutostart::fileName());
        QVERIFY(a.isEnabled()); // on by default for the package
        const QByteArray system = readAll(a.systemEntryPath());
        QVERIFY(system.contains("Exec=fabric-broker\n"));

        QString error;
        QVERIFY2(a.setEnabled(false, &error), qPrintable(error));
        QVERIFY(!a.isEnabled());
        const QByteArray override = readAll(a.userEntryPath());
        QVERIFY2(override.contains("\nHidden=true\n"), override.constData());
        QCOMPARE(readAll(a.systemEntryPath()), system); // the package's file is never touched

        QVERIFY2(a.setEnabled(true, &error), qPrintable(error));
        QVERIFY(a.isEnabled());
        QVERIFY(!QFile::exists(a.userEntryPath())); // back to the package's entry
    }

    void withoutSystemEntryTheUserEntryStartsThisExecutable()
    {
        LoginAutostart a(m_user, {m_system}, "/opt/Fabric Broker/bin/fabric-broker");
        QVERIFY(a.systemEntryPath().isEmpty());
        QVERIFY(!a.isEnabled());
        QString error;
        QVERIFY2(a.setEnabled(true, &error), qPrintable(error));
        QVERIFY(a.isEnabled());
        const QByteArray entry = readAll(a.userEntryPath());
        QVERIFY2(entry.contains("\nExec=\"/opt/Fabric Broker/bin/fabric-broker\"\n"),
                 entry.constData());
        QVERIFY(!entry.contains("Hidden=true"));
        QVERIFY2(a.setEnabled(false, &error), qPrintable(error));
        QVERIFY(!a.isEnabled());
        QVERIFY(!QFile::exists(a.userEntryPath()));
    }

    void disabledByTheDesktopsOwnSwitch()
    {
        QDir().mkpath(m_user);
        QFile f(m_user + "/" + LoginAutostart::fileName());
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("[Desktop Entry]\nType=Application\nExec=fabric-broker\n"
                "X-GNOME-Autostart-enabled=false\n");
        f.close();
        installSystemEntry();
        QVERIFY(!LoginAutostart(m_user, {m_system}, "fabric-broker").isEnabled());
    }

    void execQuoting()
    {
        QCOMPARE(LoginAutostart::execValue("/usr/bin/fabric-broker"),
                 QString("/usr/bin/fabric-broker"));
        QCOMPARE(LoginAutostart::execValue("/a b/fb"), QString("\"/a b/fb\""));
        // `$` and `"` are escaped inside the quotes, and that backslash once more for the
        // desktop file's string escaping.
        QCOMPARE(LoginAutostart::execValue("/x$y/fb"), QString("\"/x\\\\$y/fb\""));
    }

    void forCurrentUserFollowsXdg()
    {
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_dir.filePath("home/.config")));
        qputenv("XDG_CONFIG_DIRS", QFile::encodeName(m_dir.filePath("etc/xdg")) + ":relative");
        const LoginAutostart a = LoginAutostart::forCurrentUser("fabric-broker");
        QCOMPARE(a.userEntryPath(), m_user + "/" + LoginAutostart::fileName());
        installSystemEntry();
        QCOMPARE(a.systemEntryPath(), m_system + "/" + LoginAutostart::fileName());
    }

    void settingsDialogStartAtLogin()
    {
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_dir.filePath("home/.config")));
        qputenv("XDG_CONFIG_DIRS", QFile::encodeName(m_dir.filePath("etc/xdg")));
        installSystemEntry();
        const LoginAutostart autostart =
            LoginAutostart::forCurrentUser(QCoreApplication::applicationFilePath());
        FabricConfig config;
        config.endpoint = QUrl("https://api.equinix.com");
        {
            QPointer<SettingsDialog> dialog =
                new SettingsDialog(config, BrokerSettings{}, false, nullptr);
            auto *check = dialog->findChild<QCheckBox *>("startAtLoginCheck");
            QVERIFY(check);
            QVERIFY(check->isChecked()); // the package's entry: on by default
            QCOMPARE(check->text(), QString("Start at login"));
            check->setChecked(false);
            dialog->findChild<QDialogButtonBox *>("buttonBox")
                ->button(QDialogButtonBox::Save)
                ->click();
            QVERIFY(!autostart.isEnabled());
            QVERIFY(readAll(autostart.userEntryPath()).contains("Hidden=true"));
            delete dialog.data(); // accept() only scheduled its deletion
        }
        {
            QPointer<SettingsDialog> dialog =
                new SettingsDialog(config, BrokerSettings{}, false, nullptr);
            auto *check = dialog->findChild<QCheckBox *>("startAtLoginCheck");
            QVERIFY(!check->isChecked()); // shows what is in effect
            check->setChecked(true);
            dialog->findChild<QDialogButtonBox *>("buttonBox")
                ->button(QDialogButtonBox::Save)
                ->click();
            QVERIFY(autostart.isEnabled());
            QVERIFY(!QFile::exists(autostart.userEntryPath()));
            delete dialog.data(); // accept() only scheduled its deletion
        }
    }
};

QTEST_MAIN(TestLoginAutostart)
#include "tst_loginautostart.moc"
