#pragma once
// ConnectClientDialog: the exact configuration each MCP client needs to reach this broker, for
// this installation's executable, each with a Copy button.
#include <QDialog>
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
    explicit ConnectClientDialog(const QString &executablePath, QWidget *parent = nullptr);
    ~ConnectClientDialog() override;

    // claude mcp add fabric-broker -- <exe> --stdio (the path shell-quoted when needed)
    static QString claudeCodeCommand(const QString &executablePath);
    // {"mcpServers": {"fabric-broker": {"command": <exe>, "args": ["--stdio"]}}}
    static QString mcpServersJson(const QString &executablePath);
    // {"servers": {"fabric-broker": {"type": "stdio", "command": <exe>, "args": ["--stdio"]}}}
    static QString vsCodeJson(const QString &executablePath);

    enum class Client { ClaudeCode, ClaudeDesktop, Cursor, VsCode };
    QPlainTextEdit *snippet(Client client) const;
    QPushButton *copyButton(Client client) const;

private:
    std::unique_ptr<Ui::ConnectClientDialog> ui;
};

} // namespace fb
