#pragma once
// HttpResponseParser: one HTTP/1.1 response, parsed incrementally from the bytes of a connection
// as they arrive (a pure state machine: no socket, no clock; FabricHttpTransport feeds it). The
// server is untrusted, so everything is bounded and strict:
//  * the status line and header block (and, separately, a chunked body's trailers) are at most
//    kMaxHeadBytes, with at most kMaxHeaders fields; interim 1xx responses are skipped (at most
//    kMaxInterim, counted in the same head budget); 101 is refused;
//  * field names are tokens, values and the reason phrase have no NUL (other control characters
//    are kept, for the caller to sanitize where it shows them), obs-fold is refused;
//  * the body is delimited by Content-Length (repeated only with the same value), by the chunked
//    transfer coding (strict hexadecimal sizes; a chunk-size line, extensions included, at most
//    kMaxChunkLine bytes; extensions and trailers read and dropped), or,
//    only when the server said Connection: close (or answered HTTP/1.0), by the end of the
//    connection; Content-Length with Transfer-Encoding, or any other transfer coding, is refused;
//  * a body larger than maxBodyBytes stops the parse at once (tooLarge()), whether announced by
//    Content-Length or counted as it arrives; what counts is the body as it is on the wire, so
//    for the chunked coding every byte after the header block (chunk-size lines, extensions,
//    CRLFs, trailers) counts, not only the data: an endless stream of extensions or empty
//    framing hits the bound as surely as an endless body.
// reusable() says whether the connection may carry another request afterwards.
#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QPair>
#include <QString>

#include <utility>

namespace fb {

// A control character other than tab (CR, LF, NUL, DEL...): never in a header line we send or a
// chunk extension we accept.
bool httpHasControl(QByteArrayView v);

class HttpResponseParser {
public:
    static constexpr qsizetype kMaxHeadBytes = 64 * 1024;
    static constexpr int kMaxHeaders = 100;
    static constexpr int kMaxInterim = 8;
    static constexpr qsizetype kMaxChunkLine = 1024; // with its extensions and CRLF

    enum class Result { NeedMore, Done, Failed };

    explicit HttpResponseParser(qint64 maxBodyBytes);

    // The next bytes of the connection. After Done or Failed nothing more is parsed; bytes that
    // follow a complete response make the connection not reusable.
    Result feed(QByteArrayView bytes);
    // The connection reached its end: completes a body delimited by the close, fails otherwise.
    Result finishAtEof();

    Result result() const { return m_result; }
    bool anyByte() const { return m_anyByte; }
    bool headDone() const { return m_status > 0 && m_state != State::Head; }
    int status() const { return m_status; }
    // The fields of the final response, names in lower case, in their order.
    const QList<QPair<QByteArray, QByteArray>> &headers() const { return m_headers; }
    QByteArray header(QByteArrayView lowerName) const;
    const QByteArray &body() const { return m_body; }
    QByteArray takeBody() { return std::exchange(m_body, {}); }
    bool tooLarge() const { return m_tooLarge; }
    QString error() const { return m_error; }
    bool reusable() const;

private:
    enum class State { Head, Length, ChunkSize, ChunkData, ChunkEnd, Trailers, UntilEof, Done };

    Result fail(const QString &error);
    Result run();
    // The next line of the buffer (without its CRLF or LF) into line; false: not complete yet.
    // A line longer than limit (or a bare CR inside) fails the parse.
    bool nextLine(QByteArrayView *line, qsizetype limit, bool *failed);
    bool headLine(QByteArrayView line);
    bool statusLine(QByteArrayView line);
    bool field(QByteArrayView line, bool trailer);
    bool endOfHead();
    bool chunkSizeLine(QByteArrayView line);
    bool appendBody(QByteArrayView bytes);
    // Counts n bytes of the body on the wire (framing included) against the bound.
    bool countWire(qsizetype n);

    qint64 m_maxBody;
    Result m_result = Result::NeedMore;
    State m_state = State::Head;
    QByteArray m_buf;
    qsizetype m_pos = 0;
    qsizetype m_headBytes = 0;
    int m_fields = 0;
    int m_interim = 0;
    bool m_anyByte = false;
    bool m_http10 = false;
    bool m_close = false;
    bool m_extra = false;
    bool m_tooLarge = false;
    int m_status = 0;
    QList<QPair<QByteArray, QByteArray>> m_headers;
    QByteArray m_body;
    qint64 m_remaining = 0; // Length: body bytes still due; ChunkData: bytes of this chunk
    qint64 m_wireBody = 0;  // bytes after the header block, framing included (<= m_maxBody)
    QString m_error;
};

} // namespace fb
