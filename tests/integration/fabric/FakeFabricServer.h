#pragma once
// FakeFabricServer: a tiny scripted HTTP/1.1 server on 127.0.0.1 for the FabricClient tests.
// It records every request it reads and answers from per-route queues: respond (optionally
// after a delay), hang, close the connection after reading the request, or reset it.
#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>
#include <QPair>
#include <QTcpServer>
#include <QUrl>

#include <functional>

namespace fbtest {

struct RecordedRequest {
    QByteArray method;
    QByteArray path;                       // without the query
    QByteArray query;                      // raw, without '?'
    QHash<QByteArray, QByteArray> headers; // lower-case names
    QByteArray body;
    QByteArray header(const QByteArray &name) const { return headers.value(name.toLower()); }
};

struct Scripted {
    enum class Action { Respond, Hang, CloseAfterRequest, ResetAfterRequest };
    Action action = Action::Respond;
    int status = 200;
    QByteArray body;
    QList<QPair<QByteArray, QByteArray>> headers;
    int delayMs = 0;

    static Scripted json(int status, const QByteArray &body, int delayMs = 0);
    static Scripted hang();
    static Scripted close();
    static Scripted reset();
    static Scripted redirect(int status, const QByteArray &location);
};

class FakeFabricServer : public QObject {
public:
    explicit FakeFabricServer(QObject *parent = nullptr);
    bool listen();
    quint16 port() const { return m_server.serverPort(); }
    QUrl url() const; // http://127.0.0.1:<port>

    // Answers for "METHOD /path" (query ignored). The queue is consumed in order; its last
    // entry keeps answering once the others are used. Unknown routes get a 404 ErrorList.
    void enqueue(const QByteArray &method, const QByteArray &path, const Scripted &response);
    void clearRoutes() { m_routes.clear(); }

    // The token endpoint answers {"access_token": "tok-<n>", "token_timeout": tokenTimeout}
    // unless a response is queued for POST /oauth2/v1/token.
    QByteArray tokenTimeout = "3600";
    bool includeTokenTimeout = true;

    QList<RecordedRequest> requests;
    int count(const QByteArray &method, const QByteArray &path) const;
    QList<RecordedRequest> matching(const QByteArray &method, const QByteArray &path) const;
    int tokensIssued() const { return m_tokensIssued; }

private:
    void onConnection();
    bool tryParse(QTcpSocket *socket, QByteArray &buffer);
    void answer(QTcpSocket *socket, const RecordedRequest &req);
    void write(QTcpSocket *socket, const Scripted &r);

    QTcpServer m_server;
    QHash<QByteArray, QList<Scripted>> m_routes;
    int m_tokensIssued = 0;
};

} // namespace fbtest
