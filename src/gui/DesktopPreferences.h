#pragma once
// DesktopPreferences: the desktop app's non-secret settings in QSettings (endpoint, toolsets,
// approval channel). Credentials never live here: see CredentialStore.
#include <QSettings>
#include <QStringList>
#include <QUrl>

namespace fb {

struct DesktopPreferences {
    QUrl endpoint;        // empty: the default (or the environment's)
    QStringList toolsets; // empty: the default (or the environment's)
    QString approvalMode; // "auto", "client", "desktop"; empty: the default

    static DesktopPreferences load(const QSettings &settings);
    void save(QSettings &settings) const;
};

} // namespace fb
