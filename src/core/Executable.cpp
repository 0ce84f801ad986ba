#include "core/Executable.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace fb {

QString launcherPath()
{
    const QString self = QCoreApplication::applicationFilePath();
    const QFileInfo app(self);
    if (app.fileName() != QStringLiteral("fabric-broker-app") &&
        app.fileName() != QStringLiteral("fabric-broker-server"))
        return self;
    const QDir dir = app.absoluteDir();
    for (const QString &candidate :
         {dir.filePath(QStringLiteral("fabric-broker")),
          QDir::cleanPath(dir.filePath(QStringLiteral(FB_BINDIR_FROM_APP "/fabric-broker")))}) {
        const QFileInfo launcher(candidate);
        if (launcher.isFile() && launcher.isExecutable())
            return launcher.absoluteFilePath();
    }
    return self;
}

} // namespace fb
