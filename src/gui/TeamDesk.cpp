#include "gui/TeamDesk.h"

#include "broker/CreateLookup.h"
#include "fabric/FabricClient.h"
#include "gui/TeamApprovalsDialog.h"
#include "keychain/ApproverKeyStore.h"
#include "keychain/CredentialStore.h"
#include "team/ApproverDecision.h"
#include "team/TeamQueue.h"

#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcTeamDesk, "fabricbroker.gui.team")

namespace fb {

TeamDesk::TeamDesk(const QString &uri, const QString &password, FabricClient *fabric,
                   QObject *parent)
    : QObject(parent)
    , m_keys(new keychain::ApproverKeyStore(
          QString::fromLatin1(keychain::CredentialStore::DefaultService), this))
    , m_fabric(fabric)
{
    m_queue = std::make_unique<team::TeamQueue>(uri, team::TeamIdentity::local());
    m_queue->setPassword(password);
    connect(m_queue.get(), &team::TeamQueue::queueChanged, this, &TeamDesk::lookForNew);
    connect(m_queue.get(), &team::TeamQueue::rolesKnown, this, &TeamDesk::lookForNew);
    connect(m_queue.get(), &team::TeamQueue::availabilityChanged, this,
            [](bool available, const QString &reason) {
                if (!available)
                    qCWarning(lcTeamDesk).noquote() << "team database unreachable:" << reason;
            });
    m_queue->start();
}

TeamDesk::~TeamDesk()
{
    delete m_dialog;
}

void TeamDesk::showApprovals(QWidget *parent, const QByteArray &select)
{
    if (!m_dialog) {
        m_dialog = new TeamApprovalsDialog(m_queue.get(), parent);
        QPointer<keychain::ApproverKeyStore> keys = m_keys;
        m_dialog->setKeyLoader([keys](auto answer) {
            if (!keys)
                return answer({}, tr("the app is shutting down"));
            // Never made here: a key the administrator has not listed would count for nothing;
            // `fabric-broker team key` makes it and prints what to give the administrator.
            keys->load(false, [answer = std::move(answer)](bool ok, const QByteArray &key, bool,
                                                           const QString &error) {
                answer(ok ? key : QByteArray(), error);
            });
        });
        QPointer<FabricClient> fabric = m_fabric;
        QPointer<TeamApprovalsDialog> dialog = m_dialog;
        m_dialog->setLookup([fabric, dialog](const team::TeamProposal &p, auto answer) {
            if (!dialog)
                return;
            lookUpCreate(fabric.data(), p.changeType, p.request, p.binding, dialog.data(),
                         std::move(answer));
        });
        m_dialog->open();
    }
    if (!select.isEmpty())
        m_dialog->selectProposal(select);
    m_dialog->raise();
    m_dialog->activateWindow();
}

QString TeamDesk::waitingSummary(const team::TeamProposal &p)
{
    return team::awaitsResolution(p) ? tr("Outcome unknown: a second person is needed")
                                     : tr("Team approval needed");
}

QStringList TeamDesk::waitingText(const team::TeamProposal &p)
{
    return {
        tr("%1 proposed by %2 (OS user %3 on %4)")
            .arg(p.changeType.left(64), p.proposer.left(64), p.osUser.left(64), p.host.left(64)),
        tr("Request SHA-256 %1...").arg(QString::fromLatin1(team::requestSha256Shown(p).left(16)))};
}

void TeamDesk::lookForNew()
{
    if (!m_queue->isApprover())
        return;
    QPointer<TeamDesk> self(this);
    // Listed while the dialog is open too (for the announcements); it opens the dialog only for
    // what it looked at while none was open.
    const bool opens = !m_dialog;
    m_queue->listOpen(
        [self, opens](const std::optional<QList<team::TeamProposal>> &list, const QString &) {
            if (!self || !list)
                return;
            bool fresh = false;
            QSet<QByteArray> waiting;
            QList<team::TeamProposal> announce;
            for (const team::TeamProposal &p : *list) {
                // Waiting for a decision, or an unknown outcome waiting for a second person.
                const bool open = p.state == u"pending" || p.state == u"consumed" ||
                                  (p.state == u"unknown" && !p.resolution);
                if (!open || p.proposer == self->m_queue->role())
                    continue;
                waiting.insert(p.id);
                if (!self->m_announced.contains(p.id))
                    announce.append(p);
                if (opens && !self->m_seen.contains(p.id)) {
                    self->m_seen.insert(p.id);
                    fresh = true;
                }
            }
            // A full page may leave out what still waits: nothing is taken as ended then.
            if (list->size() < team::TeamQueue::PageSize) {
                const QSet<QByteArray> ended = self->m_announced - waiting;
                self->m_announced -= ended;
                for (const QByteArray &id : ended)
                    emit self->noLongerWaiting(id);
            }
            for (const team::TeamProposal &p : std::as_const(announce))
                self->m_announced.insert(p.id);
            if (!announce.isEmpty())
                emit self->proposalsWaiting(announce);
            if (fresh && self)
                self->showApprovals();
        });
}

} // namespace fb
