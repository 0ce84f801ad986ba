#pragma once
// SandboxHttpServer: a QAbstractHttpServer (Qt 6.4) that hands every parsed request together
// with its QTcpSocket to one callback. Owning the socket lets the sandbox answer later (latency)
// or abort the TCP connection without any response (dropped-connection faults).
#include <QAbstractHttpServer>
#include <QHttpServerRequest>
#include <functional>

QT_BEGIN_NAMESPACE
class QTcpSocket;
QT_END_NAMESPACE

namespace fb {

class SandboxHttpServer final : public QAbstractHttpServer {
public:
    using Handler = std::function<void(const QHttpServerRequest &, QTcpSocket *)>;
    explicit SandboxHttpServer(Handler handler, QObject *parent = nullptr);

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override;
    void missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) override;

private:
    Handler m_handler;
};

} // namespace fb
