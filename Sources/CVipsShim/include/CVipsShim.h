// Fixed-arity wrappers for libvips' variadic calls, which Swift cannot call. The image type is opaque here, so
// that Swift never parses libvips' (and GLib's) headers; only the Images module calls these.
#pragma once
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _VipsImage newsgen_vips_image;

/// Opens and starts libvips once per process with a bounded operation cache and `concurrency` worker threads per
/// image. 0 when it started; else `newsgen_vips_load_error` says why.
int newsgen_vips_start(int concurrency);
const char *newsgen_vips_load_error(void);

/// The image's header only (no pixels decoded): width, height and orientation as stored, the loader's name
/// (jpegload, pngload, webpload, ...). NULL with the reason in the error buffer.
newsgen_vips_image *newsgen_vips_open(const char *path);
int newsgen_vips_width(newsgen_vips_image *image);
int newsgen_vips_height(newsgen_vips_image *image);
/// The EXIF orientation (1-8; 1 when there is none).
int newsgen_vips_orientation(newsgen_vips_image *image);
/// "jpegload", "pngload", ... for the file, or NULL.
const char *newsgen_vips_loader(const char *path);

/// The file decoded, upright (EXIF orientation applied) and shrunk to at most `width` × `height` (never
/// enlarged), fully in memory; a truncated or corrupt file is an error.
newsgen_vips_image *newsgen_vips_decode(const char *path, int width, int height);

/// `image` shrunk to `width` (the height follows), or, with `crop`, shrunk to cover `width` × `height` and
/// cropped there by libvips' attention strategy (the region most likely to draw the eye). Never enlarged.
newsgen_vips_image *newsgen_vips_resize(newsgen_vips_image *image, int width, int height, int crop);

/// Writes `image` as JPEG (format 0), PNG (1) or WebP (2) without any metadata but the EXIF copyright and artist
/// of `metadata` (the source image). 0 when written.
int newsgen_vips_save(newsgen_vips_image *image, newsgen_vips_image *metadata, const char *path, int format, int quality);

void newsgen_vips_release(newsgen_vips_image *image);

/// libvips' error text since the last call, taken in one step (another thread's image may fail meanwhile);
/// free it with `newsgen_vips_free`.
char *newsgen_vips_take_error(void);
void newsgen_vips_free(char *text);

#ifdef __cplusplus
}
#endif
