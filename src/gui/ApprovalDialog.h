#pragma once
// ApprovalDialog: renders one approval exactly as the broker compiled it (change type, target,
// client, price context, age, countdown to the absolute expiry, request hash and every field of
// the request body) and reports the person's choice. It decides nothing: ApprovalSession does.
// Non-modal, opened with open(), deleted on close. Deny is the default; approve names the
// action, unlocks after a short delay and locks again at expiry.
#include "broker/Approver.h"
#include "core/Clock.h"

#include <QDialog>
#include <QTimer>
#include <memory>

class QLabel;
class QLineEdit;
class QPushButton;
class QTreeWidget;

namespace Ui {
class ApprovalDialog;
}

namespace fb {

class ApprovalDialog : public QDialog {
    Q_OBJECT
public:
    static constexpr int DefaultApproveDelayMs = 1500;

    ApprovalDialog(const ApprovalContext &context, Clock *clock, QWidget *parent = nullptr);
    ~ApprovalDialog() override;

    // Before the dialog is shown.
    void setApproveDelayMs(int ms);
    void setSandbox(bool sandbox);
    // When the prompt gives up waiting (ApprovalSession::answerDeadlineMs); 0 = not shown.
    void setAnswerDeadlineMs(qint64 deadlineMs);

    // Closes without reporting a choice (timeout, cancelled call, shutdown): the session has
    // already decided.
    void closeWithoutAnswer();
    // The agent's tool call ended while the dialog was open (the client cancelled it, most often
    // its request timeout): the dialog stays and says so instead of vanishing; approving is no
    // longer possible and the one remaining button closes it. detail: why, already plain text.
    void showAgentGaveUp(const QString &detail);
    // The request can no longer be approved (the Fabric binding changed): the dialog stays
    // open with the reason, only Close remains.
    void showNoLongerApprovable(const QString &reason);
    bool agentGaveUp() const { return m_gaveUp; }
    bool isExpired() const;
    // "Create connection", "Create network", "Create service token".
    static QString approveLabel(ChangeType type);

    // For tests and screenshots.
    QPushButton *approveButton() const;
    QPushButton *denyButton() const;
    QPushButton *copyShaButton() const;
    QLineEdit *shaField() const;
    QTreeWidget *requestTree() const;
    QLabel *clientLabel() const;
    QLabel *priceLabel() const;
    QLabel *expiresLabel() const;
    QLabel *expiredNotice() const;
    QLabel *sandboxBanner() const;

public slots:
    // Opens without blocking anything and returns at once. Hides QDialog::open(), which makes a
    // dialog window-modal: an approval must never be modal, so several can be answered in any
    // order and QApplication::activeModalWidget() stays null.
    void open();
    // Recomputes every time-dependent text from the clock (the 1 s timer calls it).
    void refresh();

signals:
    void approveChosen();
    void denyChosen();
    void dismissed(); // closed or Escape

protected:
    void showEvent(QShowEvent *event) override;
    void reject() override;

private:
    enum class Choice { Approve, Deny, Dismiss };
    void report(Choice choice);
    void fillRequestTree();
    void updateApproveEnabled();

    std::unique_ptr<Ui::ApprovalDialog> ui;
    ApprovalContext m_context;
    Clock *m_clock;
    QTimer m_tick;
    QTimer m_unlock;
    int m_approveDelayMs = DefaultApproveDelayMs;
    qint64 m_answerDeadlineMs = 0;
    bool m_unlockStarted = false;
    bool m_unlocked = false;
    bool m_reported = false;
    bool m_gaveUp = false;
};

} // namespace fb
