// Fixed-arity wrappers for libmicrohttpd's variadic calls (MHD_start_daemon, MHD_get_daemon_info), which Swift
// cannot call directly.
#pragma once
#include <stdint.h>
#include <microhttpd.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Starts a daemon listening on `host` (an IPv4 or IPv6 address, no names) and `port` (0: any free port), with a
/// thread per connection (so a streamed response may wait for its next event) and an internal polling thread.
/// The path handed to `handler` is the request target as sent, still percent-encoded, so that the caller can
/// tell an encoded slash from a real one. NULL on failure, with `*error_number` set to the errno of the failure
/// (EINVAL for a host that is not an address).
struct MHD_Daemon *newsgen_mhd_start(const char *host, uint16_t port, MHD_AccessHandlerCallback handler,
                                     void *context, int *error_number);

/// The port the daemon listens on (useful after asking for port 0).
uint16_t newsgen_mhd_port(struct MHD_Daemon *daemon);

#ifdef __cplusplus
}
#endif
