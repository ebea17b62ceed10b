#include <openssl/hmac.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
