#include "gui/DesktopPreferences.h"

#include "core/Settings.h"

namespace fb {

DesktopPreferences DesktopPreferences::load(const QSettings &settings)
{
    DesktopPreferences p;
    p.endpoint = QUrl(settings.value(Settings::savedKey(SettingId::FabricEndpoint)).toString());
    p.toolsets = settings.value(Settings::savedKey(SettingId::Toolsets)).toStringList();
    p.approvalMode = BrokerSettings::approvalModeFromName(
        settings.value(Settings::savedKey(SettingId::Approval)).toString());
    p.httpAddress = settings.value(Settings::savedKey(SettingId::HttpAddress)).toString();
    p.otlpEndpoint = settings.value(Settings::savedKey(SettingId::OtlpEndpoint)).toString();
    p.auditSyslog = settings.value(Settings::savedKey(SettingId::AuditSyslog)).toString();
    p.notifications = settings
                          .value(Settings::savedKey(SettingId::DesktopNotifications),
                                 Settings::defaultValue(SettingId::DesktopNotifications))
                          .toBool();
    p.credentialsInKeychain =
        settings.value(Settings::savedKey(SettingId::CredentialsInKeychain), false).toBool();
    return p;
}

void DesktopPreferences::save(QSettings &settings) const
{
    if (endpoint.isEmpty())
        settings.remove(Settings::savedKey(SettingId::FabricEndpoint));
    else
        settings.setValue(Settings::savedKey(SettingId::FabricEndpoint), endpoint.toString());
    if (toolsets.isEmpty())
        settings.remove(Settings::savedKey(SettingId::Toolsets));
    else
        settings.setValue(Settings::savedKey(SettingId::Toolsets), toolsets);
    if (!approvalMode)
        settings.remove(Settings::savedKey(SettingId::Approval));
    else
        settings.setValue(Settings::savedKey(SettingId::Approval),
                          BrokerSettings::approvalModeName(*approvalMode));
    if (httpAddress.isEmpty())
        settings.remove(Settings::savedKey(SettingId::HttpAddress));
    else
        settings.setValue(Settings::savedKey(SettingId::HttpAddress), httpAddress);
    // Saved only when off: the default may change, a person's "off" stays.
    if (notifications)
        settings.remove(Settings::savedKey(SettingId::DesktopNotifications));
    else
        settings.setValue(Settings::savedKey(SettingId::DesktopNotifications), false);
    const std::pair<SettingId, const QString *> texts[] = {{SettingId::OtlpEndpoint, &otlpEndpoint},
                                                           {SettingId::AuditSyslog, &auditSyslog}};
    for (const auto &[id, value] : texts) {
        if (value->trimmed().isEmpty())
            settings.remove(Settings::savedKey(id));
        else
            settings.setValue(Settings::savedKey(id), value->trimmed());
    }
}

void DesktopPreferences::setCredentialsInKeychain(QSettings &settings, bool stored)
{
    settings.setValue(Settings::savedKey(SettingId::CredentialsInKeychain), stored);
}

} // namespace fb
