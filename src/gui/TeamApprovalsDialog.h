#pragma once
// TeamApprovalsDialog: an approver's view of the team queue (docs/team.md, "The queue"): the
// proposals of every workstation still open to a decision, and those left `unknown`, read from
// the team database and read again on every wake-up (NOTIFY) and reconnect. Each is shown with
// where it goes (Sandbox or Production, endpoint, credentials) and the Request SHA-256 computed
// from the body shown; a row whose stored hash is not its body's is refused (one plain line,
// nothing to decide). Approve and Deny record this role's decision with the SHA-256 of the exact
// text shown, and with this operator's signed statement of it (docs/team-signing.md; signed and
// recorded by team/DecisionRecorder) when a key loader is set and finds the key; the
// approvals of the selected proposal that the proposing broker did not count (approval_rejected
// in the team audit chain) are listed under the details. Non-modal: the caller
// open()s it; it never blocks. Every value is the database's, shown as inert plain text. While
// the database is unreachable a banner says why and the decision buttons are off.
// A create whose outcome is `unknown` (issue #26, requirement 5) is shown with the catalog's name
// search already run (the lookup set by the caller, on this app's Fabric client); an approver
// other than the proposer marks it created (the one resource found) or not created (none
// found), signed like a decision, over the exact text shown, lookup included.
#include "broker/CreateLookup.h"
#include "team/DecisionRecorder.h"

#include <QDialog>
#include <QPointer>
#include <functional>
#include <initializer_list>

class QLabel;
class QListWidget;
class QPlainTextEdit;
class QPushButton;

namespace fb {

class TeamApprovalsDialog : public QDialog {
    Q_OBJECT
public:
    explicit TeamApprovalsDialog(team::TeamQueue *queue, QWidget *parent = nullptr);
    ~TeamApprovalsDialog() override;

    // The text a decision on proposal p is made on (what the details pane shows):
    // team/DecisionText's decisionText, the text `fabric-broker team show` prints too.
    static QString decisionText(const team::TeamProposal &p);
    // What the details pane shows instead of a row whose stored hash is not its body's:
    // team/DecisionText's refusalText. Empty when the row may be shown.
    static QString refusalText(const team::TeamProposal &p);

    // Gets this operator's approval key (the raw 32 bytes of the Ed25519 private key) or says
    // why there is none; called once per decision, answers once, later, from the event loop.
    using KeyLoader = team::DecisionRecorder::KeyLoader;
    void setKeyLoader(KeyLoader loader) { m_recorder->setKeyLoader(std::move(loader)); }
    // Runs the catalog's name search for an unknown create; answers once, later.
    using Lookup =
        std::function<void(const team::TeamProposal &, std::function<void(const CreateLookup &)>)>;
    void setLookup(Lookup lookup);

    // The text a resolution of an unknown p is made on: decisionText and the lookup's result.
    static QString resolutionText(const team::TeamProposal &p, const CreateLookup &lookup);

    QLabel *banner() const { return m_banner; }
    QListWidget *list() const { return m_list; }
    QPlainTextEdit *details() const { return m_details; }
    QPushButton *approveButton() const { return m_approve; }
    QPushButton *denyButton() const { return m_deny; }
    QPushButton *markCreatedButton() const { return m_markCreated; }
    QPushButton *markNotCreatedButton() const { return m_markNotCreated; }
    QLabel *statusLabel() const { return m_status; }
    QLabel *rejectedLabel() const { return m_rejected; }

    // Selects proposal id now if it is listed, else once a refresh lists it (a notification of it
    // was opened).
    void selectProposal(const QByteArray &id);

public slots:
    void refresh();

signals:
    void refreshed(int count);
    void decisionRecorded(const QByteArray &id, const QString &decision, bool ok);
    void resolutionRecorded(const QByteArray &id, const QString &outcome, bool ok);

private:
    void showAvailability(bool available, const QString &reason);
    void showSelected();
    // Approve, deny, mark created or not created: the row and the text shown go to the
    // recorder (it signs and records); the status line says what it reported.
    void decideSelected(const QString &decision);
    void showRejections();
    void lookUpUnknown();
    void resolveSelected(const QString &outcome);
    // False when p is refused or the details no longer show exactly `shown`; else the buttons
    // are off while it is recorded, and the status says signing when a key is loaded.
    bool beginRecording(const team::TeamProposal &p, const QString &shown,
                        std::initializer_list<QPushButton *> buttons, const QString &signing);

    struct Rows;
    QPointer<team::TeamQueue> m_queue;
    std::unique_ptr<Rows> m_rows;
    QLabel *m_banner;
    QListWidget *m_list;
    QPlainTextEdit *m_details;
    QPushButton *m_approve;
    QPushButton *m_deny;
    QPushButton *m_markCreated;
    QPushButton *m_markNotCreated;
    QLabel *m_status;
    QLabel *m_rejected;
    team::DecisionRecorder *m_recorder; // a child: what is decided, signed and recorded
    Lookup m_lookup;
    quint64 m_rejectionsAsked = 0;
    QByteArray m_wanted; // selectProposal's id, until a refresh lists it
    bool m_refreshing = false;
    bool m_refreshAgain = false;
};

} // namespace fb
