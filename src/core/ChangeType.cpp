#include "core/ChangeType.h"

namespace fb {

QString changeTypeName(ChangeType type)
{
    switch (type) {
    case ChangeType::ConnectionCreate:
        return QStringLiteral("connection_create");
    case ChangeType::NetworkCreate:
        return QStringLiteral("network_create");
    case ChangeType::ServiceTokenCreate:
        return QStringLiteral("service_token_create");
    }
    Q_UNREACHABLE();
    return {};
}

std::optional<ChangeType> changeTypeFromName(QStringView name)
{
    for (auto t : {ChangeType::ConnectionCreate, ChangeType::NetworkCreate,
                   ChangeType::ServiceTokenCreate}) {
        if (name == changeTypeName(t))
            return t;
    }
    return std::nullopt;
}

QStringList changeTypeNames()
{
    return {changeTypeName(ChangeType::ConnectionCreate), changeTypeName(ChangeType::NetworkCreate),
            changeTypeName(ChangeType::ServiceTokenCreate)};
}

QString changeTypePath(ChangeType type)
{
    switch (type) {
    case ChangeType::ConnectionCreate:
        return QStringLiteral("/fabric/v4/connections");
    case ChangeType::NetworkCreate:
        return QStringLiteral("/fabric/v4/networks");
    case ChangeType::ServiceTokenCreate:
        return QStringLiteral("/fabric/v4/serviceTokens");
    }
    Q_UNREACHABLE();
    return {};
}

QString changeTypeNoun(ChangeType type)
{
    switch (type) {
    case ChangeType::ConnectionCreate:
        return QStringLiteral("connection");
    case ChangeType::NetworkCreate:
        return QStringLiteral("network");
    case ChangeType::ServiceTokenCreate:
        return QStringLiteral("service token");
    }
    Q_UNREACHABLE();
    return {};
}

} // namespace fb
