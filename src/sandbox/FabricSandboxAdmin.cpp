// FabricSandbox's loopback admin API (/sandbox/v1/): health, the request log, faults, reset and
// the estate, for tests and the README's walkthrough. It is unauthenticated, so it answers only
// requests addressed to a loopback name.
#include "sandbox/FabricSandbox.h"

#include "sandbox/SandboxApi.h"
#include "sandbox/SandboxAuth.h"
#include "sandbox/SandboxEstate.h"
#include "sandbox/SandboxLog.h"
#include "sandbox/SandboxReply.h"

#include <QHostAddress>
#include <QJsonArray>
#include <QJsonDocument>

namespace fb {

namespace {
// The admin API is unauthenticated, so it answers only requests addressed to a loopback name
// (a DNS-rebinding page in a browser sends its own host name in Host).
bool isLoopbackHost(const QByteArray &hostHeader)
{
    QString host = QString::fromLatin1(hostHeader).trimmed().toLower();
    if (host.isEmpty())
        return false;
    if (host.startsWith(QLatin1Char('['))) {
        const qsizetype end = host.indexOf(QLatin1Char(']'));
        if (end < 0)
            return false;
        const QString rest = host.mid(end + 1);
        if (!rest.isEmpty() && !rest.startsWith(QLatin1Char(':')))
            return false;
        host = host.mid(1, end - 1);
    } else if (host.count(QLatin1Char(':')) == 1) {
        host = host.section(QLatin1Char(':'), 0, 0);
    } else if (host.contains(QLatin1Char(':'))) {
        return false;
    }
    if (host == QLatin1String("localhost"))
        return true;
    QHostAddress address;
    return address.setAddress(host) && address.isLoopback();
}
} // namespace

const QString FabricSandbox::AdminPrefix = QStringLiteral("/sandbox/v1/");

void FabricSandbox::serveAdmin(const QString &method, const QString &path, const QByteArray &body,
                               const QByteArray &hostHeader, quint64 ticket, const QString &cid,
                               bool close)
{
    if (!isLoopbackHost(hostHeader)) {
        qCWarning(lcSandbox) << "admin request refused: Host is not a loopback name";
        send(ticket,
             SandboxReply::json(403, QJsonObject{{QStringLiteral("error"),
                                                  QStringLiteral("the sandbox admin API "
                                                                 "answers only a loopback "
                                                                 "Host (127.0.0.1, ::1, "
                                                                 "localhost)")}}),
             cid, true, 0);
        return;
    }
    send(ticket, admin(method, path, body), cid, close, 0);
}

QJsonObject FabricSandbox::faultsJson() const
{
    QJsonObject noDryRun;
    const QStringList keys = m_api->dryRunUnsupported();
    for (const QString &k : keys)
        noDryRun.insert(k, true);
    return QJsonObject{
        {QStringLiteral("latencyMs"), m_latencyMs},
        {QStringLiteral("fail"), QJsonObject{{QStringLiteral("count"), m_failCount},
                                             {QStringLiteral("status"), m_failStatus},
                                             {QStringLiteral("applyRequest"), m_failApplies}}},
        {QStringLiteral("tokenDelayMs"), m_tokenDelayMs},
        {QStringLiteral("drop"),
         QJsonObject{{QStringLiteral("count"), m_dropCount},
                     {QStringLiteral("method"), m_dropMethod},
                     {QStringLiteral("pathPrefix"), m_dropPathPrefix},
                     {QStringLiteral("onlyRealCreates"), m_dropOnlyRealCreates},
                     {QStringLiteral("applyRequest"), m_dropApplies}}},
        {QStringLiteral("unauthorizeNext"), m_unauthorizeNext},
        {QStringLiteral("tokenLifetimeSeconds"), m_auth->lifetimeSeconds()},
        {QStringLiteral("dryRunUnsupported"), noDryRun},
        {QStringLiteral("provisioning"),
         QJsonObject{{QStringLiteral("delayMs"), m_estate->provisioningDelayMs()},
                     {QStringLiteral("readsBeforeReady"), m_estate->provisioningReads()}}}};
}

bool FabricSandbox::applyFaults(const QJsonObject &f, QString *error)
{
    const auto fail = [&](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    const auto intAt = [](const QJsonObject &o, const char *key, int fallback) {
        const QJsonValue v = o.value(QLatin1String(key));
        return v.isDouble() ? v.toInt() : fallback;
    };
    // Check everything first so a bad document changes nothing.
    for (const char *key : {"fail", "drop", "provisioning", "dryRunUnsupported"}) {
        if (f.contains(QLatin1String(key)) && !f.value(QLatin1String(key)).isObject())
            return fail(QLatin1String(key) + QStringLiteral(" must be an object"));
    }
    for (const char *key : {"latencyMs", "tokenLifetimeSeconds", "tokenDelayMs"}) {
        if (f.contains(QLatin1String(key)) &&
            (!f.value(QLatin1String(key)).isDouble() || f.value(QLatin1String(key)).toDouble() < 0))
            return fail(QLatin1String(key) + QStringLiteral(" must be a non-negative number"));
    }
    if (f.value(QStringLiteral("clear")).toBool())
        clearFaults();
    if (f.contains(QStringLiteral("latencyMs")))
        setLatencyMs(f.value(QStringLiteral("latencyMs")).toInt());
    if (f.contains(QStringLiteral("tokenDelayMs")))
        setTokenDelayMs(f.value(QStringLiteral("tokenDelayMs")).toInt());
    if (f.contains(QStringLiteral("tokenLifetimeSeconds")))
        setTokenLifetimeSeconds(f.value(QStringLiteral("tokenLifetimeSeconds")).toInt());
    if (f.contains(QStringLiteral("fail"))) {
        const QJsonObject o = f.value(QStringLiteral("fail")).toObject();
        failNext(intAt(o, "count", 1), intAt(o, "status", 503),
                 o.value(QStringLiteral("applyRequest")).toBool(false));
    }
    if (f.contains(QStringLiteral("drop"))) {
        const QJsonObject o = f.value(QStringLiteral("drop")).toObject();
        dropNext(intAt(o, "count", 1), o.value(QStringLiteral("method")).toString(),
                 o.value(QStringLiteral("pathPrefix")).toString(),
                 o.value(QStringLiteral("onlyRealCreates")).toBool());
        setDropAppliesRequest(o.value(QStringLiteral("applyRequest")).toBool(true));
    }
    if (f.value(QStringLiteral("unauthorizeNext")).toBool())
        unauthorizeNext();
    if (f.contains(QStringLiteral("provisioning"))) {
        const QJsonObject o = f.value(QStringLiteral("provisioning")).toObject();
        setProvisioning(intAt(o, "delayMs", m_estate->provisioningDelayMs()),
                        intAt(o, "readsBeforeReady", m_estate->provisioningReads()));
    }
    const QJsonObject noDryRun = f.value(QStringLiteral("dryRunUnsupported")).toObject();
    for (auto it = noDryRun.begin(); it != noDryRun.end(); ++it)
        setDryRunUnsupported(it.key(), it.value().toBool());
    return true;
}

SandboxReply FabricSandbox::admin(const QString &method, const QString &path,
                                  const QByteArray &body)
{
    const QString route = path.mid(AdminPrefix.size());
    const bool get = method == QLatin1String("GET");
    const bool post = method == QLatin1String("POST");
    const auto bad = [](int status, const QString &why) {
        return SandboxReply::json(status, QJsonObject{{QStringLiteral("error"), why}});
    };
    if (!get && !post)
        return bad(405, QStringLiteral("only GET and POST are served"));
    if (route == QLatin1String("health") && get)
        return SandboxReply::json(200,
                                  QJsonObject{{QStringLiteral("status"), QStringLiteral("ok")},
                                              {QStringLiteral("baseUrl"), baseUrl().toString()}});
    if (route == QLatin1String("requests") && get) {
        QJsonArray data;
        for (const RecordedRequest &r : m_requests) {
            data.append(QJsonObject{{QStringLiteral("method"), r.method},
                                    {QStringLiteral("path"), r.path},
                                    {QStringLiteral("query"), r.query.toString(QUrl::FullyDecoded)},
                                    {QStringLiteral("body"), QString::fromUtf8(r.body)},
                                    {QStringLiteral("correlationId"), r.correlationId},
                                    {QStringLiteral("dryRun"), r.dryRun},
                                    {QStringLiteral("status"), r.status},
                                    {QStringLiteral("dropped"), r.dropped}});
        }
        return SandboxReply::json(200,
                                  QJsonObject{{QStringLiteral("total"), int(data.size())},
                                              {QStringLiteral("realCreateCount"), m_realCreates},
                                              {QStringLiteral("data"), data}});
    }
    if (route == QLatin1String("requests/clear") && post) {
        clearRequests();
        return SandboxReply::json(200, QJsonObject{{QStringLiteral("total"), 0}});
    }
    if (route == QLatin1String("faults") && get)
        return SandboxReply::json(200, faultsJson());
    if (route == QLatin1String("faults") && post) {
        QJsonParseError err{};
        const QJsonDocument doc = QJsonDocument::fromJson(body, &err);
        if (err.error != QJsonParseError::NoError || !doc.isObject())
            return bad(400, QStringLiteral("body must be a JSON object"));
        QString why;
        if (!applyFaults(doc.object(), &why))
            return bad(400, why);
        return SandboxReply::json(200, faultsJson());
    }
    if (route == QLatin1String("reset") && post) {
        reset();
        return SandboxReply::json(200,
                                  QJsonObject{{QStringLiteral("status"), QStringLiteral("reset")}});
    }
    if (route == QLatin1String("estate") && get)
        return SandboxReply::json(200, estateJson());
    if (route == QLatin1String("estate/description") && get) {
        SandboxReply r;
        r.body = m_estate->describe().toUtf8();
        r.contentType = QByteArrayLiteral("text/plain; charset=utf-8");
        return r;
    }
    return bad(404, QStringLiteral("unknown admin endpoint ") + path);
}

} // namespace fb
