// PriceCall: the rate-card context of a compiled request, from one prices search (a read
// through FabricClient::search()). It never fails: a failed lookup finishes Ok with priced=false
// and the reason.
#include "fabric/FabricClient_p.h"

#include "fabric/FabricParsing.h"

namespace fb {

namespace {

using Kind = FabricResult::Kind;

// The rate-card context: one prices search, never a failure.
class PriceCall final : public FabricCall {
public:
    PriceCall(FabricClient *client, ClientCore *core, const CompiledRequest &request,
              QObject *parent)
        : FabricCall(parent)
        , m_client(client)
        , m_core(core)
        , m_request(request)
    {
        QMetaObject::invokeMethod(
            this, [this] { start(); }, Qt::QueuedConnection);
    }

    bool isFinished() const override { return m_finished; }

    void abort() override
    {
        if (m_finished)
            return;
        if (m_inner) {
            FabricCall *inner = m_inner;
            m_inner = nullptr;
            inner->disconnect(this);
            inner->abort();
        }
        FabricResult r;
        r.kind = Kind::Cancelled;
        r.message = QStringLiteral("The price lookup was cancelled.");
        finish(r);
    }

private:
    void start()
    {
        if (m_finished)
            return;
        QString reason;
        QString summary;
        const auto search = buildPriceSearch(m_request, &reason, &summary);
        if (!search) {
            FabricResult r;
            r.body = unpricedContext(reason, summary);
            r.message = QStringLiteral("No rate-card price: %1.").arg(reason);
            finish(r);
            return;
        }
        m_inner = m_client->search(kPricePath, *search);
        connect(m_inner, &FabricCall::finished, this, &PriceCall::onInner);
    }

    void onInner(const FabricResult &inner)
    {
        m_inner = nullptr;
        FabricResult r;
        r.httpStatus = inner.httpStatus;
        r.correlationId = inner.correlationId;
        r.requestSent = inner.requestSent;
        QJsonObject ctx;
        if (inner.ok()) {
            ctx = priceContextFromResponse(inner.body);
        } else {
            QString why = inner.message;
            if (why.endsWith(u'.'))
                why.chop(1);
            // The raw Fabric error stays in reason (details, audit); the person reads summary.
            ctx = unpricedContext(QStringLiteral("price lookup failed: ") + why,
                                  inner.kind == FabricResult::Kind::FabricError
                                      ? unpricedSummary(m_request)
                                      : QStringLiteral("no price: the rate-card lookup failed"));
        }
        if (!ctx.value(QLatin1StringView("priced")).toBool() &&
            !ctx.contains(QLatin1StringView("summary")))
            ctx.insert(QStringLiteral("summary"), unpricedSummary(m_request));
        r.body = ctx;
        if (ctx.value(QLatin1StringView("priced")).toBool())
            r.message = QStringLiteral("Rate-card context: %1 %2 monthly recurring, %3 non "
                                       "recurring (context, not a quote).")
                            .arg(ctx.value(QLatin1StringView("monthly_recurring")).toDouble())
                            .arg(ctx.value(QLatin1StringView("currency")).toString())
                            .arg(ctx.value(QLatin1StringView("non_recurring")).toDouble());
        else
            r.message = QStringLiteral("No rate-card price: %1.")
                            .arg(ctx.value(QLatin1StringView("reason")).toString());
        finish(r);
    }

    void finish(FabricResult r)
    {
        if (m_finished)
            return;
        m_finished = true;
        r.method = QStringLiteral("POST");
        r.path = kPricePath;
        // The context is built from the inner search's result, already redacted; once more
        // here, so that nothing this call adds can carry a secret either.
        r.message = m_core->redact(r.message);
        r.body = m_core->redactJson(r.body);
        // A finished handler may delete the client, and this call with it.
        const QPointer<PriceCall> self(this);
        emit finished(r);
        if (self)
            deleteLater();
    }

    FabricClient *m_client;
    ClientCore *m_core;
    CompiledRequest m_request;
    QPointer<FabricCall> m_inner;
    bool m_finished = false;
};

} // namespace

FabricCall *newPriceCall(FabricClient *client, ClientCore *core, const CompiledRequest &request,
                         QObject *parent)
{
    return new PriceCall(client, core, request, parent);
}

} // namespace fb
