#pragma once
// SandboxAuth: the OAuth2 client-credentials token endpoint of the sandbox
// (POST /oauth2/v1/token per the accesstokenv1 spec) and bearer-token checks with real expiry.
#include "core/Clock.h"
#include "sandbox/SandboxReply.h"

#include <QByteArray>
#include <QHash>
#include <QString>

namespace fb {

class SandboxAuth {
public:
    explicit SandboxAuth(const Clock *clock = nullptr);

    void setClock(const Clock *clock) { m_clock = clock ? clock : Clock::system(); }
    void setLifetimeSeconds(int seconds) { m_lifetimeSeconds = seconds; }
    int lifetimeSeconds() const { return m_lifetimeSeconds; }

    // Answers a token request: 200 with {access_token, token_timeout, user_name, token_type} for
    // any non-empty client_id/client_secret, else 400 with the Oauth2TokenErrorResponse shape.
    SandboxReply issue(const QByteArray &body);
    // True when the Authorization header carries a known, unexpired bearer token.
    bool isAuthorized(const QByteArray &authorizationHeader) const;
    void clear() { m_tokens.clear(); }
    int issuedCount() const { return int(m_tokens.size()); }

private:
    const Clock *m_clock;
    int m_lifetimeSeconds = 3599;
    QHash<QByteArray, qint64> m_tokens; // token -> expiry (ms since epoch)
};

} // namespace fb
