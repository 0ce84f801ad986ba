// Confirm with and without a daily spend limit, against a long audit log (issue #23): the
// daily limit is checked against the in-memory spend ledger, so a confirm must cost the same
// whether the log holds ten records or a hundred thousand.
//
//   bench_confirm [--records N] [--iterations N]     (defaults 100000 and 200)
//
// Each scenario runs a whole broker in this process (the embedded sandbox on loopback, the real
// FabricClient, an MCP session over an in-memory pipe, an approver that says yes at once) and
// times fabric_confirm_change from the request to its result (the propose is not timed).
// Prints the p50 and p90 of each, and their ratio. No assertion: bench/ is never a timed test.
#include "../tests/integration/broker/BrokerHarness.h"
#include "core/AuditLog.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>

namespace {

class YesApprover : public fb::Approver {
public:
    QString channel() const override { return QStringLiteral("desktop"); }
    void requestApproval(fb::mcp::ToolCall *, const fb::ApprovalContext &,
                         std::function<void(const fb::HumanDecision &)> done) override
    {
        done(fb::HumanDecision{fb::HumanStatus::Accepted, QStringLiteral("desktop"),
                               QStringLiteral("bench"), QDateTime::currentMSecsSinceEpoch()});
    }
};

// records-1 old records (two days ago), then the bench writes its own.
bool writeLog(const QString &path, int records)
{
    fb::ManualClock old(QDateTime::currentMSecsSinceEpoch() - 48LL * 3600 * 1000);
    fb::AuditLog log(&old);
    log.setIoHooksForTesting(nullptr, [](int) { return 0; }); // no fsync per record here
    if (!log.open(path))
        return false;
    for (int i = 1; i < records; ++i)
        if (!log.recordForTesting(QStringLiteral("step"),
                                  {{QStringLiteral("index"), i},
                                   {QStringLiteral("request_sha256"), QString(64, u'a')}}))
            return false;
    return true;
}

struct Stats {
    double p50 = 0, p90 = 0;
};

Stats run(const QString &logPath, bool dailyLimit, int iterations)
{
    fb::BrokerSettings settings;
    if (dailyLimit)
        settings.policy.maxPerDay = fb::Money{1e12, QStringLiteral("USD")};
    fb::AuditLog log;
    if (!log.open(logPath))
        return {};
    fbtest::BrokerHarness h(settings);
    YesApprover yes;
    h.broker->setApprover(&yes);
    h.broker->setAuditSink(&log);
    h.initialize();
    QList<double> ms;
    for (int i = 0; i < iterations; ++i) {
        const QJsonObject p =
            h.callTool("fabric_propose_change",
                       {{"change_type", "connection_create"},
                        {"spec", fbtest::BrokerHarness::connectionSpec(2000 + i % 1900)}});
        const QString token =
            p.value("structuredContent").toObject().value("confirm_token").toString();
        QElapsedTimer t;
        t.start();
        const QJsonObject c = h.callTool("fabric_confirm_change", {{"confirm_token", token}});
        ms << double(t.nsecsElapsed()) / 1e6;
        if (!c.value("structuredContent").toObject().value("executed").toBool()) {
            std::fprintf(stderr, "confirm %d did not execute: %s\n", i,
                         QJsonDocument(c).toJson(QJsonDocument::Compact).left(400).constData());
            return {};
        }
        h.received.clear();
    }
    h.broker->setAuditSink(nullptr);
    std::sort(ms.begin(), ms.end());
    return {ms.at(ms.size() / 2), ms.at(ms.size() * 9 / 10)};
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    int records = 100000;
    int iterations = 200;
    const QStringList args = app.arguments();
    for (qsizetype i = 1; i + 1 < args.size(); ++i) {
        if (args.at(i) == u"--records")
            records = args.at(i + 1).toInt();
        else if (args.at(i) == u"--iterations")
            iterations = args.at(i + 1).toInt();
    }
    iterations = std::clamp(iterations, 2, 1900);
    QTemporaryDir dir;
    const QString path = dir.filePath("audit.jsonl");
    if (!writeLog(path, std::max(records, 1))) {
        std::fprintf(stderr, "could not write the audit log\n");
        return 1;
    }
    // Alternate the scenarios so that drift (thermal, other load) hits both alike.
    QList<double> without, with;
    for (int round = 0; round < 2; ++round) {
        const Stats a = run(path, false, iterations / 2);
        const Stats b = run(path, true, iterations / 2);
        if (a.p50 == 0 || b.p50 == 0)
            return 1;
        without << a.p50;
        with << b.p50;
        std::printf("round %d: confirm p50 %.3f ms (p90 %.3f) without a daily limit, %.3f ms "
                    "(p90 %.3f) with one\n",
                    round + 1, a.p50, a.p90, b.p50, b.p90);
    }
    const double a = (without.at(0) + without.at(1)) / 2;
    const double b = (with.at(0) + with.at(1)) / 2;
    std::printf("audit log: %d records before the run; %d confirms per scenario\n", records,
                iterations);
    std::printf("confirm p50: %.3f ms without a daily limit, %.3f ms with one (%+.1f%%)\n", a, b,
                (b / a - 1) * 100);
    return 0;
}
