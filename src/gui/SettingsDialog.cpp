#include "gui/SettingsDialog.h"

#include "broker/ProposalView.h"
#include "gui/CredentialStore.h"
#include "gui/LoginAutostart.h"
#include "ui_SettingsDialog.h"

#include <QCoreApplication>
#include <QLoggingCategory>
#include <QPushButton>
#include <QSettings>

Q_LOGGING_CATEGORY(lcSettingsDialog, "fabricbroker.gui.settings")

namespace fb {

SettingsDialog::SettingsDialog(const FabricConfig &current, const BrokerSettings &settings,
                               bool sandbox, CredentialStore *store, QWidget *parent)
    : QDialog(parent)
    , ui(std::make_unique<Ui::SettingsDialog>())
    , m_current(current)
    , m_settings(settings)
    , m_sandbox(sandbox)
    , m_store(store)
{
    ui->setupUi(this);
    setAttribute(Qt::WA_DeleteOnClose);

    if (sandbox) {
        ui->sandboxNote->setText(
            tr("SANDBOX: this session talks to the embedded Fabric sandbox. Saved values apply "
               "when Fabric Broker runs against Equinix Fabric."));
        ui->sandboxNote->setStyleSheet(QStringLiteral(
            "QLabel { background: #f5c542; color: #1d1d1d; font-weight: bold; padding: 6px; "
            "border-radius: 4px; }"));
    } else {
        ui->sandboxNote->setVisible(false);
    }

    const DesktopPreferences prefs = DesktopPreferences::load(QSettings());
    const QUrl endpoint = !prefs.endpoint.isEmpty() && !sandbox ? prefs.endpoint : current.endpoint;
    ui->endpointEdit->setText(endpoint.toString());
    ui->clientIdEdit->setText(current.clientId);
    ui->clientSecretEdit->setPlaceholderText(
        current.clientSecret.isEmpty() ? tr("not set")
                                       : tr("set - leave empty to keep the current secret"));

    const QStringList toolsets = prefs.toolsets.isEmpty() ? settings.toolsets : prefs.toolsets;
    ui->readToolsetCheck->setChecked(toolsets.contains(QStringLiteral("read")));
    ui->mutateToolsetCheck->setChecked(toolsets.contains(QStringLiteral("mutate")));

    ui->approvalCombo->addItem(tr("Automatic"), QStringLiteral("auto"));
    ui->approvalCombo->addItem(tr("The MCP client's prompt (elicitation)"),
                               QStringLiteral("client"));
    ui->approvalCombo->addItem(tr("This app's approval dialog"), QStringLiteral("desktop"));
    const QString mode = prefs.approvalMode.isEmpty()
                             ? BrokerSettings::approvalModeName(settings.approvalMode)
                             : prefs.approvalMode;
    ui->approvalCombo->setCurrentIndex(std::max(0, ui->approvalCombo->findData(mode)));

    ui->startAtLoginCheck->setChecked(
        LoginAutostart::forCurrentUser(QCoreApplication::applicationFilePath()).isEnabled());

    ui->ttlValue->setText(ProposalView::formatDuration(settings.proposalTtlMs));
    ui->elicitValue->setText(ProposalView::formatDuration(settings.elicitTimeoutMs));
    ui->maxPendingValue->setText(QString::number(settings.maxPending));

    if (!m_store) {
        ui->credentialsNote->setText(
            tr("No keychain is available: credentials can only come from the environment."));
    } else {
        // Prefill from the keychain, asynchronously.
        QPointer<SettingsDialog> self(this);
        m_store->read([self](bool ok, const FabricCredentials &creds, const QString &error) {
            if (!self)
                return;
            if (!ok) {
                self->ui->credentialsNote->setText(tr("Keychain unavailable: %1").arg(error));
                return;
            }
            if (self->ui->clientIdEdit->text().isEmpty())
                self->ui->clientIdEdit->setText(creds.clientId);
            if (self->m_current.clientSecret.isEmpty() && !creds.clientSecret.isEmpty()) {
                self->m_current.clientSecret = creds.clientSecret;
                self->ui->clientSecretEdit->setPlaceholderText(
                    tr("stored in the keychain - leave empty to keep it"));
            }
        });
    }

    connect(ui->testButton, &QPushButton::clicked, this, &SettingsDialog::testConnection);
    // Return saves (from any field), as in most settings dialogs; Escape cancels.
    ui->buttonBox->button(QDialogButtonBox::Save)->setDefault(true);
    connect(ui->buttonBox, &QDialogButtonBox::accepted, this, &SettingsDialog::save);
    connect(ui->buttonBox, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

SettingsDialog::~SettingsDialog()
{
    if (m_testCall)
        m_testCall->abort();
}

FabricConfig SettingsDialog::fabricConfig() const
{
    FabricConfig c = m_current;
    c.endpoint = QUrl(ui->endpointEdit->text().trimmed());
    c.clientId = ui->clientIdEdit->text().trimmed();
    if (!ui->clientSecretEdit->text().isEmpty())
        c.clientSecret = ui->clientSecretEdit->text();
    return c;
}

DesktopPreferences SettingsDialog::preferences() const
{
    DesktopPreferences p;
    p.endpoint = QUrl(ui->endpointEdit->text().trimmed());
    if (ui->readToolsetCheck->isChecked())
        p.toolsets << QStringLiteral("read");
    if (ui->mutateToolsetCheck->isChecked())
        p.toolsets << QStringLiteral("mutate");
    p.approvalMode = ui->approvalCombo->currentData().toString();
    return p;
}

void SettingsDialog::setStatus(const QString &text, bool error)
{
    ui->statusLabel->setText(text);
    ui->statusLabel->setStyleSheet(error ? QStringLiteral("QLabel { color: #b00020; }")
                                         : QString());
}

void SettingsDialog::testConnection()
{
    const FabricConfig config = fabricConfig();
    if (const QString problem = config.endpointProblem(); !problem.isEmpty()) {
        ui->testResultLabel->setText(problem);
        return;
    }
    if (!config.hasCredentials()) {
        ui->testResultLabel->setText(tr("Enter a client ID and secret first."));
        return;
    }
    if (m_testCall)
        m_testCall->abort();
    delete m_testClient;
    m_testClient = new FabricClient(config, this);
    ui->testButton->setEnabled(false);
    ui->testResultLabel->setText(tr("Testing..."));
    m_testCall = m_testClient->testConnection();
    connect(m_testCall, &FabricCall::finished, this, [this](const FabricResult &r) {
        ui->testButton->setEnabled(true);
        if (r.ok())
            ui->testResultLabel->setText(tr("Connected: Fabric issued an access token."));
        else
            ui->testResultLabel->setText(
                tr("Failed (%1): %2").arg(FabricResult::kindName(r.kind), r.message));
        if (m_testClient)
            m_testClient->deleteLater();
    });
}

void SettingsDialog::save()
{
    const FabricConfig config = fabricConfig();
    if (const QString problem = config.endpointProblem(); !problem.isEmpty()) {
        setStatus(problem, true);
        return;
    }
    const DesktopPreferences prefs = preferences();
    if (prefs.toolsets.isEmpty()) {
        setStatus(tr("Choose at least one toolset."), true);
        return;
    }
    LoginAutostart autostart =
        LoginAutostart::forCurrentUser(QCoreApplication::applicationFilePath());
    if (QString error; ui->startAtLoginCheck->isChecked() != autostart.isEnabled() &&
                       !autostart.setEnabled(ui->startAtLoginCheck->isChecked(), &error)) {
        setStatus(tr("Start at login could not be changed: %1").arg(error), true);
        return;
    }
    QSettings settings;
    prefs.save(settings);

    const bool credentialsChanged =
        config.clientId != m_current.clientId || config.clientSecret != m_current.clientSecret;
    if (!credentialsChanged || !m_store) {
        if (credentialsChanged)
            setStatus(tr("No keychain: the credentials were not saved."), true);
        emit saved(config, prefs);
        if (!credentialsChanged)
            accept();
        return;
    }
    ui->buttonBox->setEnabled(false);
    setStatus(tr("Saving to the keychain..."), false);
    QPointer<SettingsDialog> self(this);
    m_store->write(FabricCredentials{config.clientId, config.clientSecret},
                   [self, config, prefs](bool ok, const QString &error) {
                       if (!self)
                           return;
                       self->ui->buttonBox->setEnabled(true);
                       if (!ok) {
                           self->setStatus(tr("The keychain refused the credentials: %1. "
                                              "Nothing was stored in a file.")
                                               .arg(error),
                                           true);
                           return;
                       }
                       QSettings stored;
                       DesktopPreferences::setCredentialsInKeychain(
                           stored, !config.clientId.isEmpty() || !config.clientSecret.isEmpty());
                       emit self->saved(config, prefs);
                       self->accept();
                   });
}

QLineEdit *SettingsDialog::endpointEdit() const
{
    return ui->endpointEdit;
}
QLineEdit *SettingsDialog::clientIdEdit() const
{
    return ui->clientIdEdit;
}
QLineEdit *SettingsDialog::clientSecretEdit() const
{
    return ui->clientSecretEdit;
}
QPushButton *SettingsDialog::testButton() const
{
    return ui->testButton;
}
QLabel *SettingsDialog::testResultLabel() const
{
    return ui->testResultLabel;
}

} // namespace fb
