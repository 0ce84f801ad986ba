// The libcrypto functions of Ed25519 signing and verification (src/team/ApprovalKeys), opened on
// first use (lazy/LazyLibrary.h).
#include "lazy/Forward.h"

#include <openssl/evp.h>

// clang-format off
FB_FORWARD(libcrypto, int, EVP_DigestSign,
           (EVP_MD_CTX *ctx, unsigned char *sigret, size_t *siglen, const unsigned char *tbs,
            size_t tbslen),
           (ctx, sigret, siglen, tbs, tbslen))
FB_FORWARD(libcrypto, int, EVP_DigestSignInit,
           (EVP_MD_CTX *ctx, EVP_PKEY_CTX **pctx, const EVP_MD *type, ENGINE *e, EVP_PKEY *pkey),
           (ctx, pctx, type, e, pkey))
FB_FORWARD(libcrypto, int, EVP_DigestVerify,
           (EVP_MD_CTX *ctx, const unsigned char *sigret, size_t siglen, const unsigned char *tbs,
            size_t tbslen),
           (ctx, sigret, siglen, tbs, tbslen))
FB_FORWARD(libcrypto, int, EVP_DigestVerifyInit,
           (EVP_MD_CTX *ctx, EVP_PKEY_CTX **pctx, const EVP_MD *type, ENGINE *e, EVP_PKEY *pkey),
           (ctx, pctx, type, e, pkey))
FB_FORWARD(libcrypto, void, EVP_MD_CTX_free, (EVP_MD_CTX *ctx), (ctx))
FB_FORWARD(libcrypto, EVP_MD_CTX *, EVP_MD_CTX_new, (void), ())
FB_FORWARD(libcrypto, EVP_PKEY_CTX *, EVP_PKEY_CTX_new_id, (int id, ENGINE *e), (id, e))
FB_FORWARD(libcrypto, void, EVP_PKEY_CTX_free, (EVP_PKEY_CTX *ctx), (ctx))
FB_FORWARD(libcrypto, int, EVP_PKEY_keygen_init, (EVP_PKEY_CTX *ctx), (ctx))
FB_FORWARD(libcrypto, int, EVP_PKEY_keygen, (EVP_PKEY_CTX *ctx, EVP_PKEY **ppkey), (ctx, ppkey))
FB_FORWARD(libcrypto, void, EVP_PKEY_free, (EVP_PKEY *pkey), (pkey))
FB_FORWARD(libcrypto, int, EVP_PKEY_get_raw_private_key,
           (const EVP_PKEY *pkey, unsigned char *priv, size_t *len), (pkey, priv, len))
FB_FORWARD(libcrypto, int, EVP_PKEY_get_raw_public_key,
           (const EVP_PKEY *pkey, unsigned char *pub, size_t *len), (pkey, pub, len))
FB_FORWARD(libcrypto, EVP_PKEY *, EVP_PKEY_new_raw_private_key,
           (int type, ENGINE *e, const unsigned char *priv, size_t len), (type, e, priv, len))
FB_FORWARD(libcrypto, EVP_PKEY *, EVP_PKEY_new_raw_public_key,
           (int type, ENGINE *e, const unsigned char *pub, size_t len), (type, e, pub, len))
// clang-format on
