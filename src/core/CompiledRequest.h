#pragma once
// CompiledRequest: exactly what will go on the wire for a create, and the hash a token binds to.
#include "core/ChangeType.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

namespace fb {

struct CompiledRequest {
    ChangeType changeType = ChangeType::ConnectionCreate;
    QByteArray method = "POST";
    QString path;    // e.g. "/fabric/v4/connections" (no query; dryRun is added by the client)
    QByteArray body; // canonical JSON (RFC 8785), sent unchanged

    // Lowercase hex SHA-256 of the UTF-8 bytes  change_type + "\n" + body.
    QString sha256Hex() const;
    // {method, path, body (parsed JSON)} for MCP results and the audit log.
    QJsonObject toJson() const;
    bool operator==(const CompiledRequest &) const = default;
};

// The request binding formula, in one place: sha256(changeTypeName + "\n" + body).
QString requestSha256(ChangeType type, const QByteArray &body);

} // namespace fb
