#pragma once
// SettingsDialog: Fabric endpoint and credentials, toolsets and approval channel, with a
// "Test connection" on a temporary client. Secrets go to the keychain (CredentialStore), the
// rest to QSettings (DesktopPreferences). TTL and timeouts are shown read-only.
#include "broker/BrokerSettings.h"
#include "fabric/FabricClient.h"
#include "gui/DesktopPreferences.h"

#include <QDialog>
#include <QPointer>
#include <memory>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace Ui {
class SettingsDialog;
}

namespace fb::keychain {
class CredentialStore;
} // namespace fb::keychain

namespace fb {

class ProposalStore;

class SettingsDialog : public QDialog {
    Q_OBJECT
public:
    // store may be null (no keychain): credentials then cannot be saved.
    SettingsDialog(const FabricConfig &current, const BrokerSettings &settings, bool sandbox,
                   keychain::CredentialStore *store, QWidget *parent = nullptr);
    ~SettingsDialog() override;

    // What the fields describe; an empty secret field keeps the current secret.
    FabricConfig fabricConfig() const;
    DesktopPreferences preferences() const;

    // Pending proposals are bound to the endpoint and credentials they were dry-run under:
    // with a store set, the dialog warns that saving others voids them, and saving does (each
    // is evicted, so agents and the audit log see it like any eviction). Not owned.
    void setProposalStore(ProposalStore *store);
    QLabel *voidWarningLabel() const;
    // What else of the policy applies now (broker/PolicyApply's ResolvedSettings): why mutate
    // is refused (the mutate box is disabled with those words) and saved values it overrides.
    void showMutateLock(const QString &lock, const QStringList &overridden);
    // The Observability group (docs/observability.md): where the exports go from the next start
    // (saved; the policy and the environment win), and one read-only row per export as the host
    // describes it now (label, plain text), replacing the rows shown before.
    void showObservability(const QList<QPair<QString, QString>> &rows);

    QLineEdit *endpointEdit() const;
    QLineEdit *clientIdEdit() const;
    QLineEdit *clientSecretEdit() const;
    QPushButton *testButton() const;
    QLabel *testResultLabel() const;

public slots:
    void testConnection();
    void save();

signals:
    void saved(const fb::FabricConfig &config, const fb::DesktopPreferences &preferences);

private:
    // One check per spec read toolset, with its tool count and what it reads (its tooltip and
    // accessible description), between read and mutate; each named "<toolset>ToolsetCheck".
    void addReadToolsetChecks();
    QCheckBox *toolsetCheck(const QString &name) const;
    void setStatus(const QString &text, bool error);
    // After a keychain write: the buttons back, and false with the refusal of what shown if the
    // keychain refused it.
    bool keychainWrote(bool ok, const QString &error, const QString &what);
    bool isSandboxEndpoint(const QUrl &endpoint) const;
    bool bindingChanged(const FabricConfig &config) const;
    void updateVoidWarning();
    void voidPendingProposals(const FabricConfig &config);
    std::unique_ptr<Ui::SettingsDialog> ui;
    FabricConfig m_current;
    QUrl m_sandboxEndpoint; // the running sandbox's own address, on the sandbox
    BrokerSettings m_settings;
    bool m_sandbox;
    QPointer<keychain::CredentialStore> m_store;
    QPointer<FabricClient> m_testClient;
    QPointer<FabricCall> m_testCall;
    QPointer<ProposalStore> m_proposals;
    QLabel *m_voidWarning = nullptr;
    QCheckBox *m_httpCheck = nullptr;
    QCheckBox *m_notifyCheck = nullptr;
    // Team mode (docs/team.md): team.database and the role's password (to the keychain).
    void addTeamGroup(const BrokerSettings &settings);
    QLineEdit *m_teamDatabase = nullptr;
    QLineEdit *m_teamPassword = nullptr;
    QString m_savedHttpAddress;
    // Observability (docs/observability.md): the saved targets of the exports.
    void addObservabilityGroup(const DesktopPreferences &prefs);
    QLineEdit *m_otlpEndpoint = nullptr;
    QLineEdit *m_auditSyslog = nullptr;
    DesktopPreferences m_savedPrefs; // as loaded: what a field locked by the policy keeps
};

} // namespace fb
