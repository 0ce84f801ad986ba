#include "broker/BrokerSettings.h"

#include "core/UntrustedText.h"
#include "mcp/ToolRegistry.h"

namespace fb {

namespace {
bool readInt(const QProcessEnvironment &env, const QString &name, qint64 min, qint64 max,
             qint64 *out, QString *error)
{
    if (!env.contains(name))
        return true;
    bool ok = false;
    const qint64 v = env.value(name).trimmed().toLongLong(&ok);
    if (!ok || v < min || v > max) {
        *error = QStringLiteral("%1 must be an integer between %2 and %3 (got \"%4\")")
                     .arg(name)
                     .arg(min)
                     .arg(max)
                     .arg(env.value(name).left(40));
        return false;
    }
    *out = v;
    return true;
}
} // namespace

QString BrokerSettings::approvalModeName(ApprovalMode mode)
{
    switch (mode) {
    case ApprovalMode::Auto:
        return QStringLiteral("auto");
    case ApprovalMode::Client:
        return QStringLiteral("client");
    case ApprovalMode::Desktop:
        return QStringLiteral("desktop");
    }
    return {};
}

bool BrokerSettings::fromEnvironment(const QProcessEnvironment &env, BrokerSettings *out,
                                     QString *error)
{
    BrokerSettings s;
    qint64 v = s.proposalTtlMs;
    if (!readInt(env, QStringLiteral("EQUINIX_MCP_PROPOSAL_TTL_MS"), 1, 24LL * 3600 * 1000, &v,
                 error))
        return false;
    s.proposalTtlMs = v;
    v = s.maxPending;
    if (!readInt(env, QStringLiteral("EQUINIX_MCP_MAX_PENDING"), 1, 10000, &v, error))
        return false;
    s.maxPending = static_cast<int>(v);
    v = s.elicitTimeoutMs;
    if (!readInt(env, QStringLiteral("EQUINIX_MCP_ELICIT_TIMEOUT_MS"), 1, 24LL * 3600 * 1000, &v,
                 error))
        return false;
    s.elicitTimeoutMs = static_cast<int>(v);

    // Exactly one spelling turns the human step off; anything but "true"/"false" is a typo
    // the operator must hear about, never a silent choice.
    const QString allowName = QStringLiteral("EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS");
    if (env.contains(allowName)) {
        const QString allow = env.value(allowName);
        if (allow == u"true") {
            s.allowUnconfirmedMutations = true;
        } else if (allow == u"false") {
            s.allowUnconfirmedMutations = false;
        } else {
            *error = QStringLiteral("%1 must be exactly true or false (got \"%2\")")
                         .arg(allowName, UntrustedText::escapeInvisible(allow.left(40)));
            return false;
        }
    }

    const QString mode = env.value(QStringLiteral("EQUINIX_MCP_APPROVAL")).trimmed().toLower();
    if (mode.isEmpty() || mode == u"auto") {
        s.approvalMode = ApprovalMode::Auto;
    } else if (mode == u"client") {
        s.approvalMode = ApprovalMode::Client;
    } else if (mode == u"desktop") {
        s.approvalMode = ApprovalMode::Desktop;
    } else {
        *error = QStringLiteral("EQUINIX_MCP_APPROVAL must be auto, client or desktop");
        return false;
    }

    if (env.contains(QStringLiteral("EQUINIX_MCP_TOOLSETS"))) {
        QString toolsetError;
        if (!mcp::ToolRegistry::parseToolsets(env.value(QStringLiteral("EQUINIX_MCP_TOOLSETS")),
                                              &s.toolsets, &toolsetError)) {
            *error = QStringLiteral("EQUINIX_MCP_TOOLSETS: ") + toolsetError;
            return false;
        }
    }
    *out = s;
    return true;
}

} // namespace fb
