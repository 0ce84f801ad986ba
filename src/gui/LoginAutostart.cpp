#include "gui/LoginAutostart.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

using namespace Qt::StringLiterals;

namespace fb {

QString LoginAutostart::fileName()
{
    return u"io.github.fabric_broker.FabricBroker.desktop"_s;
}

LoginAutostart::LoginAutostart(QString userDir, QStringList systemDirs, QString executable)
    : m_userDir(std::move(userDir))
    , m_systemDirs(std::move(systemDirs))
    , m_executable(std::move(executable))
{
}

LoginAutostart LoginAutostart::forCurrentUser(const QString &executable)
{
    QString home = qEnvironmentVariable("XDG_CONFIG_HOME");
    if (home.isEmpty() || !QDir::isAbsolutePath(home))
        home = QDir::homePath() + u"/.config"_s;
    QStringList dirs;
    const QString configDirs = qEnvironmentVariable("XDG_CONFIG_DIRS");
    for (const QString &d : configDirs.split(u':', Qt::SkipEmptyParts)) {
        if (QDir::isAbsolutePath(d))
            dirs << d + u"/autostart"_s;
    }
    if (dirs.isEmpty())
        dirs << u"/etc/xdg/autostart"_s;
    return LoginAutostart(home + u"/autostart"_s, dirs, executable);
}

QString LoginAutostart::userEntryPath() const
{
    return m_userDir + u'/' + fileName();
}

QString LoginAutostart::systemEntryPath() const
{
    for (const QString &dir : m_systemDirs) {
        const QString path = dir + u'/' + fileName();
        if (QFileInfo(path).isFile())
            return path;
    }
    return {};
}

// Active unless the entry says Hidden=true or X-GNOME-Autostart-enabled=false.
bool LoginAutostart::entryIsActive(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return false;
    bool inMain = false;
    while (!f.atEnd()) {
        const QByteArray line = f.readLine(4096).trimmed();
        if (line.startsWith('[')) {
            inMain = line == "[Desktop Entry]";
            continue;
        }
        if (!inMain)
            continue;
        const qsizetype eq = line.indexOf('=');
        if (eq < 0)
            continue;
        const QByteArray key = line.left(eq).trimmed();
        const QByteArray value = line.mid(eq + 1).trimmed();
        if (key == "Hidden" && value == "true")
            return false;
        if (key == "X-GNOME-Autostart-enabled" && value == "false")
            return false;
    }
    return true;
}

bool LoginAutostart::isEnabled() const
{
    const QString user = userEntryPath();
    if (QFileInfo::exists(user))
        return entryIsActive(user); // the user's file overrides the system one
    const QString system = systemEntryPath();
    return !system.isEmpty() && entryIsActive(system);
}

QString LoginAutostart::execValue(const QString &executable)
{
    static const QString reserved = u" \t\n\"'\\><~|&;$*?#()`"_s;
    bool needsQuotes = false;
    for (QChar c : executable)
        needsQuotes = needsQuotes || reserved.contains(c);
    if (!needsQuotes)
        return executable;
    QString quoted = u"\""_s;
    for (QChar c : executable) {
        if (c == u'"' || c == u'`' || c == u'$' || c == u'\\')
            quoted += u'\\';
        quoted += c;
    }
    quoted += u'"';
    // In a desktop file a backslash itself is escaped once more (string value escaping).
    return quoted.replace(u"\\"_s, u"\\\\"_s);
}

bool LoginAutostart::setEnabled(bool enabled, QString *error)
{
    const QString user = userEntryPath();
    const bool system = !systemEntryPath().isEmpty();
    const bool wantUserFile = system ? !enabled : enabled;
    if (!wantUserFile) {
        if (QFileInfo::exists(user) && !QFile::remove(user)) {
            *error = u"cannot remove %1"_s.arg(user);
            return false;
        }
        if (isEnabled() != enabled) {
            *error = u"%1 still decides"_s.arg(systemEntryPath());
            return false;
        }
        return true;
    }
    if (!QDir().mkpath(m_userDir)) {
        *error = u"cannot create %1"_s.arg(m_userDir);
        return false;
    }
    QByteArray text = "[Desktop Entry]\n"
                      "Type=Application\n"
                      "Name=Fabric Broker\n"
                      "Comment=Approve the changes AI agents propose to Equinix Fabric\n"
                      "Icon=fabric-broker\n"
                      "Terminal=false\n";
    if (system) {
        // The spec's way to switch a system entry off for one user.
        text += "Exec=fabric-broker\nHidden=true\n";
    } else {
        text += "Exec=" + execValue(m_executable).toUtf8() + "\nX-GNOME-Autostart-enabled=true\n";
    }
    QSaveFile f(user);
    if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size() || !f.commit()) {
        *error = u"cannot write %1: %2"_s.arg(user, f.errorString());
        return false;
    }
    return true;
}

} // namespace fb
