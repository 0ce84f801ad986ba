// Core micro-benchmarks: canonicalize + hash of a typical connection body, ProposalStore ops;
// and a read call's tracing (issue 38): the server span the session records on the event loop,
// and the exporter worker's serialization of a batch of such spans.
#include "core/CanonicalJson.h"
#include "core/CompiledRequest.h"
#include "core/ProposalStore.h"
#include "telemetry/Tracing.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <benchmark/benchmark.h>

using namespace fb;

namespace {
// A typical connection request body (just over 2 KB once canonical).
QJsonObject typicalConnection()
{
    const QByteArray json = R"({
      "type": "EVPL_VC", "name": "sv-aws-prod-primary-connection-to-us-west-1-vpc-0a1b2c3d",
      "bandwidth": 1000,
      "redundancy": {"priority": "PRIMARY"},
      "order": {"purchaseOrderNumber": "PO-2026-000123", "billingTier": "Up to 1 Gbps",
                "customerReferenceId": "CR-778899"},
      "notifications": [{"type": "ALL", "emails": ["netops@example.com", "noc@example.com",
                        "oncall-network-engineering@example.com"]}],
      "project": {"projectId": "7f8b3c1e-2d4a-4e6b-9c8d-1a2b3c4d5e6f"},
      "aSide": {"accessPoint": {"type": "COLO",
                "port": {"uuid": "c4d9350e-77c5-7c5d-1ce0-306a5c00a600", "name": "SV-Port-Primary-01"},
                "linkProtocol": {"type": "DOT1Q", "vlanTag": 1001},
                "location": {"metroCode": "SV"}}},
      "zSide": {"accessPoint": {"type": "SP",
                "profile": {"type": "L2_PROFILE", "uuid": "69ee618d-be52-468d-bc99-00566f2dd2b9",
                            "name": "AWS Direct Connect"},
                "location": {"metroCode": "SV"}, "sellerRegion": "us-west-1",
                "authenticationKey": "123456789012",
                "linkProtocol": {"type": "DOT1Q", "vlanTag": 1001}}},
      "additionalInfo": [{"key": "change-ticket", "value": "CHG0012345 approved by network CAB"},
                         {"key": "cost-center", "value": "CC-4410 Platform Networking"},
                         {"key": "requested-by", "value": "platform-networking@example.com"},
                         {"key": "description", "value": "Primary private link from the Silicon Valley colo cage to the production VPC in us-west-1, carrying payment and ledger traffic; a secondary link in a second metro follows in a later change."},
                         {"key": "service-window", "value": "Sat 02:00-06:00 PT, freeze Dec 15 - Jan 5"},
                         {"key": "routing", "value": "BGP over private VIF, ASN 64512, MD5 auth via vault path secret/netops/aws/dx"},
                         {"key": "monitoring", "value": "SNMP polling from nms-01.example.com and nms-02.example.com; alerts to #netops"},
                         {"key": "rollback", "value": "If BGP does not establish within 30 minutes of provisioning, the change owner raises a cancellation ticket; traffic stays on the existing VPN tunnels until the link is verified end to end by the application team."},
                         {"key": "approvals", "value": "Network CAB 2026-11-24 (ticket CHG0012345), security review SR-8812, finance PO-2026-000123 for the monthly recurring charge."}]
    })";
    return QJsonDocument::fromJson(json).object();
}
} // namespace

static void BM_CanonicalizeAndHash(benchmark::State &state)
{
    const QJsonObject body = typicalConnection();
    qsizetype bytes = 0;
    for (auto _ : state) {
        const QByteArray canonical = canonicalJson(body);
        const QString hash = requestSha256(ChangeType::ConnectionCreate, canonical);
        benchmark::DoNotOptimize(hash);
        bytes = canonical.size();
    }
    state.counters["body_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_CanonicalizeAndHash);

static void BM_StoreAddConsume(benchmark::State &state)
{
    ManualClock clock;
    ProposalStore store(&clock);
    Proposal p;
    p.spec = typicalConnection();
    p.requestSha256 = QString(64, u'a');
    for (auto _ : state) {
        const QString token = store.add(p).proposal.token;
        benchmark::DoNotOptimize(store.consume(token));
        clock.advanceMs(1);
    }
    state.counters["ops_per_iter"] = 2;
}
BENCHMARK(BM_StoreAddConsume);

static void BM_StoreAddAtCapacity(benchmark::State &state)
{
    ManualClock clock;
    ProposalStore store(&clock);
    Proposal p;
    p.spec = typicalConnection();
    for (auto _ : state) {
        benchmark::DoNotOptimize(store.add(p));
        clock.advanceMs(1);
    }
}
BENCHMARK(BM_StoreAddAtCapacity);

// The server span of one tools/call as Session::beginOperation/endOperation record it (the
// attributes of docs/observability.md), ended into the tracer's queue; the queue is emptied as
// the exporter takes batches.
static telemetry::Span readCallSpan(telemetry::Tracer &tracer, qint64 requestId)
{
    using namespace Qt::StringLiterals;
    telemetry::Span span =
        tracer.startSpan(u"tools/call fabric_list_metros"_s, telemetry::SpanKind::Server);
    span.setAttribute(u"mcp.method.name"_s, u"tools/call"_s);
    span.setAttribute(u"gen_ai.tool.name"_s, u"fabric_list_metros"_s);
    span.setAttribute(u"gen_ai.operation.name"_s, u"execute_tool"_s);
    span.setAttribute(u"jsonrpc.request.id"_s, QString::number(requestId));
    span.setAttribute(u"mcp.session.id"_s, u"1"_s);
    span.setAttribute(u"network.transport"_s, u"pipe"_s);
    span.setAttribute(u"mcp.protocol.version"_s, u"2025-06-18"_s);
    return span;
}

static void BM_ReadCallSpan(benchmark::State &state)
{
    telemetry::Tracer tracer;
    tracer.setEnabled(true);
    tracer.notifyAt(0);
    qint64 id = 0;
    for (auto _ : state) {
        readCallSpan(tracer, ++id).end();
        if (tracer.queued() >= 512) {
            state.PauseTiming();
            tracer.takeBatch(512);
            state.ResumeTiming();
        }
    }
}
BENCHMARK(BM_ReadCallSpan);

// One export batch (512 spans, OTEL_BSP_MAX_EXPORT_BATCH_SIZE's default) written as OTLP JSON.
static void BM_OtlpSpanBatch(benchmark::State &state)
{
    using namespace Qt::StringLiterals;
    telemetry::Tracer tracer;
    tracer.setEnabled(true);
    tracer.notifyAt(0);
    for (qint64 i = 0; i < 512; ++i)
        readCallSpan(tracer, i).end();
    const QList<telemetry::SpanRecord> batch = tracer.takeBatch(512);
    const QList<telemetry::SpanAttribute> resource{{u"service.name"_s, u"fabric-broker"_s},
                                                   {u"service.version"_s, u"1.0.0"_s}};
    qint64 bytes = 0;
    for (auto _ : state) {
        const QByteArray body = telemetry::Tracer::otlpJsonBytes(batch, resource, u"1.0.0"_s);
        bytes += body.size();
        benchmark::DoNotOptimize(body.data());
    }
    state.SetBytesProcessed(bytes);
    state.SetItemsProcessed(state.iterations() * batch.size());
}
BENCHMARK(BM_OtlpSpanBatch);

BENCHMARK_MAIN();
