#pragma once
// DecisionRecorder: records an approver's decision, or the resolution of an unknown outcome, on
// the team queue (issues #26, #34, #40; docs/team-signing.md), below the GUI. Each is bound to the
// exact text the approver's dialog showed (its SHA-256 is the row's dialog_sha256) and signed with
// this operator's approval key when a key loader is set and finds the key (ApproverDecision's
// decisionSigning, resolutionSigning); the key's copy is wiped once it signed. Or, with a signer
// set (the command line's ssh-agent key, issue #37), by that signer: the same statement, the same
// verification. The Team approvals dialog makes one, as its child, and only renders what it
// reports; so does `fabric-broker team approve`, which also requires the signature (an unsigned
// approval counts for nothing). A call whose recorder is gone before the key arrives records
// nothing, and an answer after that is dropped.
#include "team/ApproverDecision.h"

#include <QObject>
#include <QPointer>
#include <functional>

namespace fb::team {

class TeamQueue;
struct TeamProposal;

class DecisionRecorder : public QObject {
    Q_OBJECT
public:
    explicit DecisionRecorder(TeamQueue *queue, QObject *parent = nullptr);

    // Gets this operator's approval key (the raw 32 bytes of the Ed25519 private key) or says
    // why there is none; called once per record, answers once, later, from the event loop.
    using KeyLoader = std::function<void(
        std::function<void(const QByteArray &privateKey, const QString &error)>)>;
    void setKeyLoader(KeyLoader loader) { m_keyLoader = std::move(loader); }
    bool hasKeyLoader() const { return bool(m_keyLoader); }
    // keyError when no key loader is set (the dialog's words).
    void setNoKeyText(const QString &text) { m_noKeyText = text; }
    // Signs with signer instead of a key loader's key (called during decide() or resolve()).
    void setSigner(StatementSigner signer) { m_signer = std::move(signer); }
    // With required, what is not signed is not recorded: done(how, false, why) instead, maybe
    // before decide() or resolve() returns.
    void setSignatureRequired(bool required) { m_signatureRequired = required; }

    // How it was signed, and the queue's answer (recorded, or why not).
    using Done =
        std::function<void(const DecisionSigning &how, bool recorded, const QString &error)>;
    // This role's decision (approve or deny) on p, its dialog having shown exactly shown.
    void decide(const TeamProposal &p, const QString &decision, const QString &shown, Done done);
    // This role's resolution of p's unknown outcome: created (uuid: the one resource the lookup
    // found) or not_created (uuid empty), its dialog having shown exactly shown, lookup included.
    void resolve(const TeamProposal &p, const QString &outcome, const QString &uuid,
                 const QString &shown, Done done);

    // Calls fn with a private copy of the key loader's key (or why there is none), wiped after
    // fn returns. Without a loader, fn gets no key and noKeyText.
    static void withKey(const KeyLoader &loader, const QString &noKeyText,
                        std::function<void(const QByteArray &key, const QString &error)> fn);

private:
    // How role's decision or resolution is signed: with a key loader's key (or why there is
    // none), or with the signer; and how it is recorded once signed.
    using KeySigning = std::function<DecisionSigning(const QString &role, const QByteArray &key,
                                                     const QString &keyError, qint64 nowMs)>;
    using SignerSigning = std::function<DecisionSigning(
        const QString &role, const StatementSigner &signer, qint64 nowMs)>;
    using Record =
        std::function<void(TeamQueue *queue, const DecisionSigning &how, TeamDone<bool> recorded)>;
    void signAndRecord(KeySigning viaKey, SignerSigning viaSigner, Record record, Done done);

    QPointer<TeamQueue> m_queue;
    KeyLoader m_keyLoader;
    StatementSigner m_signer;
    QString m_noKeyText;
    bool m_signatureRequired = false;
};

} // namespace fb::team
