// DesktopPreferences: the desktop app's non-secret settings round-trip through QSettings under
// the saved keys of the settings table; an empty value removes its key (the default applies),
// an unknown saved approval channel reads as none, and saving never touches the keychain flag.
#include "TestEnvironment.h"
#include "core/Settings.h"
#include "gui/DesktopPreferences.h"

#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace fb;

class TestDesktopPreferences : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    QString file() const { return m_dir.filePath(QStringLiteral("prefs.ini")); }

private slots:
    void init()
    {
        fbtest::failOnWarnings();
        QVERIFY(m_dir.isValid());
        QFile::remove(file());
    }

    void emptySettingsLoadDefaults()
    {
        const QSettings s(file(), QSettings::IniFormat);
        const DesktopPreferences p = DesktopPreferences::load(s);
        QVERIFY(p.endpoint.isEmpty());
        QVERIFY(p.toolsets.isEmpty());
        QVERIFY(!p.approvalMode);
        QVERIFY(p.httpAddress.isEmpty());
        QVERIFY(!p.credentialsInKeychain);
    }

    void saveThenLoad()
    {
        DesktopPreferences p;
        p.endpoint = QUrl(QStringLiteral("https://api.example.test"));
        p.toolsets = {QStringLiteral("read"), QStringLiteral("mutate")};
        p.approvalMode = ApprovalMode::Desktop;
        p.httpAddress = QStringLiteral("127.0.0.1:8765");
        {
            QSettings s(file(), QSettings::IniFormat);
            p.save(s);
            QCOMPARE(s.value(Settings::savedKey(SettingId::Approval)).toString(),
                     BrokerSettings::approvalModeName(ApprovalMode::Desktop));
            QCOMPARE(s.value(Settings::savedKey(SettingId::FabricEndpoint)).toString(),
                     QStringLiteral("https://api.example.test"));
        }
        const QSettings s(file(), QSettings::IniFormat);
        const DesktopPreferences q = DesktopPreferences::load(s);
        QCOMPARE(q.endpoint, p.endpoint);
        QCOMPARE(q.toolsets, p.toolsets);
        QCOMPARE(q.approvalMode, std::optional<ApprovalMode>(ApprovalMode::Desktop));
        QCOMPARE(q.httpAddress, p.httpAddress);
    }

    void emptyValuesRemoveTheirKeys()
    {
        QSettings s(file(), QSettings::IniFormat);
        DesktopPreferences p;
        p.endpoint = QUrl(QStringLiteral("https://api.example.test"));
        p.toolsets = {QStringLiteral("read")};
        p.approvalMode = ApprovalMode::Client;
        p.httpAddress = QStringLiteral("127.0.0.1:8765");
        p.save(s);
        for (SettingId id : {SettingId::FabricEndpoint, SettingId::Toolsets, SettingId::Approval,
                             SettingId::HttpAddress})
            QVERIFY(s.contains(Settings::savedKey(id)));
        DesktopPreferences().save(s);
        for (SettingId id : {SettingId::FabricEndpoint, SettingId::Toolsets, SettingId::Approval,
                             SettingId::HttpAddress})
            QVERIFY2(!s.contains(Settings::savedKey(id)), qPrintable(Settings::savedKey(id)));
    }

    void unknownApprovalChannelReadsAsNone()
    {
        QSettings s(file(), QSettings::IniFormat);
        s.setValue(Settings::savedKey(SettingId::Approval), QStringLiteral("carrier-pigeon"));
        QVERIFY(!DesktopPreferences::load(s).approvalMode);
    }

    void notificationsAreOnUnlessTurnedOff()
    {
        QSettings s(file(), QSettings::IniFormat);
        QVERIFY(DesktopPreferences::load(s).notifications);
        DesktopPreferences p;
        p.notifications = false;
        p.save(s);
        QCOMPARE(s.value(Settings::savedKey(SettingId::DesktopNotifications)), QVariant(false));
        QVERIFY(!DesktopPreferences::load(s).notifications);
        // On again: the key goes, the default (on) applies.
        DesktopPreferences().save(s);
        QVERIFY(!s.contains(Settings::savedKey(SettingId::DesktopNotifications)));
        QVERIFY(DesktopPreferences::load(s).notifications);
    }

    void keychainFlagIsSetApart()
    {
        QSettings s(file(), QSettings::IniFormat);
        DesktopPreferences::setCredentialsInKeychain(s, true);
        QVERIFY(DesktopPreferences::load(s).credentialsInKeychain);
        // save() leaves the flag alone, whatever the struct says.
        DesktopPreferences().save(s);
        QVERIFY(DesktopPreferences::load(s).credentialsInKeychain);
        DesktopPreferences::setCredentialsInKeychain(s, false);
        QVERIFY(!DesktopPreferences::load(s).credentialsInKeychain);
    }
};

QTEST_GUILESS_MAIN(TestDesktopPreferences)
#include "tst_desktoppreferences.moc"
