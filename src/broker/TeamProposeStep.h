#pragma once
// TeamProposeStep: the team-mode part of one fabric_propose_change (docs/team.md, "The flow"),
// owned by its ProposeOperation: the proposal is published to the team's queue (the token's
// SHA-256 only, never the token) before the agent gets the token; a database that cannot take it
// means no token at all.
#include "broker/BrokerContext.h"
#include "core/CompiledRequest.h"
#include "core/ProposalStore.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>

#include <functional>
#include <optional>

namespace fb {

namespace mcp {
struct ClientInfo;
}

class TeamProposeStep : public QObject {
    Q_OBJECT
public:
    TeamProposeStep(BrokerContext *context, QObject *parent = nullptr);

    // How long a proposal (and a confirm, TeamConfirmFlow) waits for the first connect to the
    // team's database after the start.
    static constexpr int SettleWaitMs = 5000;

    // Why the team cannot take a proposal now (the database not connected, the administrator's
    // policy lists no team.approver_keys), or nullopt: it can (or the broker is not in team mode).
    static std::optional<QString> unavailable(const BrokerContext &context);
    // The result's "error" when the team's database cannot take the proposal: no token.
    static QJsonObject refusal(const QString &reason);

    struct Published {
        bool brokerGone = false;         // the broker shut down meanwhile
        std::optional<QJsonObject> team; // published: the result's "team" {proposal_id, required}
        QString error; // not published: why (the token is used up: it never works)
    };
    // Publishes the stored proposal (as the store added it: the token minted, never shown yet)
    // with its compiled request; done once, while this step lives.
    void publish(const Proposal &stored, const CompiledRequest &request,
                 const mcp::ClientInfo &client, std::function<void(const Published &)> done);

private:
    QPointer<BrokerContext> m_context;
};

} // namespace fb
