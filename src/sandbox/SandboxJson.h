#pragma once
// Builders the sandbox's estate code shares for its JSON literals (ASCII keys).
#include "sandbox/SandboxSearch.h"

#include <QJsonObject>
#include <QJsonValue>

#include <initializer_list>
#include <utility>

namespace fb::SandboxJson {

inline QJsonObject obj(std::initializer_list<std::pair<const char *, QJsonValue>> members)
{
    QJsonObject o;
    for (const auto &[key, value] : members)
        o.insert(QLatin1String(key), value);
    return o;
}

// The string at a JSON-pointer-like path ("/location/metroCode"), or empty.
inline QString str(const QJsonObject &o, const char *path)
{
    return SandboxSearch::valueAt(o, QLatin1String(path)).toString();
}

} // namespace fb::SandboxJson
