#pragma once
// LoginAutostart: the "Start at login" switch, kept where desktops look for it (the XDG
// Autostart spec), so a workstation normally has the app running when an MCP client spawns
// `fabric-broker --stdio`. The package installs the system entry
// <XDG_CONFIG_DIRS>/autostart/<app id>.desktop (on for every user). A user turns it off with a
// same-named file in $XDG_CONFIG_HOME/autostart containing Hidden=true (the spec's override),
// and on again by removing that override. Without a system entry (a build run from its tree),
// "on" writes a user entry that starts this executable and "off" removes it.
#include <QString>
#include <QStringList>

namespace fb {

class LoginAutostart {
public:
    static QString fileName(); // "io.github.fabric_broker.FabricBroker.desktop"

    LoginAutostart(QString userDir, QStringList systemDirs, QString executable);
    // $XDG_CONFIG_HOME/autostart (default ~/.config) and each $XDG_CONFIG_DIRS/autostart
    // (default /etc/xdg).
    static LoginAutostart forCurrentUser(const QString &executable);

    QString userEntryPath() const;
    QString systemEntryPath() const; // empty: no system entry installed
    bool isEnabled() const;
    bool setEnabled(bool enabled, QString *error);

    // Exec= value for a path, quoted as the Desktop Entry spec wants when needed.
    static QString execValue(const QString &executable);

private:
    static bool entryIsActive(const QString &path);

    QString m_userDir;
    QStringList m_systemDirs;
    QString m_executable;
};

} // namespace fb
