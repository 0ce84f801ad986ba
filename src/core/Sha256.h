#pragma once
// Sha256: SHA-256 (FIPS 180-4) for the request binding. Uses the CPU's SHA extensions when
// present (x86 SHA-NI), otherwise a portable implementation; both are checked against
// QCryptographicHash in the tests. Qt's own SHA-256 is the RFC reference code and was the
// largest cost of canonicalize+hash (see bench/bench_core.cpp).
#include <QByteArray>
#include <QByteArrayView>
#include <array>
#include <cstdint>

namespace fb {

class Sha256 {
public:
    Sha256();
    void addData(QByteArrayView data);
    std::array<uint8_t, 32> result(); // finalizes; call once
    static QByteArray hash(QByteArrayView data);
    // Which implementation runs on this machine: "sha-ni" or "portable".
    static const char *implementation();
    // Tests force the portable path to compare both on the same machine.
    static void forcePortableForTesting(bool portable);

private:
    void processBlocks(const uint8_t *data, size_t blocks);
    uint32_t m_state[8];
    uint8_t m_buffer[64];
    size_t m_buffered = 0;
    uint64_t m_length = 0;
};

} // namespace fb
