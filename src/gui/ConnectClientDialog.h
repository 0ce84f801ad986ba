#pragma once
// ConnectClientDialog: the exact configuration each MCP client needs to reach this broker, for
// this installation's executable, from the one generator (mcp::ClientSnippets). Clients with an
// install link get a one-click "Install in ..." button; everything else a Copy button.
#include <QDialog>
#include <QHash>
#include <memory>

class QPlainTextEdit;
class QPushButton;

namespace Ui {
class ConnectClientDialog;
}

namespace fb {

class ConnectClientDialog : public QDialog {
    Q_OBJECT
public:
    // httpUrl: the running loopback HTTP endpoint, if any: its snippets are shown too (none
    // holds the bearer token: mcp::ClientSnippets::http).
    explicit ConnectClientDialog(const QString &executablePath, QWidget *parent = nullptr,
                                 const QString &httpUrl = QString());
    ~ConnectClientDialog() override;

    // By snippet id (mcp::ClientSnippet::id). Links have no text field (nullptr) but an
    // "Install in ..." button; every snippet has a Copy button.
    QPlainTextEdit *snippet(const QString &id) const;
    QPushButton *copyButton(const QString &id) const;
    QPushButton *installButton(const QString &id) const;
    QStringList snippetIds() const;
    // Tests: an install button emits linkRequested instead of handing the link to the desktop.
    void setOpenLinks(bool open) { m_openLinks = open; }

signals:
    void linkRequested(const QString &url);

private:
    std::unique_ptr<Ui::ConnectClientDialog> ui;
    QStringList m_ids;
    QHash<QString, QPlainTextEdit *> m_edits;
    QHash<QString, QPushButton *> m_copy;
    QHash<QString, QPushButton *> m_install;
    bool m_openLinks = true;
};

} // namespace fb
