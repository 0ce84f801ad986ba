#pragma once
// GuiResources: the compiled-in icons of resources/fabric-broker.qrc. The GUI library is
// static, so its resources must be registered explicitly once before use.
#include <QIcon>

namespace fb {

void initGuiResources(); // idempotent
// The app icon, from the PNG renditions (no SVG plugin needed).
QIcon appIcon();

} // namespace fb
