#include "keychain/CredentialStore.h"

#include <QLoggingCategory>
#include <QPointer>
#include <memory>
#include <qt6keychain/keychain.h>

Q_LOGGING_CATEGORY(lcCredentials, "fabricbroker.gui.credentials")

namespace fb::keychain {

namespace {
const QString kClientIdKey = QStringLiteral("fabric-client-id");
const QString kClientSecretKey = QStringLiteral("fabric-client-secret");
const QString kTeamPasswordKey = QStringLiteral("team-database-password");

// Every keychain job of the store: one key of m_service, deleted when done, and never the
// plaintext fallback file QtKeychain would otherwise use where no keychain is running.
template <typename Job> Job *newJob(const QString &service, const QString &key, QObject *parent)
{
    auto *job = new Job(service, parent);
    job->setAutoDelete(true);
    job->setInsecureFallback(false);
    job->setKey(key);
    return job;
}
} // namespace

QString CredentialStore::failureText(int error, const QString &detail)
{
    // QtKeychain's own text is often just "Unknown error" when no keychain runs at all: say
    // what is missing, and that the environment works without one.
    const QString fallback = tr("Without a keychain, set EQUINIX_API_CLIENTID and "
                                "EQUINIX_API_CLIENTSECRET in the environment instead.");
    switch (error) {
    case QKeychain::AccessDenied:
    case QKeychain::AccessDeniedByUser:
        return tr("the keychain refused access (%1). %2").arg(detail, fallback);
    case QKeychain::NoBackendAvailable:
    case QKeychain::NotImplemented:
    case QKeychain::OtherError:
    default:
        return tr("no keychain service answered (%1). Saving credentials needs a Secret Service "
                  "provider such as GNOME Keyring or KeePassXC (with its Secret Service "
                  "integration on), or KWallet, running in this session. %2")
            .arg(detail, fallback);
    }
}

CredentialStore::CredentialStore(QString service, QObject *parent)
    : QObject(parent)
    , m_service(std::move(service))
{
}

void CredentialStore::readKey(const QString &key, Callback done)
{
    auto *job = newJob<QKeychain::ReadPasswordJob>(m_service, key, this);
    connect(job, &QKeychain::Job::finished, this, [done = std::move(done)](QKeychain::Job *j) {
        auto *r = static_cast<QKeychain::ReadPasswordJob *>(j);
        if (r->error() == QKeychain::NoError)
            done(true, r->textData(), {});
        else if (r->error() == QKeychain::EntryNotFound)
            done(true, {}, {});
        else
            done(false, {}, failureText(r->error(), r->errorString()));
    });
    job->start();
}

void CredentialStore::writeKey(const QString &key, const QString &value, Callback done)
{
    if (value.isEmpty())
        return deleteKey(key, std::move(done));
    auto *job = newJob<QKeychain::WritePasswordJob>(m_service, key, this);
    job->setTextData(value);
    connect(job, &QKeychain::Job::finished, this, [done = std::move(done)](QKeychain::Job *j) {
        if (j->error() == QKeychain::NoError)
            done(true, {}, {});
        else
            done(false, {}, failureText(j->error(), j->errorString()));
    });
    job->start();
}

void CredentialStore::deleteKey(const QString &key, Callback done)
{
    auto *job = newJob<QKeychain::DeletePasswordJob>(m_service, key, this);
    connect(job, &QKeychain::Job::finished, this, [done = std::move(done)](QKeychain::Job *j) {
        if (j->error() == QKeychain::NoError || j->error() == QKeychain::EntryNotFound)
            done(true, {}, {});
        else
            done(false, {}, failureText(j->error(), j->errorString()));
    });
    job->start();
}

void CredentialStore::read(
    std::function<void(bool ok, const FabricCredentials &, const QString &error)> done)
{
    auto result = std::make_shared<FabricCredentials>();
    readKey(kClientIdKey, [this, result, done = std::move(done)](bool ok, const QString &id,
                                                                 const QString &error) mutable {
        if (!ok) {
            qCWarning(lcCredentials).noquote() << "keychain read failed:" << error;
            return done(false, {}, error);
        }
        result->clientId = id;
        readKey(kClientSecretKey, [result, done = std::move(done)](bool ok2, const QString &secret,
                                                                   const QString &error2) {
            if (!ok2) {
                qCWarning(lcCredentials).noquote() << "keychain read failed:" << error2;
                return done(false, {}, error2);
            }
            result->clientSecret = secret;
            done(true, *result, {});
        });
    });
}

void CredentialStore::write(const FabricCredentials &credentials,
                            std::function<void(bool ok, const QString &error)> done)
{
    const QString secret = credentials.clientSecret;
    writeKey(kClientIdKey, credentials.clientId,
             [this, secret, done = std::move(done)](bool ok, const QString &,
                                                    const QString &error) mutable {
                 if (!ok)
                     return done(false, error);
                 writeKey(kClientSecretKey, secret,
                          [done = std::move(done)](bool ok2, const QString &,
                                                   const QString &error2) { done(ok2, error2); });
             });
}

void CredentialStore::remove(std::function<void(bool ok, const QString &error)> done)
{
    write(FabricCredentials{}, std::move(done));
}

void CredentialStore::readTeamPassword(
    std::function<void(bool ok, const QString &password, const QString &error)> done)
{
    readKey(kTeamPasswordKey, std::move(done));
}

void CredentialStore::writeTeamPassword(const QString &password,
                                        std::function<void(bool ok, const QString &error)> done)
{
    writeKey(kTeamPasswordKey, password,
             [done = std::move(done)](bool ok, const QString &, const QString &error) {
                 done(ok, error);
             });
}

} // namespace fb::keychain
