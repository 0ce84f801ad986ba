#include "core/PropertyReasons.h"

#include <QJsonObject>

namespace fb {

QJsonArray propertyReasonsJson(const PropertyReasons &info)
{
    QJsonArray array;
    for (const auto &[property, reason] : info) {
        QJsonObject item;
        if (!property.isEmpty())
            item.insert(QStringLiteral("property"), property);
        if (!reason.isEmpty())
            item.insert(QStringLiteral("reason"), reason);
        array.append(item);
    }
    return array;
}

} // namespace fb
