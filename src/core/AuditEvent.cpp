#include "core/AuditEvent.h"

#include <QMetaType>

#include <array>

using namespace Qt::StringLiterals;

namespace fb {

namespace {

// The one name table, indexed by AuditEventType (declaration order); tst_auditevent pins each
// name to its type, and checks that they are unique.
constexpr std::array<QLatin1StringView, AuditEventTypeCount> Names{
    "proposed"_L1,          "propose_failed"_L1,
    "revalidation"_L1,      "policy"_L1,
    "redemption"_L1,        "approval_requested"_L1,
    "decision"_L1,          "sending"_L1,
    "executed"_L1,          "evicted"_L1,
    "expired"_L1,           "ledger_reset"_L1,
    "policy_changed"_L1,    "approval_rejected"_L1,
    "endpoint_switched"_L1, "export_interrupted"_L1,
    "export_resumed"_L1,    "export_gap"_L1,
    "webhook_delivered"_L1, "webhook_failed"_L1,
    "log_continued"_L1};

// A QVariant holding an AuditEventType (a queued signal argument, a QSignalSpy entry) converts
// to its on-disk name.
[[maybe_unused]] const bool ConverterRegistered =
    QMetaType::registerConverter<AuditEventType, QString>(
        [](AuditEventType type) { return auditEventNameString(type); });

} // namespace

const QList<AuditEventType> &allAuditEventTypes()
{
    static const QList<AuditEventType> all = [] {
        QList<AuditEventType> out;
        for (int i = 0; i < AuditEventTypeCount; ++i)
            out.append(static_cast<AuditEventType>(i));
        return out;
    }();
    return all;
}

QLatin1StringView auditEventName(AuditEventType type)
{
    const auto index = static_cast<size_t>(type);
    return index < Names.size() ? Names[index] : QLatin1StringView();
}

QString auditEventNameString(AuditEventType type)
{
    return QString(auditEventName(type));
}

std::optional<AuditEventType> auditEventFromName(QStringView name)
{
    for (size_t i = 0; i < Names.size(); ++i) {
        if (name == Names[i])
            return static_cast<AuditEventType>(i);
    }
    return std::nullopt;
}

} // namespace fb
