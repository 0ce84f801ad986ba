// HttpDaemon's text/event-stream responses: an SseStream sent from MHD's content-reader callback,
// the connection suspended while the stream has nothing to send (see HttpDaemon.h).
#include "mcp/Logging.h"
#include "transport/http/HttpDaemon.h"
#include "transport/http/SseStream.h"

#include <QPointer>
#include <QSocketNotifier>
#include <QTimer>

#include <microhttpd.h>

#include <cerrno>
#include <sys/socket.h>

namespace fb::transport {

using mcp::lcMcpTransport;

namespace {

ssize_t readStream(void *cls, uint64_t, char *buf, size_t max)
{
    auto *pair = static_cast<std::pair<HttpDaemon *, quint64> *>(cls);
    return static_cast<ssize_t>(pair->first->onStreamRead(pair->second, buf, max));
}

void freeStream(void *cls)
{
    auto *pair = static_cast<std::pair<HttpDaemon *, quint64> *>(cls);
    pair->first->onStreamFreed(pair->second);
    delete pair;
}

} // namespace

// One text/event-stream response: the connection that carries an SseStream.
struct HttpDaemon::Stream {
    MHD_Connection *mhd = nullptr;
    int fd = -1;
    std::shared_ptr<SseStream> stream;
    quint64 epoch = 0;
    bool suspended = false;
    bool gone = false; // the client closed the connection
    QSocketNotifier *hangup = nullptr;
};

// The streams end: a suspended connection is resumed (MHD must not stop with one), and once MHD
// has stopped (m_daemon gone) whatever it did not free is.
void HttpDaemon::endStreams()
{
    if (!m_daemon) {
        qDeleteAll(m_streams);
        m_streams.clear();
        return;
    }
    for (Stream *s : std::as_const(m_streams)) {
        delete std::exchange(s->hangup, nullptr);
        s->gone = true;
        s->stream->setWake({});
        if (std::exchange(s->suspended, false))
            MHD_resume_connection(s->mhd);
    }
}

MHD_Response *HttpDaemon::streamResponse(MHD_Connection *connection, const HttpResponse &r)
{
    auto *stream = new Stream;
    stream->mhd = connection;
    stream->stream = r.stream;
    stream->epoch = r.epoch;
    const MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    stream->fd = info ? info->connect_fd : -1;
    const quint64 id = ++m_nextStream;
    m_streams.insert(id, stream);
    auto *cls = new std::pair<HttpDaemon *, quint64>(this, id);
    MHD_Response *response = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024,
                                                               &readStream, cls, &freeStream);
    if (!response)
        freeStream(cls);
    return response;
}

long long HttpDaemon::onStreamRead(quint64 streamId, char *buf, size_t max)
{
    Stream *s = m_streams.value(streamId);
    if (!s || s->gone)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    qsizetype n = 0;
    switch (s->stream->read(s->epoch, buf, static_cast<qsizetype>(max), &n)) {
    case SseStream::Read::Data:
        return n;
    case SseStream::Read::End:
        return MHD_CONTENT_READER_END_OF_STREAM;
    case SseStream::Read::Error:
        qCWarning(lcMcpTransport).noquote()
            << "HTTP: closed an event stream:" << s->stream->failure();
        return MHD_CONTENT_READER_END_WITH_ERROR;
    case SseStream::Read::Wait:
        break;
    }
    // Nothing to send now: the connection sleeps until the stream has more.
    s->suspended = true;
    MHD_suspend_connection(s->mhd);
    QPointer<HttpDaemon> self(this);
    s->stream->setWake([self, streamId] {
        if (self)
            self->wakeStream(streamId);
    });
    if (s->fd >= 0 && !s->hangup) {
        // MHD does not watch a suspended connection: a client that closes is noticed here.
        s->hangup = new QSocketNotifier(s->fd, QSocketNotifier::Read);
        connect(s->hangup, &QSocketNotifier::activated, this, [this, streamId] {
            Stream *st = m_streams.value(streamId);
            if (!st || !st->hangup)
                return;
            char byte = 0;
            const ssize_t got = ::recv(st->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
            if (got > 0 || (got < 0 && (errno == EAGAIN || errno == EINTR))) {
                st->hangup->setEnabled(false); // a pipelined request: read after the stream
                return;
            }
            qCDebug(lcMcpTransport) << "HTTP: the client closed an event stream";
            st->gone = true;
            st->stream->detach(st->epoch);
            wakeStream(streamId);
        });
    }
    return 0;
}

void HttpDaemon::wakeStream(quint64 streamId)
{
    Stream *s = m_streams.value(streamId);
    if (!s || !s->suspended)
        return;
    s->suspended = false;
    if (s->hangup) {
        s->hangup->setEnabled(false);
        s->hangup->deleteLater();
        s->hangup = nullptr;
    }
    MHD_resume_connection(s->mhd);
    runSoon();
}

void HttpDaemon::onStreamFreed(quint64 streamId)
{
    Stream *s = m_streams.take(streamId);
    if (!s)
        return;
    if (s->hangup) {
        s->hangup->setEnabled(false);
        s->hangup->deleteLater();
    }
    s->stream->detach(s->epoch);
    delete s;
}

} // namespace fb::transport
