#pragma once
// SandboxApi: the Fabric v4 endpoints of the sandbox, independent of the transport. Takes an
// authenticated request (method, path, query, body) and answers with the spec's shapes. The
// other read operations of Fabric v4 are served generically by SandboxReadOps.
#include "sandbox/SandboxEstate.h"
#include "sandbox/SandboxReadOps.h"
#include "sandbox/SandboxReply.h"

#include <QByteArray>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QUrlQuery>
#include <optional>

namespace fb {

class SandboxValidator;

class SandboxApi {
public:
    explicit SandboxApi(SandboxEstate *estate);

    // Declares dry runs unsupported (EQ-3142411) for a connection type ("EVPL_VC"), a change
    // type name ("service_token_create") or a collection path ("/fabric/v4/serviceTokens").
    void setDryRunUnsupported(const QString &changeTypeOrPath, bool unsupported);
    QStringList dryRunUnsupported() const;
    void clearDryRunUnsupported() { m_noDryRun.clear(); }

    SandboxReply handle(const QString &method, const QString &path, const QUrlQuery &query,
                        const QByteArray &body, const QString &correlationId);

    // True for a POST to one of the three create collections.
    static bool isCreate(const QString &method, const QString &path);
    static bool isDryRun(const QUrlQuery &query);

private:
    SandboxReply createConnection(const QJsonObject &body, bool dryRun, const QString &cid);
    SandboxReply createNetwork(const QJsonObject &body, bool dryRun, const QString &cid);
    SandboxReply createServiceToken(const QJsonObject &body, bool dryRun, const QString &cid);
    SandboxReply searchPrices(const QJsonObject &body, const QString &cid);
    SandboxReply search(SandboxKind kind, const QJsonObject &body, const QUrlQuery &query,
                        const QString &basePath, const QString &cid);
    SandboxReply searchList(const QList<QJsonObject> &items, const QJsonObject &body,
                            const QUrlQuery &query, const QString &basePath, const QString &cid,
                            bool echoSort);
    bool dryRunBlocked(const QString &collectionPath, const QString &subtype) const;
    using Check = QJsonArray (SandboxValidator::*)(const QJsonObject &) const;
    std::optional<SandboxReply> rejectCreate(const QJsonObject &body, bool dryRun,
                                             const QString &cid, const QString &collection,
                                             Check schema, Check rules) const;

    SandboxEstate *m_estate;
    SandboxReadOps m_readOps; // the read operations the handlers here do not serve
    QSet<QString> m_noDryRun;
};

} // namespace fb
