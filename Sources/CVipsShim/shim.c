#include "CVipsShim.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vips/vips.h>

// libvips is opened on first use rather than linked: linked, it and the hundred libraries it needs are loaded
// and bound by every newsgen command at start, about 20 ms, photos or not. Each function is typed from the
// libvips headers, so a call through it is checked like a direct one.
#define VIPS_FUNCTIONS(X) \
    X(vips_init) X(vips_cache_set_max) X(vips_cache_set_max_mem) X(vips_cache_set_max_files) \
    X(vips_concurrency_set) X(vips_image_new_from_file) X(vips_image_get_width) X(vips_image_get_height) \
    X(vips_image_get_typeof) X(vips_image_get_int) X(vips_image_get_string) X(vips_image_set_string) \
    X(vips_image_get_fields) X(vips_image_remove) X(vips_image_copy_memory) X(vips_foreign_find_load) \
    X(vips_thumbnail) X(vips_thumbnail_image) X(vips_copy) X(vips_jpegsave) X(vips_pngsave) X(vips_webpsave) \
    X(vips_error_buffer_copy) X(g_object_unref) X(g_strndup) X(g_free) X(g_strfreev)

static struct {
#define FIELD(name) __typeof__(&name) name;
    VIPS_FUNCTIONS(FIELD)
#undef FIELD
} lib;

/// The soname of the libvips Debian ships (package libvips42), the one the headers describe.
static const char *const library = "libvips.so.42";

static char failure[512] = "libvips did not start";

static int load(void) {
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    const char *reason = handle ? NULL : dlerror();
#define FIND(name) \
    if (!reason && !(lib.name = (__typeof__(&name))dlsym(handle, #name))) reason = dlerror();
    VIPS_FUNCTIONS(FIND)
#undef FIND
    if (reason) snprintf(failure, sizeof failure, "%s", reason);
    return reason ? -1 : 0;
}

static int loaded = 0;

int newsgen_vips_start(int concurrency) {
    if (load() != 0) return -1;
    if (lib.vips_init("newsgen")) return -1;
    loaded = 1;
    // Every variant is made once from a source decoded once: caching operations would only hold memory.
    lib.vips_cache_set_max(16);
    lib.vips_cache_set_max_mem(64 * 1024 * 1024);
    lib.vips_cache_set_max_files(16);
    lib.vips_concurrency_set(concurrency);
    return 0;
}

const char *newsgen_vips_load_error(void) { return failure; }

newsgen_vips_image *newsgen_vips_open(const char *path) {
    return lib.vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
}

int newsgen_vips_width(newsgen_vips_image *image) { return lib.vips_image_get_width(image); }
int newsgen_vips_height(newsgen_vips_image *image) { return lib.vips_image_get_height(image); }

int newsgen_vips_orientation(newsgen_vips_image *image) {
    int orientation = 1;
    if (lib.vips_image_get_typeof(image, VIPS_META_ORIENTATION) && lib.vips_image_get_int(image, VIPS_META_ORIENTATION, &orientation))
        return 1;
    return orientation < 1 || orientation > 8 ? 1 : orientation;
}

const char *newsgen_vips_loader(const char *path) { return lib.vips_foreign_find_load(path); }

newsgen_vips_image *newsgen_vips_decode(const char *path, int width, int height) {
    VipsImage *shrunk = NULL;
    if (lib.vips_thumbnail(path, &shrunk, width, "height", height, "size", VIPS_SIZE_DOWN,
                           "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL))
        return NULL;
    VipsImage *memory = lib.vips_image_copy_memory(shrunk);
    lib.g_object_unref(shrunk);
    return memory;
}

newsgen_vips_image *newsgen_vips_resize(newsgen_vips_image *image, int width, int height, int crop) {
    VipsImage *out = NULL;
    if (lib.vips_thumbnail_image(image, &out, width, "height", height, "size", VIPS_SIZE_DOWN,
                                 "crop", crop ? VIPS_INTERESTING_ATTENTION : VIPS_INTERESTING_NONE, NULL))
        return NULL;
    return out;
}

// libvips shows an EXIF text field as "VALUE (READABLE, ASCII, N components, N bytes)"; VALUE is the first N - 1
// bytes (N counts the terminating NUL), which is what is written back.
static void copy_exif_text(VipsImage *from, VipsImage *to, const char *field) {
    const char *shown = NULL;
    if (!lib.vips_image_get_typeof(from, field) || lib.vips_image_get_string(from, field, &shown) || !shown) return;
    size_t length = strlen(shown);
    const char *tail = strstr(shown, " components, ");
    if (!tail || length < 8 || strcmp(shown + length - 7, " bytes)") != 0) return;
    long bytes = strtol(tail + 13, NULL, 10);
    if (bytes < 2 || (size_t)bytes - 1 > length) return;
    char *value = lib.g_strndup(shown, (gsize)bytes - 1);
    lib.vips_image_set_string(to, field, value);
    lib.g_free(value);
}

int newsgen_vips_save(newsgen_vips_image *image, newsgen_vips_image *metadata, const char *path, int format, int quality) {
    VipsImage *clean = NULL;
    if (lib.vips_copy(image, &clean, NULL)) return -1;
    // Every metadata field goes (EXIF with GPS and camera serials, XMP, IPTC, the orientation already applied),
    // except the colour profile, which the pixels need.
    gchar **fields = lib.vips_image_get_fields(clean);
    for (gchar **field = fields; *field; field++) {
        if (strcmp(*field, VIPS_META_ICC_NAME) == 0) continue;
        if (strncmp(*field, "exif-", 5) == 0 || strcmp(*field, VIPS_META_XMP_NAME) == 0
            || strcmp(*field, VIPS_META_IPTC_NAME) == 0 || strcmp(*field, VIPS_META_ORIENTATION) == 0
            || strcmp(*field, VIPS_META_PHOTOSHOP_NAME) == 0)
            lib.vips_image_remove(clean, *field);
    }
    lib.g_strfreev(fields);
    // The credit travels with the picture: libvips writes a fresh EXIF block from these two fields alone.
    copy_exif_text(metadata, clean, "exif-ifd0-Copyright");
    copy_exif_text(metadata, clean, "exif-ifd0-Artist");
    int result;
    switch (format) {
    case 0: result = lib.vips_jpegsave(clean, path, "Q", quality, "optimize_coding", TRUE, "interlace", TRUE, NULL); break;
    case 1: result = lib.vips_pngsave(clean, path, "compression", 6, NULL); break;
    default: result = lib.vips_webpsave(clean, path, "Q", quality, NULL); break;
    }
    lib.g_object_unref(clean);
    return result;
}

void newsgen_vips_release(newsgen_vips_image *image) { if (image) lib.g_object_unref(image); }

char *newsgen_vips_take_error(void) { return loaded ? lib.vips_error_buffer_copy() : NULL; }
void newsgen_vips_free(char *text) { if (loaded) lib.g_free(text); }
