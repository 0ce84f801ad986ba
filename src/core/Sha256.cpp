#include "core/Sha256.h"

#include <atomic>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define FB_SHA256_X86 1
#endif

namespace fb {

namespace {

alignas(16) constexpr uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

inline uint32_t rotr(uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

void blocksPortable(uint32_t state[8], const uint8_t *data, size_t blocks)
{
    uint32_t w[64];
    while (blocks--) {
        for (int i = 0; i < 16; ++i)
            w[i] = uint32_t(data[4 * i]) << 24 | uint32_t(data[4 * i + 1]) << 16 |
                   uint32_t(data[4 * i + 2]) << 8 | uint32_t(data[4 * i + 3]);
        for (int i = 16; i < 64; ++i) {
            const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
            const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5],
                 g = state[6], h = state[7];
        for (int i = 0; i < 64; ++i) {
            const uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
            const uint32_t ch = (e & f) ^ (~e & g);
            const uint32_t t1 = h + S1 + ch + K[i] + w[i];
            const uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
            const uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
            const uint32_t t2 = S0 + maj;
            h = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        state[0] += a;
        state[1] += b;
        state[2] += c;
        state[3] += d;
        state[4] += e;
        state[5] += f;
        state[6] += g;
        state[7] += h;
        data += 64;
    }
}

#ifdef FB_SHA256_X86
// Four rounds per group with the SHA extensions; the message schedule runs alongside.
__attribute__((target("sha,sse4.1,ssse3"))) void blocksShaNi(uint32_t state[8], const uint8_t *data,
                                                             size_t blocks)
{
    const __m128i mask = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i tmp = _mm_loadu_si128(reinterpret_cast<const __m128i *>(&state[0]));
    __m128i state1 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(&state[4]));
    tmp = _mm_shuffle_epi32(tmp, 0xB1);               // CDAB
    state1 = _mm_shuffle_epi32(state1, 0x1B);         // EFGH
    __m128i state0 = _mm_alignr_epi8(tmp, state1, 8); // ABEF
    state1 = _mm_blend_epi16(state1, tmp, 0xF0);      // CDGH

    while (blocks--) {
        const __m128i abefSave = state0;
        const __m128i cdghSave = state1;
        __m128i m[4];
#pragma GCC unroll 16
        for (int g = 0; g < 16; ++g) {
            if (g < 4)
                m[g] = _mm_shuffle_epi8(
                    _mm_loadu_si128(reinterpret_cast<const __m128i *>(data + 16 * g)), mask);
            const __m128i cur = m[g % 4];
            __m128i msg =
                _mm_add_epi32(cur, _mm_load_si128(reinterpret_cast<const __m128i *>(K + 4 * g)));
            state1 = _mm_sha256rnds2_epu32(state1, state0, msg);
            if (g >= 3 && g <= 14) {
                const __m128i t = _mm_alignr_epi8(cur, m[(g + 3) % 4], 4);
                m[(g + 1) % 4] = _mm_add_epi32(m[(g + 1) % 4], t);
                m[(g + 1) % 4] = _mm_sha256msg2_epu32(m[(g + 1) % 4], cur);
            }
            msg = _mm_shuffle_epi32(msg, 0x0E);
            state0 = _mm_sha256rnds2_epu32(state0, state1, msg);
            if (g >= 1 && g <= 12)
                m[(g + 3) % 4] = _mm_sha256msg1_epu32(m[(g + 3) % 4], cur);
        }
        state0 = _mm_add_epi32(state0, abefSave);
        state1 = _mm_add_epi32(state1, cdghSave);
        data += 64;
    }

    tmp = _mm_shuffle_epi32(state0, 0x1B);       // FEBA
    state1 = _mm_shuffle_epi32(state1, 0xB1);    // DCHG
    state0 = _mm_blend_epi16(tmp, state1, 0xF0); // DCBA
    state1 = _mm_alignr_epi8(state1, tmp, 8);    // ABEF
    _mm_storeu_si128(reinterpret_cast<__m128i *>(&state[0]), state0);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(&state[4]), state1);
}

bool cpuHasShaNi()
{
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return false;
    const bool ssse3 = c & (1u << 9);
    const bool sse41 = c & (1u << 19);
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return false;
    const bool sha = b & (1u << 29);
    return ssse3 && sse41 && sha;
}
#endif

std::atomic<bool> g_forcePortable{false};

bool useShaNi()
{
#ifdef FB_SHA256_X86
    static const bool have = cpuHasShaNi();
    return have && !g_forcePortable.load(std::memory_order_relaxed);
#else
    return false;
#endif
}

} // namespace

Sha256::Sha256()
    : m_state{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
              0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19}
{
}

void Sha256::processBlocks(const uint8_t *data, size_t blocks)
{
#ifdef FB_SHA256_X86
    if (useShaNi())
        return blocksShaNi(m_state, data, blocks);
#endif
    blocksPortable(m_state, data, blocks);
}

void Sha256::addData(QByteArrayView view)
{
    const auto *data = reinterpret_cast<const uint8_t *>(view.data());
    size_t len = static_cast<size_t>(view.size());
    m_length += len;
    if (m_buffered) {
        const size_t take = std::min(len, 64 - m_buffered);
        std::memcpy(m_buffer + m_buffered, data, take);
        m_buffered += take;
        data += take;
        len -= take;
        if (m_buffered < 64)
            return;
        processBlocks(m_buffer, 1);
        m_buffered = 0;
    }
    if (len >= 64) {
        processBlocks(data, len / 64);
        data += len / 64 * 64;
        len %= 64;
    }
    if (len) {
        std::memcpy(m_buffer, data, len);
        m_buffered = len;
    }
}

std::array<uint8_t, 32> Sha256::result()
{
    const uint64_t bits = m_length * 8;
    uint8_t pad[72] = {0x80};
    const size_t padLen = (m_buffered < 56 ? 56 : 120) - m_buffered;
    for (int i = 0; i < 8; ++i)
        pad[padLen + i] = static_cast<uint8_t>(bits >> (56 - 8 * i));
    addData(QByteArrayView(reinterpret_cast<const char *>(pad), qsizetype(padLen + 8)));
    std::array<uint8_t, 32> out{};
    for (int i = 0; i < 8; ++i) {
        out[4 * i] = static_cast<uint8_t>(m_state[i] >> 24);
        out[4 * i + 1] = static_cast<uint8_t>(m_state[i] >> 16);
        out[4 * i + 2] = static_cast<uint8_t>(m_state[i] >> 8);
        out[4 * i + 3] = static_cast<uint8_t>(m_state[i]);
    }
    return out;
}

QByteArray Sha256::hash(QByteArrayView data)
{
    Sha256 h;
    h.addData(data);
    const auto r = h.result();
    return QByteArray(reinterpret_cast<const char *>(r.data()), 32);
}

const char *Sha256::implementation()
{
    return useShaNi() ? "sha-ni" : "portable";
}

void Sha256::forcePortableForTesting(bool portable)
{
    g_forcePortable.store(portable);
}

} // namespace fb
