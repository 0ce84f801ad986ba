#pragma once
// PropertyReasons: the additionalInfo of one Fabric error, (property, reason) pairs. The Fabric
// client's error report and the sandbox's ErrorList write them as the same JSON array.
#include <QJsonArray>
#include <QList>
#include <QPair>
#include <QString>

namespace fb {

using PropertyReasons = QList<QPair<QString, QString>>;

// [{"property": …, "reason": …}, …] in order; an empty part is left out of its item.
QJsonArray propertyReasonsJson(const PropertyReasons &info);

} // namespace fb
