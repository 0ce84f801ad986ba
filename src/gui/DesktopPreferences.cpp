#include "gui/DesktopPreferences.h"

#include "core/Settings.h"

namespace fb {

namespace {
QString key(SettingId id)
{
    return QString(Settings::spec(id).savedKey);
}
} // namespace

DesktopPreferences DesktopPreferences::load(const QSettings &settings)
{
    DesktopPreferences p;
    p.endpoint = QUrl(settings.value(key(SettingId::FabricEndpoint)).toString());
    p.toolsets = settings.value(key(SettingId::Toolsets)).toStringList();
    p.approvalMode = settings.value(key(SettingId::Approval)).toString();
    p.httpAddress = settings.value(key(SettingId::HttpAddress)).toString();
    p.credentialsInKeychain = settings.value(key(SettingId::CredentialsInKeychain), false).toBool();
    return p;
}

void DesktopPreferences::save(QSettings &settings) const
{
    if (endpoint.isEmpty())
        settings.remove(key(SettingId::FabricEndpoint));
    else
        settings.setValue(key(SettingId::FabricEndpoint), endpoint.toString());
    if (toolsets.isEmpty())
        settings.remove(key(SettingId::Toolsets));
    else
        settings.setValue(key(SettingId::Toolsets), toolsets);
    if (approvalMode.isEmpty())
        settings.remove(key(SettingId::Approval));
    else
        settings.setValue(key(SettingId::Approval), approvalMode);
    if (httpAddress.isEmpty())
        settings.remove(key(SettingId::HttpAddress));
    else
        settings.setValue(key(SettingId::HttpAddress), httpAddress);
}

void DesktopPreferences::setCredentialsInKeychain(QSettings &settings, bool stored)
{
    settings.setValue(key(SettingId::CredentialsInKeychain), stored);
}

} // namespace fb
