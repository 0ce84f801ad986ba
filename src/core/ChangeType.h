#pragma once
// The three creates the broker can carry. There are no update or delete change types, by design.
#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace fb {

enum class ChangeType { ConnectionCreate, NetworkCreate, ServiceTokenCreate };

// "connection_create", "network_create", "service_token_create".
QString changeTypeName(ChangeType type);
std::optional<ChangeType> changeTypeFromName(QStringView name);
QStringList changeTypeNames();
// Every change type, in the table's order (the order of changeTypeNames()).
QList<ChangeType> changeTypes();
// The Fabric v4 collection a create of this type is POSTed to, e.g. "/fabric/v4/connections".
QString changeTypePath(ChangeType type);
// Human noun for UI and messages: "connection", "network", "service token".
QString changeTypeNoun(ChangeType type);

} // namespace fb
