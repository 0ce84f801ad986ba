#pragma once
// ApproverKeyStore: this operator's Ed25519 approval key (issue #26, docs/team-signing.md) in the
// platform keychain (QtKeychain), one entry of the same service as the Fabric credentials
// (CredentialStore), never in a file, QSettings or the database. The arithmetic is
// team/ApprovalKeys. Jobs are asynchronous: the callback runs later from the event loop, once.
#include <QObject>
#include <QString>
#include <functional>

namespace fb::keychain {

class ApproverKeyStore : public QObject {
    Q_OBJECT
public:
    static constexpr const char *EntryName = "team-approver-ed25519";

    explicit ApproverKeyStore(QString service, QObject *parent = nullptr);

    // privateKey: the raw 32 bytes (a secret: never log or print it). With create, a missing key
    // is made and saved first (created = true), then read back, so two first uses racing print
    // the one key that was kept.
    using Done = std::function<void(bool ok, const QByteArray &privateKey, bool created,
                                    const QString &error)>;
    void load(bool create, Done done);

private:
    void read(bool created, bool create, Done done);
    QString m_service;
};

} // namespace fb::keychain
