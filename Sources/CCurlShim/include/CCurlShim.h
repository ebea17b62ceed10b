// Fixed-arity wrappers for libcurl's variadic option/info calls, which Swift cannot call directly.
// One function per argument type; each returns curl's status code unchanged so the Swift side can
// check it in one place.
#pragma once
#include <curl/curl.h>

#ifdef __cplusplus
extern "C" {
#endif

CURLcode newsgen_curl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode newsgen_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
/// For string options. libcurl copies strings it is given (except CURLOPT_POSTFIELDS: use
/// CURLOPT_COPYPOSTFIELDS), so the argument only has to live for the duration of the call.
CURLcode newsgen_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
/// For object pointers that libcurl keeps (userdata, error buffer, CURLU handle, copied post fields).
CURLcode newsgen_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
/// For header lists; the list must outlive the transfer.
CURLcode newsgen_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
/// For CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION (both use the write callback signature).
CURLcode newsgen_curl_easy_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback value);

CURLcode newsgen_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode newsgen_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode newsgen_curl_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value);

CURLMcode newsgen_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);

#ifdef __cplusplus
}
#endif
