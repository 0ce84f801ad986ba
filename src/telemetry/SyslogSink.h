#pragma once
// SyslogSink: every audit record, as written to the local hash chain, also to a SIEM as RFC 5424
// syslog over TCP (RFC 6587 octet counting) or TLS (RFC 5425), docs/observability.md.
//
// Each message carries the record's chain position so the SIEM can detect a gap:
//   <PRI>1 TIMESTAMP HOSTNAME fabric-broker PROCID MSGID [fb@32473 seq="41" prev="<hex>"
//   hash="<hex>"] BOM<the record's line>
// with MSGID = the record's type (bounded to 32 printable ASCII), facility and severity from the
// configuration (default facility 13 "log audit", severity 6 info), TIMESTAMP the record's time.
//
// It never blocks and never fails the caller: submit() queues (bounded: MaxQueue records, the
// oldest dropped first and reported as a gap), one connection is kept, reconnected with backoff
// (0.5 s doubling to 30 s), and written only as the socket drains. Delivery is at least once:
// records written on a connection that then fails within ResendWindowMs are written again on
// the next connection (same seq and hash, so a SIEM can drop the duplicate).
#include <QByteArray>
#include <QDateTime>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

class QTcpSocket;

namespace fb::telemetry {

// One audit record as the local chain holds it.
struct AuditExportRecord {
    qint64 seq = 0;
    QString type;    // e.g. "proposal_created"
    QString time;    // the record's ISO-8601 UTC time, e.g. 2026-12-06T05:18:01.123Z
    QString prev;    // 64 hex: SHA-256 of the previous line
    QString sha256;  // 64 hex: SHA-256 of this line
    QByteArray line; // the record's canonical JSON line, without newline
};

struct SyslogConfig {
    QString host = QStringLiteral("127.0.0.1");
    quint16 port = 0;
    bool tls = false;
    QString caFile;         // PEM; empty = the system's CAs (TLS)
    bool verifyPeer = true; // TLS: verify the certificate and host name (parse() never
                            // turns it off)
    int facility = 13;      // log audit
    int severity = 6;       // info
    QString hostname;       // empty = QSysInfo::machineHostName(), bounded to 255 printable ASCII
    QString appName = QStringLiteral("fabric-broker");
    int maxQueue = 10000;
    int minBackoffMs = 500; // the first reconnect delay, doubled per failure up to 30 s
    // gap() is emitted at most once per this interval (each run of dropped records still gets
    // its own signal): the export_gap record a gap makes is itself queued, and on a full queue
    // pushes out the next record; without the interval that would repeat on every turn.
    int gapReportIntervalMs = 5000;

    // "tcp://host:port" or "tls://host:port[?ca=/path/ca.pem]"; host a name, IPv4 or
    // [IPv6]; port required. nullopt with *error naming what is wrong.
    static std::optional<SyslogConfig> parse(const QString &target, QString *error);
    QString describe() const; // "tls://host:port"
};

class SyslogSink : public QObject {
    Q_OBJECT
public:
    static constexpr int ResendWindowMs = 2000;
    static constexpr qint64 MaxMessageBytes = 1024 * 1024; // a longer line is cut, marked "…"

    explicit SyslogSink(SyslogConfig config, QObject *parent = nullptr);
    ~SyslogSink() override;

    const SyslogConfig &config() const { return m_config; }
    // Queues one record and returns at once (connects on first use).
    void submit(const AuditExportRecord &record);

    bool isConnected() const;
    qint64 queued() const { return static_cast<qint64>(m_queue.size()); }
    qint64 lastSentSeq() const { return m_lastSentSeq; }
    quint64 sent() const { return m_sent; }
    quint64 dropped() const { return m_dropped; }
    QString lastError() const { return m_lastError; }

    // The RFC 5424 message (without the octet-count frame) and the framed bytes.
    static QByteArray formatMessage(const AuditExportRecord &record, const SyslogConfig &config,
                                    const QString &hostname, qint64 pid);
    static QByteArray frame(const QByteArray &message); // "<len> <message>"

signals:
    // Records fromSeq..toSeq were dropped (queue full) and will never reach this sink. Emitted
    // once per run of consecutive seq, on the event loop's next turn after the drops, and at
    // most once per gapReportIntervalMs (runs dropped meanwhile wait for the next report).
    void gap(qint64 fromSeq, qint64 toSeq, const QString &reason);
    // The connection failed (reason) with `pending` records still to send; emitted once per
    // outage, not per retry.
    void interrupted(const QString &reason, qint64 lastSentSeq, qint64 pending);
    // Connected again after an interruption; records from resentFromSeq on are (re)sent.
    void resumed(qint64 resentFromSeq);
    void stateChanged();

private:
    struct Pending {
        qint64 seq;
        QByteArray framed;
        bool resend; // written before on a connection that failed
    };
    struct Sent {
        qint64 seq;
        qint64 endOffset;   // m_written after this record
        qint64 flushedAtMs; // when it left Qt's buffer; -1 while still there
        QByteArray framed;
    };
    void connectNow();
    void onConnected();
    void onError(const QString &reason);
    void onBytesWritten();
    void writeSome();
    void kick();
    void dropOldest();
    void emitGaps();
    void requeueRecent();
    qint64 outstandingBytes() const;

    SyslogConfig m_config;
    QString m_hostname;
    qint64 m_pid = 0;
    QPointer<QTcpSocket> m_socket;
    bool m_connected = false;
    QStringList m_sslErrors; // of the current handshake
    std::deque<Pending> m_queue;
    std::deque<Sent> m_recent; // written on the current connection, flushed within ResendWindowMs
    std::size_t m_flushedCount = 0; // m_recent's leading entries that left Qt's buffer
    qint64 m_written = 0;           // bytes handed to the current socket
    QTimer m_reconnect;             // single shot: the next connection attempt
    QTimer m_connectTimeout;        // single shot: connect + handshake
    QTimer m_kick;                  // zero timer: write what is queued, report gaps
    int m_backoffMs = 500;
    bool m_interrupted = false;
    std::vector<std::pair<qint64, qint64>> m_gaps; // dropped runs not yet reported
    qint64 m_gapLoggedAtMs = -1;
    qint64 m_gapReportedAtMs = -1;
    QTimer m_gapTimer; // the next report, when the interval holds runs back                   //
                       // the last info line about drops
    quint64 m_droppedAtGapLog = 0;
    qint64 m_lastSentSeq = 0;
    quint64 m_sent = 0;
    quint64 m_dropped = 0;
    QString m_lastError;
};

} // namespace fb::telemetry
