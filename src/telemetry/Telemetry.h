#pragma once
// Telemetry: the process's one tracer, one metric store with the instruments every layer
// records into, and the OTLP exporter when one is configured (docs/observability.md). Owned by
// the app's ServerHost; the MCP engine and the broker reach it through a pointer that is null
// when nothing is observed (then they record nothing and pay one null check).
#include "telemetry/Metrics.h"
#include "telemetry/OtlpExporter.h"
#include "telemetry/Tracing.h"

#include <QObject>
#include <memory>

namespace fb::telemetry {

// The attribute and metric names, once (docs/observability.md lists them).
namespace names {
inline constexpr char OperationDuration[] = "mcp.server.operation.duration";
inline constexpr char SessionDuration[] = "mcp.server.session.duration";
inline constexpr char Decisions[] = "fabric_broker.decisions";
inline constexpr char DecisionDuration[] = "fabric_broker.decision.duration";
inline constexpr char ProposalsWaiting[] = "fabric_broker.proposals.waiting";
inline constexpr char QuorumApprovals[] = "fabric_broker.team.quorum.approvals";
inline constexpr char QuorumRequired[] = "fabric_broker.team.quorum.required";
inline constexpr char SpendUsed[] = "fabric_broker.spend.daily.used";
inline constexpr char SpendLimit[] = "fabric_broker.spend.daily.limit";
inline constexpr char CreatesInFlight[] = "fabric_broker.creates.in_flight";
inline constexpr char Creates[] = "fabric_broker.creates";
inline constexpr char AuditHeadAge[] = "fabric_broker.audit.head.age";
inline constexpr char AuditRecords[] = "fabric_broker.audit.records";
inline constexpr char ExportLag[] = "fabric_broker.audit.export.lag";
inline constexpr char ExportGaps[] = "fabric_broker.audit.export.gaps";
inline constexpr char TelemetryDropped[] = "fabric_broker.telemetry.dropped";
} // namespace names

// Buckets of fabric_broker.decision.duration (seconds: a person takes seconds to minutes).
const QList<double> &decisionDurationBuckets();

class Telemetry : public QObject {
    Q_OBJECT
public:
    explicit Telemetry(const QString &serviceVersion, QObject *parent = nullptr);
    ~Telemetry() override;

    Tracer *tracer() const { return m_tracer; }
    MetricRegistry *metrics() const { return m_metrics.get(); }

    Histogram *operationDuration() const { return m_operationDuration; }
    Histogram *sessionDuration() const { return m_sessionDuration; }
    // outcome × channel: approved / denied / timed_out / cancelled / unavailable; desktop,
    // elicitation, team, unconfirmed, policy.
    void recordDecision(const QString &outcome, const QString &channel, double seconds);
    // A create's outcome after its bytes left: created / rejected / unknown.
    void recordCreate(const QString &changeType, const QString &outcome);

    // Starts (or replaces, or with a config that exports nothing, stops) the OTLP exporter;
    // tracing is enabled exactly when traces are exported.
    void configureExport(const OtlpConfig &config);
    OtlpExporter *exporter() const { return m_exporter; }
    // The exporter's and the tracer's drops, as fabric_broker.telemetry.dropped.
    void flush();

signals:
    void exportChanged();

private:
    Tracer *m_tracer;
    std::unique_ptr<MetricRegistry> m_metrics;
    Histogram *m_operationDuration = nullptr;
    Histogram *m_sessionDuration = nullptr;
    Counter *m_decisions = nullptr;
    Histogram *m_decisionDuration = nullptr;
    Counter *m_creates = nullptr;
    OtlpExporter *m_exporter = nullptr;
};

} // namespace fb::telemetry
