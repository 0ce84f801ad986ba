#include "team/DecisionRecorder.h"

#include "team/ApprovalKeys.h"
#include "team/TeamQueue.h"

#include <QDateTime>

using namespace Qt::StringLiterals;

namespace fb::team {

DecisionRecorder::DecisionRecorder(TeamQueue *queue, QObject *parent)
    : QObject(parent)
    , m_queue(queue)
{
}

void DecisionRecorder::withKey(const KeyLoader &loader, const QString &noKeyText,
                               std::function<void(const QByteArray &key, const QString &error)> fn)
{
    if (!loader)
        return fn({}, noKeyText);
    loader([fn = std::move(fn)](const QByteArray &key, const QString &error) {
        QByteArray secret = key;
        secret.detach();
        fn(secret, error);
        ApprovalKeys::wipe(secret);
    });
}

void DecisionRecorder::signAndRecord(KeySigning viaKey, SignerSigning viaSigner, Record record,
                                     Done done)
{
    QPointer<DecisionRecorder> self(this);
    auto finish = [self, record = std::move(record),
                   done = std::move(done)](const DecisionSigning &how) {
        if (!self || !self->m_queue)
            return;
        if (self->m_signatureRequired && how.status != DecisionSigning::Status::Signed)
            return done(how, false, u"nothing is recorded without a signature"_s);
        record(self->m_queue, how,
               [self, how, done](const std::optional<bool> &ok, const QString &error) {
                   if (self)
                       done(how, ok.value_or(false), error);
               });
    };
    if (m_signer) {
        if (m_queue)
            finish(viaSigner(m_queue->role(), m_signer, QDateTime::currentMSecsSinceEpoch()));
        return;
    }
    withKey(m_keyLoader, m_noKeyText,
            [self, viaKey = std::move(viaKey),
             finish = std::move(finish)](const QByteArray &key, const QString &keyError) {
                if (!self || !self->m_queue)
                    return;
                finish(viaKey(self->m_queue->role(), key, keyError,
                              QDateTime::currentMSecsSinceEpoch()));
            });
}

void DecisionRecorder::decide(const TeamProposal &p, const QString &decision, const QString &shown,
                              Done done)
{
    // What is signed is the decision on exactly the row read and the text shown.
    signAndRecord(
        [p, decision, shown](const QString &role, const QByteArray &key, const QString &keyError,
                             qint64 nowMs) {
            return decisionSigning(p, decision, shown, role, key, keyError, nowMs);
        },
        [p, decision, shown](const QString &role, const StatementSigner &signer, qint64 nowMs) {
            return decisionSigningWith(p, decision, shown, role, signer, nowMs);
        },
        [id = p.id, decision, shown](TeamQueue *queue, const DecisionSigning &how,
                                     TeamDone<bool> recorded) {
            queue->decide(id, decision, shownTextSha256(shown), std::move(recorded), how.signature);
        },
        std::move(done));
}

void DecisionRecorder::resolve(const TeamProposal &p, const QString &outcome, const QString &uuid,
                               const QString &shown, Done done)
{
    signAndRecord(
        [p, outcome, uuid, shown](const QString &role, const QByteArray &key,
                                  const QString &keyError, qint64 nowMs) {
            return resolutionSigning(p, outcome, uuid, shown, role, key, keyError, nowMs);
        },
        [p, outcome, uuid, shown](const QString &role, const StatementSigner &signer,
                                  qint64 nowMs) {
            return resolutionSigningWith(p, outcome, uuid, shown, role, signer, nowMs);
        },
        [id = p.id, outcome, uuid, shown](TeamQueue *queue, const DecisionSigning &how,
                                          TeamDone<bool> recorded) {
            queue->resolve(id, outcome, uuid, shownTextSha256(shown), std::move(recorded),
                           how.signature);
        },
        std::move(done));
}

} // namespace fb::team
