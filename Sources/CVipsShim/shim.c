#include "CVipsShim.h"
#include <stdlib.h>
#include <string.h>
#include <vips/vips.h>

int newsgen_vips_start(int concurrency) {
    if (VIPS_INIT("newsgen")) return -1;
    // Every variant is made once from a source decoded once: caching operations would only hold memory.
    vips_cache_set_max(16);
    vips_cache_set_max_mem(64 * 1024 * 1024);
    vips_cache_set_max_files(16);
    vips_concurrency_set(concurrency);
    return 0;
}

newsgen_vips_image *newsgen_vips_open(const char *path) {
    return vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
}

int newsgen_vips_width(newsgen_vips_image *image) { return vips_image_get_width(image); }
int newsgen_vips_height(newsgen_vips_image *image) { return vips_image_get_height(image); }

int newsgen_vips_orientation(newsgen_vips_image *image) {
    int orientation = 1;
    if (vips_image_get_typeof(image, VIPS_META_ORIENTATION) && vips_image_get_int(image, VIPS_META_ORIENTATION, &orientation))
        return 1;
    return orientation < 1 || orientation > 8 ? 1 : orientation;
}

const char *newsgen_vips_loader(const char *path) { return vips_foreign_find_load(path); }

newsgen_vips_image *newsgen_vips_decode(const char *path, int width, int height) {
    VipsImage *shrunk = NULL;
    if (vips_thumbnail(path, &shrunk, width, "height", height, "size", VIPS_SIZE_DOWN,
                       "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL))
        return NULL;
    VipsImage *memory = vips_image_copy_memory(shrunk);
    g_object_unref(shrunk);
    return memory;
}

newsgen_vips_image *newsgen_vips_resize(newsgen_vips_image *image, int width, int height, int crop) {
    VipsImage *out = NULL;
    if (vips_thumbnail_image(image, &out, width, "height", height, "size", VIPS_SIZE_DOWN,
                             "crop", crop ? VIPS_INTERESTING_ATTENTION : VIPS_INTERESTING_NONE, NULL))
        return NULL;
    return out;
}

// libvips shows an EXIF text field as "VALUE (READABLE, ASCII, N components, N bytes)"; VALUE is the first N - 1
// bytes (N counts the terminating NUL), which is what is written back.
static void copy_exif_text(VipsImage *from, VipsImage *to, const char *field) {
    const char *shown = NULL;
    if (!vips_image_get_typeof(from, field) || vips_image_get_string(from, field, &shown) || !shown) return;
    size_t length = strlen(shown);
    const char *tail = strstr(shown, " components, ");
    if (!tail || length < 8 || strcmp(shown + length - 7, " bytes)") != 0) return;
    long bytes = strtol(tail + 13, NULL, 10);
    if (bytes < 2 || (size_t)bytes - 1 > length) return;
    char *value = g_strndup(shown, (gsize)bytes - 1);
    vips_image_set_string(to, field, value);
    g_free(value);
}

int newsgen_vips_save(newsgen_vips_image *image, newsgen_vips_image *metadata, const char *path, int format, int quality) {
    VipsImage *clean = NULL;
    if (vips_copy(image, &clean, NULL)) return -1;
    // Every metadata field goes (EXIF with GPS and camera serials, XMP, IPTC, the orientation already applied),
    // except the colour profile, which the pixels need.
    gchar **fields = vips_image_get_fields(clean);
    for (gchar **field = fields; *field; field++) {
        if (strcmp(*field, VIPS_META_ICC_NAME) == 0) continue;
        if (strncmp(*field, "exif-", 5) == 0 || strcmp(*field, VIPS_META_XMP_NAME) == 0
            || strcmp(*field, VIPS_META_IPTC_NAME) == 0 || strcmp(*field, VIPS_META_ORIENTATION) == 0
            || strcmp(*field, VIPS_META_PHOTOSHOP_NAME) == 0)
            vips_image_remove(clean, *field);
    }
    g_strfreev(fields);
    // The credit travels with the picture: libvips writes a fresh EXIF block from these two fields alone.
    copy_exif_text(metadata, clean, "exif-ifd0-Copyright");
    copy_exif_text(metadata, clean, "exif-ifd0-Artist");
    int result;
    switch (format) {
    case 0: result = vips_jpegsave(clean, path, "Q", quality, "optimize_coding", TRUE, "interlace", TRUE, NULL); break;
    case 1: result = vips_pngsave(clean, path, "compression", 6, NULL); break;
    default: result = vips_webpsave(clean, path, "Q", quality, NULL); break;
    }
    g_object_unref(clean);
    return result;
}

void newsgen_vips_release(newsgen_vips_image *image) { if (image) g_object_unref(image); }

char *newsgen_vips_take_error(void) { return vips_error_buffer_copy(); }
void newsgen_vips_free(char *text) { g_free(text); }
