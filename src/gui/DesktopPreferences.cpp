#include "gui/DesktopPreferences.h"

namespace fb {

namespace {
const QString kEndpoint = QStringLiteral("fabric/endpoint");
const QString kToolsets = QStringLiteral("broker/toolsets");
const QString kApproval = QStringLiteral("broker/approval");
const QString kHttp = QStringLiteral("mcp/httpAddress");
const QString kKeychain = QStringLiteral("fabric/credentialsInKeychain");
} // namespace

DesktopPreferences DesktopPreferences::load(const QSettings &settings)
{
    DesktopPreferences p;
    p.endpoint = QUrl(settings.value(kEndpoint).toString());
    p.toolsets = settings.value(kToolsets).toStringList();
    p.approvalMode = settings.value(kApproval).toString();
    p.httpAddress = settings.value(kHttp).toString();
    p.credentialsInKeychain = settings.value(kKeychain, false).toBool();
    return p;
}

void DesktopPreferences::save(QSettings &settings) const
{
    if (endpoint.isEmpty())
        settings.remove(kEndpoint);
    else
        settings.setValue(kEndpoint, endpoint.toString());
    if (toolsets.isEmpty())
        settings.remove(kToolsets);
    else
        settings.setValue(kToolsets, toolsets);
    if (approvalMode.isEmpty())
        settings.remove(kApproval);
    else
        settings.setValue(kApproval, approvalMode);
    if (httpAddress.isEmpty())
        settings.remove(kHttp);
    else
        settings.setValue(kHttp, httpAddress);
}

void DesktopPreferences::setCredentialsInKeychain(QSettings &settings, bool stored)
{
    settings.setValue(kKeychain, stored);
}

} // namespace fb
