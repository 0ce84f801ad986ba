#include "team/DecisionRecorder.h"

#include "team/ApprovalKeys.h"
#include "team/TeamQueue.h"

#include <QDateTime>

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

void DecisionRecorder::decide(const TeamProposal &p, const QString &decision, const QString &shown,
                              Done done)
{
    QPointer<DecisionRecorder> self(this);
    withKey(m_keyLoader, m_noKeyText,
            [self, p, decision, shown, done = std::move(done)](const QByteArray &key,
                                                               const QString &keyError) {
                if (!self || !self->m_queue)
                    return;
                // What is signed is the decision on exactly the row read and the text shown.
                const DecisionSigning how =
                    decisionSigning(p, decision, shown, self->m_queue->role(), key, keyError,
                                    QDateTime::currentMSecsSinceEpoch());
                self->m_queue->decide(
                    p.id, decision, shownTextSha256(shown),
                    [self, how, done](const std::optional<bool> &ok, const QString &error) {
                        if (self)
                            done(how, ok.value_or(false), error);
                    },
                    how.signature);
            });
}

void DecisionRecorder::resolve(const TeamProposal &p, const QString &outcome, const QString &uuid,
                               const QString &shown, Done done)
{
    QPointer<DecisionRecorder> self(this);
    withKey(m_keyLoader, m_noKeyText,
            [self, p, outcome, uuid, shown, done = std::move(done)](const QByteArray &key,
                                                                    const QString &keyError) {
                if (!self || !self->m_queue)
                    return;
                const DecisionSigning how =
                    resolutionSigning(p, outcome, uuid, shown, self->m_queue->role(), key, keyError,
                                      QDateTime::currentMSecsSinceEpoch());
                self->m_queue->resolve(
                    p.id, outcome, uuid, shownTextSha256(shown),
                    [self, how, done](const std::optional<bool> &ok, const QString &error) {
                        if (self)
                            done(how, ok.value_or(false), error);
                    },
                    how.signature);
            });
}

} // namespace fb::team
