#pragma once
// FastRelayConnection: the app's side of one fd-passing relay (FastRelayWire.h). Holds the
// relay's control connection and the client's stdin and stdout it received, and knows the
// relay's command line and environment (read from /proc/<pid>, never sent over the socket).
// The owner decides: notTaken() (the relay runs the app binary itself), or take() the devices
// and serve a session on them; say() lines for the relay's stderr; finish() with the exit
// status. relayGone() when the relay process ends first (the client killed it): the session
// ends as if the client had disconnected.
#include <QObject>
#include <QProcessEnvironment>
#include <QStringList>

class QSocketNotifier;

namespace fb::transport {

class StdioDevices;

struct RelayLaunch {
    qint64 pid = 0;
    QStringList arguments; // argv, argv[0] included
    QProcessEnvironment environment;
    // From /proc/<pid>/cmdline and environ (bounded); false with a reason otherwise.
    static bool read(qint64 pid, RelayLaunch *out, QString *why);
};

class FastRelayConnection : public QObject {
    Q_OBJECT
public:
    // Takes ownership of the three descriptors.
    FastRelayConnection(int controlFd, int inFd, int outFd, RelayLaunch launch,
                        QObject *parent = nullptr);
    ~FastRelayConnection() override;

    const RelayLaunch &launch() const { return m_launch; }
    void notTaken();
    // The client's stdin/stdout as devices (owned by this object), once; "ok" to the relay.
    StdioDevices *take();
    void say(const QString &line); // control characters become spaces; at most 8 KiB
    void finish(int exitCode);     // idempotent; closes the control connection
    bool isFinished() const { return m_control < 0; }

signals:
    void relayGone();

private:
    void send(const QByteArray &line);
    void onControlReadable();
    void closeControl();

    int m_control;
    int m_in;
    int m_out;
    RelayLaunch m_launch;
    QSocketNotifier *m_notifier = nullptr;
    StdioDevices *m_devices = nullptr;
};

} // namespace fb::transport
