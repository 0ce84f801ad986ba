// DesktopUi's offer to switch from the embedded sandbox to the Equinix settings the person has
// just saved: what was saved, read back as the next start would read it, where the secret would
// go, and the question itself (the switch is RunModesDesktop's).
#include "gui/DesktopUi.h"

#include "core/ProposalStore.h"
#include "core/UntrustedText.h"
#include "fabric/FabricClient.h"
#include "gui/DesktopApprover.h"
#include "gui/DesktopPreferences.h"
#include "gui/MainWindow.h"
#include "keychain/CredentialStore.h"

#include <QLoggingCategory>
#include <QMessageBox>
#include <QProcessEnvironment>
#include <QPushButton>
#include <QSettings>

Q_DECLARE_LOGGING_CATEGORY(lcDesktopUi)

namespace fb {

void DesktopUi::offerSwitchFromKeychain()
{
    // What was saved, read back as the next start would read it (the endpoint from QSettings,
    // the credentials from the keychain), not what the dialog passed along.
    QPointer<DesktopUi> self(this);
    m_credentials->read([self](bool ok, const keychain::FabricCredentials &c, const QString &) {
        if (!self || !ok)
            return;
        FabricConfig saved;
        if (const QUrl endpoint = DesktopPreferences::load(QSettings()).endpoint;
            !endpoint.isEmpty())
            saved.endpoint = endpoint;
        saved.clientId = c.clientId;
        saved.clientSecret = c.clientSecret;
        // Where the switch would send the secret: the app's environment names the endpoint
        // before the saved settings do (EQUINIX_API_ENDPOINT). Never a switch to an endpoint the
        // person did not just save; the main window says which endpoint a start uses.
        const FabricConfig effective =
            FabricConfig::withSaved(QProcessEnvironment::systemEnvironment(), saved);
        if (saved.hasCredentials() && effective.endpoint.adjusted(QUrl::StripTrailingSlash) !=
                                          saved.endpoint.adjusted(QUrl::StripTrailingSlash)) {
            qCWarning(lcDesktopUi).noquote()
                << "no switch offered: the environment's endpoint overrides the saved one";
            self->m_window->showStatusMessage(
                tr("Settings saved. No switch now: EQUINIX_API_ENDPOINT in Fabric Broker's "
                   "environment (%1) overrides the endpoint saved in Settings.")
                    .arg(UntrustedText::escapeInvisible(
                        UntrustedText::bounded(effective.endpoint.toString(), 200))));
            return;
        }
        self->offerSandboxSwitch(saved);
    });
}

QString DesktopUi::sandboxSwitchText(int pending, int approvals, const QUrl &endpoint,
                                     const QString &clientId)
{
    return tr("Fabric Broker runs on its embedded sandbox. The credentials you saved apply at the "
              "next start, or now:") +
           u'\n' +
           tr("- the sandbox's %n pending proposal(s) are dropped (agents must propose again);",
              nullptr, pending) +
           u'\n' + tr("- %n open approval dialog(s) are denied;", nullptr, approvals) + u'\n' +
           tr("- connected agents (MCP sessions, relayed --stdio clients, HTTP sessions) are "
              "disconnected and must reconnect;") +
           u'\n' +
           tr("- from then on, creates go to %1 with the saved account (client id %2).")
               .arg(UntrustedText::escapeInvisible(
                        UntrustedText::bounded(endpoint.toString(QUrl::RemoveUserInfo), 300)),
                    UntrustedText::escapeInvisible(UntrustedText::bounded(clientId, 200)));
}

QMessageBox *DesktopUi::offerSandboxSwitch(const FabricConfig &saved)
{
    const bool sandbox =
        m_context.sandbox || (m_context.fabric && m_context.fabric->config().sandbox);
    const QUrl current = m_context.fabric ? m_context.fabric->config().endpoint : QUrl();
    if (!sandbox || m_context.forcedSandbox || m_context.ownStdio || saved.clientId.isEmpty() ||
        saved.clientSecret.isEmpty() || !saved.endpointProblem().isEmpty() ||
        saved.endpoint.adjusted(QUrl::StripTrailingSlash) ==
            current.adjusted(QUrl::StripTrailingSlash))
        return nullptr;
    if (m_switchOffer)
        m_switchOffer->close(); // one offer, for what was saved last
    auto *box = new QMessageBox(QMessageBox::Question, tr("Switch to Equinix now? - Fabric Broker"),
                                QString(), QMessageBox::NoButton, dialogParent());
    dialogOpened(box);
    box->setObjectName(QStringLiteral("sandboxSwitchOffer"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setTextFormat(Qt::PlainText);
    QPushButton *now = box->addButton(tr("Switch to Equinix now"), QMessageBox::AcceptRole);
    QPushButton *later = box->addButton(tr("Later (at the next start)"), QMessageBox::RejectRole);
    box->setDefaultButton(later);
    box->setEscapeButton(later);
    // The counts follow what happens while the box is up (agents may keep proposing).
    const auto refresh = [this, box, endpoint = saved.endpoint, clientId = saved.clientId] {
        box->setText(sandboxSwitchText(m_context.store ? m_context.store->pendingCount() : 0,
                                       m_approver->pendingCount(), endpoint, clientId));
    };
    refresh();
    if (m_context.store) {
        connect(m_context.store, &ProposalStore::proposalAdded, box, refresh);
        connect(m_context.store, &ProposalStore::proposalConsumed, box, refresh);
        connect(m_context.store, &ProposalStore::proposalEvicted, box, refresh);
        connect(m_context.store, &ProposalStore::proposalExpired, box, refresh);
    }
    connect(m_approver.get(), &DesktopApprover::pendingCountChanged, box, refresh);
    connect(box, &QMessageBox::buttonClicked, this, [this, now, saved](QAbstractButton *clicked) {
        if (clicked == now)
            emit switchFromSandboxRequested(saved);
        else
            m_window->showStatusMessage(
                tr("Settings saved; the sandbox stays in use until the next start."));
    });
    m_switchOffer = box;
    box->open();
    return box;
}

} // namespace fb
