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

class QLabel;
class QLineEdit;
class QPushButton;

namespace Ui {
class SettingsDialog;
}

namespace fb {

class CredentialStore;

class SettingsDialog : public QDialog {
    Q_OBJECT
public:
    // store may be null (no keychain): credentials then cannot be saved.
    SettingsDialog(const FabricConfig &current, const BrokerSettings &settings, bool sandbox,
                   CredentialStore *store, QWidget *parent = nullptr);
    ~SettingsDialog() override;

    // What the fields describe; an empty secret field keeps the current secret.
    FabricConfig fabricConfig() const;
    DesktopPreferences preferences() const;

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
    void setStatus(const QString &text, bool error);
    std::unique_ptr<Ui::SettingsDialog> ui;
    FabricConfig m_current;
    BrokerSettings m_settings;
    bool m_sandbox;
    QPointer<CredentialStore> m_store;
    QPointer<FabricClient> m_testClient;
    QPointer<FabricCall> m_testCall;
};

} // namespace fb
