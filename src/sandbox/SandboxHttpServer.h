#pragma once
// SandboxHttpServer: the embedded sandbox's HTTP/1.1 server on libmicrohttpd (Debian's
// libmicrohttpd, as the MCP endpoint uses; no QtHttpServer, whose 6.4 ABI later releases do not
// keep), driven from the Qt event loop without a thread of its own: MHD's epoll descriptor sits in
// a QSocketNotifier and MHD_get_timeout() sets a single-shot timer, so every callback runs on the
// thread that owns the server.
//
// Each complete request goes to the handler with a ticket; the answer is given with respond() or
// drop(), at once or later (the connection is suspended meanwhile: latency faults). drop() closes
// the TCP connection without a byte of response (RST: dropped-connection faults). A ticket whose
// connection is gone is ignored, so a late answer never touches a dead connection.
#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>
#include <QPair>
#include <QString>
#include <QUrlQuery>
#include <functional>

QT_BEGIN_NAMESPACE
class QSocketNotifier;
class QTimer;
QT_END_NAMESPACE

struct MHD_Daemon;
struct MHD_Connection;

namespace fb {

struct SandboxHttpRequest {
    QString method;                        // "GET", "POST", ...
    QString path;                          // decoded path: "/fabric/v4/metros"
    QUrlQuery query;                       // the query string as sent
    QHash<QByteArray, QByteArray> headers; // lower-case names; a repeated name keeps the first
    QByteArray body;

    QByteArray value(const QByteArray &lowerName) const { return headers.value(lowerName); }
};

struct SandboxHttpResponse {
    int status = 200;
    QByteArray contentType;
    QByteArray body;
    QList<QPair<QByteArray, QByteArray>> headers;
    bool close = false; // Connection: close
};

class SandboxHttpServer final : public QObject {
    Q_OBJECT
public:
    using Ticket = quint64;
    using Handler = std::function<void(const SandboxHttpRequest &, Ticket)>;
    // A request body over this is refused (413) before it is read on.
    static constexpr qint64 MaxBodyBytes = 16 * 1024 * 1024;

    explicit SandboxHttpServer(Handler handler, QObject *parent = nullptr);
    ~SandboxHttpServer() override;

    // Binds 127.0.0.1; port 0 picks a free one. The bound port, or 0 when it cannot listen.
    quint16 listen(quint16 port);

    void respond(Ticket ticket, SandboxHttpResponse response);
    void drop(Ticket ticket);

    // libmicrohttpd's C callbacks land here (public only for the trampolines).
    void *onRequestStarted(const char *uri);
    int onAccess(MHD_Connection *connection, const char *url, const char *method,
                 const char *upload, size_t *uploadSize, void **context);
    void onCompleted(void **context);

private:
    struct Pending;
    void run();
    void schedule();
    void runSoon();
    int answer(MHD_Connection *connection, Pending *pending);

    Handler m_handler;
    MHD_Daemon *m_daemon = nullptr;
    QSocketNotifier *m_notifier = nullptr;
    QTimer *m_timer = nullptr;
    QHash<Ticket, Pending *> m_pending; // dispatched, not yet completed
    Ticket m_nextTicket = 0;
    bool m_inRun = false;
    bool m_runAgain = false;
};

} // namespace fb
