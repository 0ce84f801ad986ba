#include "keychain/ApproverKeyStore.h"

#include "keychain/CredentialStore.h"
#include "team/ApprovalKeys.h"

#include <qt6keychain/keychain.h>

namespace fb::keychain {

namespace {
template <typename Job> Job *newJob(const QString &service, QObject *parent)
{
    auto *job = new Job(service, parent);
    job->setAutoDelete(true);
    job->setInsecureFallback(false); // never QtKeychain's plaintext file
    job->setKey(QString::fromLatin1(ApproverKeyStore::EntryName));
    return job;
}
} // namespace

ApproverKeyStore::ApproverKeyStore(QString service, QObject *parent)
    : QObject(parent)
    , m_service(std::move(service))
{
}

void ApproverKeyStore::load(bool create, Done done)
{
    read(false, create, std::move(done));
}

void ApproverKeyStore::read(bool created, bool create, Done done)
{
    auto *job = newJob<QKeychain::ReadPasswordJob>(m_service, this);
    connect(job, &QKeychain::Job::finished, this,
            [this, created, create, done = std::move(done)](QKeychain::Job *j) mutable {
                auto *r = static_cast<QKeychain::ReadPasswordJob *>(j);
                if (r->error() == QKeychain::EntryNotFound && create && !created) {
                    auto key = team::ApprovalKeys::generate();
                    if (!key)
                        return done(false, {}, false,
                                    QStringLiteral("OpenSSL could not make an Ed25519 key"));
                    auto *w = newJob<QKeychain::WritePasswordJob>(m_service, this);
                    w->setBinaryData(key->toBase64());
                    team::ApprovalKeys::wipe(*key);
                    connect(w, &QKeychain::Job::finished, this,
                            [this, done = std::move(done)](QKeychain::Job *wj) mutable {
                                if (wj->error() != QKeychain::NoError)
                                    return done(false, {}, false,
                                                CredentialStore::failureText(wj->error(),
                                                                             wj->errorString()));
                                read(true, false, std::move(done));
                            });
                    w->start();
                    return;
                }
                if (r->error() == QKeychain::EntryNotFound)
                    return done(false, {}, false,
                                QStringLiteral("no approval key in the keychain yet (run "
                                               "'fabric-broker team key' to make one)"));
                if (r->error() != QKeychain::NoError)
                    return done(false, {}, false,
                                CredentialStore::failureText(r->error(), r->errorString()));
                const auto decoded = QByteArray::fromBase64Encoding(
                    r->binaryData(), QByteArray::AbortOnBase64DecodingErrors);
                if (!decoded || !team::ApprovalKeys::publicKeyOf(decoded.decoded))
                    return done(false, {}, false,
                                QStringLiteral("the keychain entry %1 of %2 is not an Ed25519 "
                                               "key; remove it to make a new one")
                                    .arg(QString::fromLatin1(EntryName), m_service));
                done(true, decoded.decoded, created, {});
            });
    job->start();
}

} // namespace fb::keychain
