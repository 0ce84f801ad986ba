#pragma once
// Raw AF_UNIX clients for the socket tests: they do what QLocalSocket users would not (never
// read, trickle, write megabytes without waiting).
#include <QByteArray>
#include <QString>

namespace fbtest {

// A non-blocking, close-on-exec stream socket connected to path; -1 when nobody listens.
int rawConnect(const QString &path);

// Writes everything, running the event loop while the socket buffer is full. False when the
// peer is gone or the deadline passes first.
bool rawWrite(int fd, const QByteArray &data, int deadlineMs = 20000);

// Appends what is available now (non-blocking) to *into; false at EOF or on an error.
bool rawDrain(int fd, QByteArray *into);

} // namespace fbtest
