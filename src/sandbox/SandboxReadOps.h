#pragma once
// SandboxReadOps: serves every read operation of Fabric v4 that SandboxApi's older handlers do
// not, generically from SandboxReadTable: the operation is found by method and path template,
// its arguments (path and query parameters, the search body) are checked against the
// operation's strict input schema (400 ErrorList), and the answer comes from the operation's
// collection of the read estate, narrowed to the path's ids: GET by id -> the item or a 404
// ErrorList; a list -> {pagination, data} (offset/limit from the query) or {data}; a search ->
// the body's filter, sort and pagination applied (SandboxSearch); a file -> its bytes and
// content type.
#include "sandbox/SandboxReply.h"

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QUrlQuery>
#include <optional>

namespace fb {

class SandboxEstate;
class SandboxReadTable;
struct SandboxReadOperation;

class SandboxReadOps {
public:
    // The estate gives the base URL of hrefs and the ports ("@ports").
    explicit SandboxReadOps(const SandboxEstate *estate);

    // The answer, or nullopt when the request is not one of the read operations served here
    // (SandboxApi answers it).
    std::optional<SandboxReply> handle(const QString &method, const QString &path,
                                       const QUrlQuery &query, const QByteArray &body,
                                       const QString &correlationId) const;

    // The operation's arguments as its input schema sees them: path parameters, query
    // parameters (typed as the schema says) and "body". nullopt with *error on a body that is
    // not a JSON object.
    static std::optional<QJsonObject> arguments(const SandboxReadOperation &op,
                                                const QHash<QString, QString> &params,
                                                const QUrlQuery &query, const QByteArray &body,
                                                QString *error);

private:
    QList<QJsonObject> candidates(const SandboxReadOperation &op,
                                  const QHash<QString, QString> &params,
                                  const QUrlQuery &query) const;
    SandboxReply list(const SandboxReadOperation &op, QList<QJsonObject> items,
                      const QJsonObject &args, const QString &path) const;
    SandboxReply withBase(SandboxReply reply) const;

    static const SandboxReadTable *table();

    const SandboxEstate *m_estate;
};

} // namespace fb
