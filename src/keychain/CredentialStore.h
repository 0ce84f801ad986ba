#pragma once
// CredentialStore: the Fabric client id and secret in the platform keychain (QtKeychain), never
// in QSettings or any file of ours. Jobs are asynchronous: callbacks run later from the event
// loop, exactly once per call. GUI-free (the keychain library links no widgets).
#include <QObject>
#include <QString>
#include <functional>

namespace fb::keychain {

struct FabricCredentials {
    QString clientId;
    QString clientSecret;
    bool isEmpty() const { return clientId.isEmpty() && clientSecret.isEmpty(); }
};

class CredentialStore : public QObject {
    Q_OBJECT
public:
    static constexpr const char *DefaultService = "fabric-broker";

    explicit CredentialStore(QString service = QString::fromLatin1(DefaultService),
                             QObject *parent = nullptr);

    // ok=false with an error when the keychain is unavailable; missing entries read as empty.
    void read(std::function<void(bool ok, const FabricCredentials &, const QString &error)> done);
    // Empty fields delete their entry.
    void write(const FabricCredentials &credentials,
               std::function<void(bool ok, const QString &error)> done);
    void remove(std::function<void(bool ok, const QString &error)> done);
    // Team mode's database password (docs/team.md), its own entry; missing reads as empty, an
    // empty write deletes it.
    void readTeamPassword(
        std::function<void(bool ok, const QString &password, const QString &error)> done);
    void writeTeamPassword(const QString &password,
                           std::function<void(bool ok, const QString &error)> done);

    QString service() const { return m_service; }

    // The error the callbacks report for a failed keychain job (a QKeychain::Error): what is
    // missing and how to do without it, with QtKeychain's own text in parentheses.
    static QString failureText(int error, const QString &detail);

private:
    using Callback = std::function<void(bool ok, const QString &value, const QString &error)>;
    void readKey(const QString &key, Callback done);
    void writeKey(const QString &key, const QString &value, Callback done);
    void deleteKey(const QString &key, Callback done);

    QString m_service;
};

} // namespace fb::keychain
