#include "gui/GuiResources.h"

#include <QFile>

static void registerFabricBrokerResources()
{
    Q_INIT_RESOURCE(fabric_broker);
}

namespace fb {

void initGuiResources()
{
    static const bool once = [] {
        registerFabricBrokerResources();
        return true;
    }();
    Q_UNUSED(once);
}

QIcon appIcon()
{
    initGuiResources();
    QIcon icon;
    for (int size : {16, 32, 48, 64, 128, 256, 512}) {
        const QString path = QStringLiteral(":/fabric-broker/icons/fabric-broker-%1.png").arg(size);
        if (QFile::exists(path))
            icon.addFile(path, QSize(size, size));
    }
    return icon;
}

} // namespace fb
