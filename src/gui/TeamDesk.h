#pragma once
// TeamDesk: the desktop app's part in team mode (docs/team.md), present only when the setting
// team.database is set. It owns this workstation's TeamQueue and, when the role may approve,
// opens the TeamApprovalsDialog (open(), one at a time) as soon as a proposal of another
// workstation is waiting for a decision, as approvals pop up in single-user mode. Decisions are
// signed with this operator's approval key from the keychain (ApproverKeyStore, made by
// `fabric-broker team key`; docs/team-signing.md). A create of another workstation whose
// outcome is unknown opens the dialog too, with the catalog searched on this app's Fabric client.
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
    // Opens (or raises) the dialog.
    void showApprovals(QWidget *parent = nullptr);

private:
    void lookForNew();
    std::unique_ptr<team::TeamQueue> m_queue;
    keychain::ApproverKeyStore *m_keys;
    QPointer<FabricClient> m_fabric;
    QPointer<TeamApprovalsDialog> m_dialog;
    QSet<QByteArray> m_seen;
};

} // namespace fb
