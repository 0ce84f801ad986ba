#pragma once
// DesktopNotifier: desktop notifications through the freedesktop Notifications service
// (org.freedesktop.Notifications on the session bus), which tell a person that an approval needs
// them or that a decision arrived. A notification only ever opens something: its one action is
// "default" (labelled "Open"), and invoking it emits openRequested; no action approves or denies.
//
// Each notification has a key the caller chooses (e.g. "approval:<request sha256>"): showing the
// same key again replaces the earlier notification (replaces_id), withdraw() closes it, and the
// service's ActionInvoked and NotificationClosed signals are taken only for ids this object was
// given, from the service that owns the name (another program on the bus cannot fake them).
// At most MaxKeys keys are remembered; the oldest is forgotten beyond that.
//
// Text is the caller's, made inert here: the summary one line, the body at most MaxBodyLines
// lines, each bounded (MaxSummary, MaxLine code points) with its invisible and control characters
// escaped (UntrustedText: a line break inside a line never starts a line), and '&', '<', '>'
// written as entities when the service declares "body-markup" (it asks once, GetCapabilities,
// before the first notification).
// Without a session bus or a notification service nothing is shown: the first failure is logged
// once (info), never as a warning, and each later notification is one more asynchronous call at
// most. Nothing here blocks: every call is asynchronous.
#include <QDBusConnection>
#include <QHash>
#include <QObject>
#include <QString>
#include <QStringList>
#include <optional>

namespace fb {

class DesktopNotifier : public QObject {
    Q_OBJECT
public:
    explicit DesktopNotifier(const QDBusConnection &bus, QObject *parent = nullptr);
    ~DesktopNotifier() override;

    static constexpr qsizetype MaxSummary = 120;
    static constexpr qsizetype MaxLine = 300;
    static constexpr qsizetype MaxBodyLines = 4;
    static constexpr qsizetype MaxKeys = 64;
    // The service's name, object path and interface (the specification's).
    static const QString Service;
    static const QString Path;
    static const QString Interface;

    // Off: nothing is shown and what is shown is withdrawn. On by default.
    void setEnabled(bool enabled);
    bool isEnabled() const { return m_enabled; }
    // Whether the bus is connected (a notification may be shown); not whether a service runs.
    bool hasBus() const;

    // Shows the notification of key, replacing the one shown for it before.
    void show(const QString &key, const QString &summary, const QStringList &bodyLines);
    // Closes the notification of key (if any); a later show() makes a new one.
    void withdraw(const QString &key);
    // Whether a notification of key is shown (or on its way).
    bool isShown(const QString &key) const { return m_entries.contains(key); }

    // What the service is given: the summary (plain text by the specification) and the body.
    static QString summaryText(const QString &summary);
    static QString bodyText(const QStringList &bodyLines, bool markup);

signals:
    // The person invoked the notification of key (clicked it, or chose "Open").
    void openRequested(const QString &key);
    // The service answered the Notify of key with id (tests, logs).
    void shown(const QString &key, uint id);

private slots:
    void onActionInvoked(uint id, const QString &action);
    void onNotificationClosed(uint id, uint reason);

private:
    struct Content {
        QString summary;
        QStringList body;
    };
    struct Entry {
        uint id = 0;                 // the service's id, 0 until it answered
        bool sending = false;        // a Notify is on its way
        bool closeAfter = false;     // withdrawn while a Notify was on its way
        std::optional<Content> next; // to show once the service answered
    };
    void askCapabilities();
    void send(const QString &key);
    void close(uint id);
    void unavailable(const QString &why);
    QString keyOf(uint id) const;
    void forget(const QString &key);

    QDBusConnection m_bus;
    bool m_enabled = true;
    enum class Capabilities { Unknown, Asking, Known } m_caps = Capabilities::Unknown;
    bool m_markup = false;
    bool m_loggedUnavailable = false;
    QHash<QString, Entry> m_entries;
    QStringList m_order; // keys, oldest first
};

} // namespace fb
