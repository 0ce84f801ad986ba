#pragma once
// ConsoleOutput: what the command-line subcommands (audit, policy, ...) print. Text goes out as
// UTF-8, unbuffered by Qt, so it interleaves with nothing else the process writes.
#include <QByteArray>
#include <QString>

namespace fb::console {

void writeOut(const QByteArray &bytes); // stdout, as is
void out(const QString &text);          // stdout, UTF-8
void err(const QString &text);          // stderr, UTF-8

} // namespace fb::console
