#pragma once
// SingleInstance: one desktop app per user. The first instance listens on a small per-user
// control socket next to the MCP socket; a second launch asks it to raise its window and exits.
#include <QObject>
#include <QString>

class QLocalServer;

namespace fb {

class SingleInstance : public QObject {
    Q_OBJECT
public:
    explicit SingleInstance(QObject *parent = nullptr);
    // "<runtime dir>/fabric-broker-ui.sock"
    static QString controlSocketPath();
    // True when another instance answered and was asked to raise its window.
    static bool askRunningInstanceToRaise(int timeoutMs = 1000);
    // Start listening as the primary instance (user-only permissions).
    bool listen(QString *error);

signals:
    void raiseRequested();

private:
    QLocalServer *m_server;
};

} // namespace fb
