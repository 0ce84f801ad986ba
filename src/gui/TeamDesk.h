#pragma once
// TeamDesk: the desktop app's part in team mode (docs/team.md), present only when the setting
// team.database is set. It owns this workstation's TeamQueue and, when the role may approve,
// opens the TeamApprovalsDialog (open(), one at a time) as soon as a proposal of another
// workstation is waiting for a decision, as approvals pop up in single-user mode. Decisions are
// signed with this operator's approval key from the keychain (ApproverKeyStore, made by
// `fabric-broker team key`; docs/team-signing.md). A create of another workstation whose
// outcome is unknown opens the dialog too, with the catalog searched on this app's Fabric client.
// Each proposal that starts waiting for this role (while the dialog is open too) is announced
// once (proposalsWaiting, for the desktop notification) and its end once (noLongerWaiting).
#include "team/TeamQueueRows.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QString>
#include <memory>

class QWidget;

namespace fb::keychain {
class ApproverKeyStore;
} // namespace fb::keychain

namespace fb {

class FabricClient;
class TeamApprovalsDialog;
namespace team {
class TeamQueue;
}

class TeamDesk : public QObject {
    Q_OBJECT
public:
    // password: the role's, from the OS keychain (empty: ~/.pgpass, peer or certificates).
    // fabric: this app's client, for the lookup of unknown outcomes (none: no lookup is run).
    TeamDesk(const QString &uri, const QString &password = {}, FabricClient *fabric = nullptr,
             QObject *parent = nullptr);
    ~TeamDesk() override;

    team::TeamQueue *queue() const { return m_queue.get(); }
    // Opens (or raises) the dialog; with an id, that proposal is selected in it.
    void showApprovals(QWidget *parent = nullptr, const QByteArray &select = {});
    // What a notification says of proposal p (lines of plain text, every value the database's
    // and escaped by the notifier): its change, who proposed it from where, and the first
    // characters of its Request SHA-256, as the dialog shows them.
    static QString waitingSummary(const team::TeamProposal &p);
    static QStringList waitingText(const team::TeamProposal &p);

signals:
    // Proposals of other workstations that started waiting for a decision (or, left unknown,
    // for a second person), each announced once.
    void proposalsWaiting(const QList<fb::team::TeamProposal> &fresh);
    // A proposal announced before is no longer open to this role.
    void noLongerWaiting(const QByteArray &id);

private:
    void lookForNew();
    std::unique_ptr<team::TeamQueue> m_queue;
    keychain::ApproverKeyStore *m_keys;
    QPointer<FabricClient> m_fabric;
    QPointer<TeamApprovalsDialog> m_dialog;
    QSet<QByteArray> m_seen;
    QSet<QByteArray> m_announced; // waiting and announced (proposalsWaiting)
};

} // namespace fb
