#pragma once
// FabricUrl: URL helpers shared by the Fabric client and its configuration.
#include <QString>
#include <QUrl>

namespace fb {

// localhost, 127.0.0.1 or ::1 (case-insensitive): the hosts plain http:// may go to.
bool isLoopbackHost(const QString &host);
// Same scheme, host and (defaulted) port.
bool sameOrigin(const QUrl &a, const QUrl &b);
// The URL without user info, query or fragment, for messages.
QString displayUrl(const QUrl &url);

} // namespace fb
