#pragma once
// What the sandbox's request log keeps of a request: credentials never enter it. A credential is
// the value of a name such as client_secret, access_token, refresh_token, id_token, password,
// secret or authorization (any case), at any depth of a JSON body.
#include <QByteArray>
#include <QUrlQuery>

namespace fb {

// The query with every credential value replaced by "[REDACTED]" (names and order kept).
QUrlQuery redactQuery(const QUrlQuery &query);

// A JSON body with every credential value replaced (an unchanged body is returned byte for byte,
// tests compare what the broker sent), a form-encoded body likewise; any other body that mentions
// a credential name is replaced whole by "[REDACTED]".
QByteArray redactBody(const QByteArray &body);

} // namespace fb
