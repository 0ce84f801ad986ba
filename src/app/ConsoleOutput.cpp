#include "app/ConsoleOutput.h"

#include <cstdio>

namespace fb::console {

namespace {

void write(std::FILE *stream, const QByteArray &bytes)
{
    std::fwrite(bytes.constData(), 1, static_cast<size_t>(bytes.size()), stream);
}

} // namespace

void writeOut(const QByteArray &bytes)
{
    write(stdout, bytes);
}

void out(const QString &text)
{
    write(stdout, text.toUtf8());
}

void err(const QString &text)
{
    write(stderr, text.toUtf8());
}

} // namespace fb::console
