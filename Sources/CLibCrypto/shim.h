// The parts of the system's libcrypto (OpenSSL 3, Debian package libssl-dev) MemoSync uses on
// Linux: AEAD through EVP_CIPHER_CTX, RAND_bytes, EVP_Digest and HMAC. Long-standing calls only
// (no EVP_MAC, EVP_KDF or OSSL_PARAM). On Apple platforms CryptoKit is used instead.
#ifndef MEMOSYNC_CLIBCRYPTO_SHIM_H
#define MEMOSYNC_CLIBCRYPTO_SHIM_H

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>

#endif
