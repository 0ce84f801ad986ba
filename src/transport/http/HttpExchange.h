#pragma once
// HttpExchange: one HTTP request of HttpDaemon, from its complete headers to its one response.
// The request is read in two steps: the headers alone first (HttpDaemon's screen may refuse
// them before a byte of the body is read), then the body, bounded. The handler answers with
// respond(), at once or later (the daemon suspends the connection meanwhile); if the client
// goes away first, abandoned() is emitted and no response is sent.
#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>
#include <QPair>
#include <functional>
#include <memory>

namespace fb::transport {

class SseStream;

struct HttpRequest {
    QByteArray method;                     // "POST", "GET", ...
    QByteArray path;                       // "/mcp"
    QHash<QByteArray, QByteArray> headers; // lower-case names; a repeated name keeps the first
    QList<QByteArray> repeated;            // lower-case names that came more than once
    QByteArray body;
    qint64 headerBytes = 0;

    QByteArray value(const QByteArray &lowerName) const { return headers.value(lowerName); }
    bool wantsClose() const { return value("connection").toLower().contains("close"); }
};

struct HttpResponse {
    int status = 200;
    QByteArray body; // sent as application/json unless contentType says otherwise
    QByteArray contentType = QByteArrayLiteral("application/json");
    QList<QPair<QByteArray, QByteArray>> headers;
    bool close = false; // Connection: close
    // text/event-stream: the body is this stream's events, for the connection attached with
    // this epoch (SseStream::attach), until the stream ends.
    std::shared_ptr<SseStream> stream;
    quint64 epoch = 0;
};

class HttpExchange : public QObject {
    Q_OBJECT
public:
    explicit HttpExchange(QObject *parent = nullptr);

    const HttpRequest &request() const { return m_request; }
    HttpRequest &mutableRequest() { return m_request; }

    // The one response; later calls are ignored. Safe to call after the client left (the
    // response then goes nowhere).
    void respond(HttpResponse response);
    bool answered() const { return m_answered; }
    bool finished() const { return m_finished; }
    const HttpResponse &response() const { return m_response; }

    // For HttpDaemon: runs when respond() is called after the handler returned.
    void setOnAnswered(std::function<void()> hook) { m_onAnswered = std::move(hook); }
    // For HttpDaemon: the connection is gone; abandoned() when no response was given.
    void finish(bool clientLeft);

signals:
    void abandoned();

private:
    HttpRequest m_request;
    HttpResponse m_response;
    std::function<void()> m_onAnswered;
    bool m_answered = false;
    bool m_finished = false;
};

} // namespace fb::transport
