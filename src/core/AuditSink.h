#pragma once
// AuditSink: where the broker records every step worth an audit record. record() returns only
// once the record is durable (flushed and synced); false means it is not, and a step that must
// be recorded before it proceeds (sending a create) does not proceed.
#include "core/AuditEvent.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

namespace fb {

class AuditSink {
public:
    virtual ~AuditSink() = default;
    virtual bool record(AuditEventType type, const QJsonObject &data) = 0;
};

} // namespace fb
