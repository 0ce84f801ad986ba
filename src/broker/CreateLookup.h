#pragma once
// CreateLookup: what a create whose outcome is unknown may have made (issue #26, requirement 5):
// the catalog's name search (fabric_search_connections, _networks or _service_tokens with the
// request's name, the same call the proposer's result suggests), run by a team approver's app
// on its own Fabric client, so the person who resolves the outcome sees the evidence. GUI-free.
#include <QJsonArray>
#include <QObject>
#include <QString>
#include <functional>

namespace fb {

class FabricClient;

struct CreateLookup {
    static constexpr int MaxMatches = 20;

    QString call;       // the catalog call, e.g. fabric_search_connections {"name":"x"}
    bool ok = false;    // Fabric answered the search
    QString error;      // why not (when !ok)
    QJsonArray matches; // [{uuid, name, state}]: resources named exactly as the request
    int otherNames = 0; // results whose name only contains the request's name
    QString searchedAs; // the credential identity searched with, when not the create's (a note)

    // One uuid when exactly one resource has the request's name, else empty.
    QString onlyUuid() const;
    // What the approver's dialog shows of it: the call, then one line per match (plain text,
    // every Fabric value bounded and made inert).
    QString text() const;
};

// The catalog call for a create of changeType (its tool and {"name": ...} from request, the
// canonical body); empty tool when changeType is not one.
QString createLookupCall(const QString &changeType, const QByteArray &request,
                         QJsonObject *arguments = nullptr);

// Runs the search on fabric and calls done exactly once, from context's thread (never when
// context is gone first). binding: where the create was sent ({fabric_endpoint,
// credential_identity}, the team row's): a client at another endpoint does not search (its
// answer would say nothing about that create: ok stays false); one with other credentials
// searches and says so (searchedAs), since another account may not see the resource.
void lookUpCreate(FabricClient *fabric, const QString &changeType, const QByteArray &request,
                  const QJsonObject &binding, QObject *context,
                  std::function<void(const CreateLookup &)> done);

} // namespace fb
