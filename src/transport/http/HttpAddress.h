#pragma once
// HttpAddress: the address the HTTP transport binds (--http, the desktop's Settings), loopback
// only. Its own header so that what shows or checks an address needs nothing of the server.
#include <QString>

class QHostAddress;

namespace fb::transport::HttpAddress {

QString defaultAddress(); // "127.0.0.1:7431"
// "127.0.0.1:PORT", "[::1]:PORT" or "localhost:PORT" (PORT 0 = a free one). Anything that is
// not loopback is refused with a reason.
bool parse(const QString &text, QHostAddress *address, quint16 *port, QString *error);

} // namespace fb::transport::HttpAddress
