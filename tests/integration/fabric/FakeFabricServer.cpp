#include "FakeFabricServer.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QTcpSocket>
#include <QTimer>

namespace fbtest {

Scripted Scripted::json(int status, const QByteArray &body, int delayMs)
{
    Scripted s;
    s.status = status;
    s.body = body;
    s.delayMs = delayMs;
    s.headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("application/json")));
    return s;
}

Scripted Scripted::hang()
{
    Scripted s;
    s.action = Action::Hang;
    return s;
}

Scripted Scripted::close()
{
    Scripted s;
    s.action = Action::CloseAfterRequest;
    return s;
}

Scripted Scripted::reset()
{
    Scripted s;
    s.action = Action::ResetAfterRequest;
    return s;
}

Scripted Scripted::redirect(int status, const QByteArray &location)
{
    Scripted s;
    s.status = status;
    s.headers.append(qMakePair(QByteArray("Location"), location));
    return s;
}

FakeFabricServer::FakeFabricServer(QObject *parent)
    : QObject(parent)
{
    connect(&m_server, &QTcpServer::newConnection, this, &FakeFabricServer::onConnection);
}

bool FakeFabricServer::listen()
{
    return m_server.listen(QHostAddress::LocalHost, 0);
}

QUrl FakeFabricServer::url() const
{
    return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort()));
}

void FakeFabricServer::enqueue(const QByteArray &method, const QByteArray &path,
                               const Scripted &response)
{
    m_routes[method + ' ' + path].append(response);
}

int FakeFabricServer::count(const QByteArray &method, const QByteArray &path) const
{
    return int(matching(method, path).size());
}

QList<RecordedRequest> FakeFabricServer::matching(const QByteArray &method,
                                                  const QByteArray &path) const
{
    QList<RecordedRequest> out;
    for (const RecordedRequest &r : requests) {
        if (r.method == method && r.path == path)
            out.append(r);
    }
    return out;
}

void FakeFabricServer::onConnection()
{
    while (QTcpSocket *socket = m_server.nextPendingConnection()) {
        socket->setParent(this);
        auto buffer = std::make_shared<QByteArray>();
        connect(socket, &QTcpSocket::readyRead, this, [this, socket, buffer] {
            buffer->append(socket->readAll());
            while (tryParse(socket, *buffer)) {
            }
        });
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    }
}

bool FakeFabricServer::tryParse(QTcpSocket *socket, QByteArray &buffer)
{
    const qsizetype end = buffer.indexOf("\r\n\r\n");
    if (end < 0)
        return false;
    const QList<QByteArray> lines = buffer.left(end).split('\n');
    RecordedRequest req;
    const QList<QByteArray> first = lines.value(0).trimmed().split(' ');
    req.method = first.value(0);
    const QByteArray target = first.value(1);
    const qsizetype q = target.indexOf('?');
    req.path = q < 0 ? target : target.left(q);
    req.query = q < 0 ? QByteArray() : target.mid(q + 1);
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines.at(i).trimmed();
        const qsizetype colon = line.indexOf(':');
        if (colon > 0)
            req.headers.insert(line.left(colon).trimmed().toLower(), line.mid(colon + 1).trimmed());
    }
    const qsizetype length = req.headers.value("content-length", "0").toLongLong();
    if (buffer.size() < end + 4 + length)
        return false;
    req.body = buffer.mid(end + 4, length);
    buffer.remove(0, end + 4 + length);
    requests.append(req);
    answer(socket, req);
    return socket->state() == QAbstractSocket::ConnectedState;
}

void FakeFabricServer::answer(QTcpSocket *socket, const RecordedRequest &req)
{
    const QByteArray key = req.method + ' ' + req.path;
    auto it = m_routes.find(key);
    if (it != m_routes.end() && !it->isEmpty()) {
        const Scripted r = it->size() > 1 ? it->takeFirst() : it->first();
        if (req.path == "/oauth2/v1/token")
            ++m_tokensIssued;
        write(socket, r);
        return;
    }
    if (req.method == "POST" && req.path == "/oauth2/v1/token") {
        ++m_tokensIssued;
        QJsonObject o{
            {QStringLiteral("access_token"), QStringLiteral("tok-%1").arg(m_tokensIssued)},
            {QStringLiteral("token_type"), QStringLiteral("Bearer")},
            {QStringLiteral("user_name"), QStringLiteral("test")}};
        if (includeTokenTimeout)
            o.insert(QStringLiteral("token_timeout"), QString::fromLatin1(tokenTimeout));
        write(socket, Scripted::json(200, QJsonDocument(o).toJson(QJsonDocument::Compact)));
        return;
    }
    write(socket, Scripted::json(404, "[{\"errorCode\":\"EQ-3000000\",\"errorMessage\":\"no "
                                      "such route in the fake\"}]"));
}

void FakeFabricServer::write(QTcpSocket *socket, const Scripted &r)
{
    switch (r.action) {
    case Scripted::Action::Hang:
        return;
    case Scripted::Action::CloseAfterRequest:
        socket->disconnectFromHost();
        return;
    case Scripted::Action::ResetAfterRequest:
        socket->abort();
        return;
    case Scripted::Action::Respond:
        break;
    }
    QByteArray out = "HTTP/1.1 " + QByteArray::number(r.status) + " Scripted\r\n";
    for (const auto &[name, value] : r.headers)
        out += name + ": " + value + "\r\n";
    out += "Content-Length: " + QByteArray::number(r.body.size()) + "\r\n";
    out += "Connection: keep-alive\r\n\r\n";
    out += r.body;
    if (r.delayMs <= 0) {
        socket->write(out);
        return;
    }
    QPointer<QTcpSocket> guard(socket);
    QTimer::singleShot(r.delayMs, this, [guard, out] {
        if (guard)
            guard->write(out);
    });
}

} // namespace fbtest
