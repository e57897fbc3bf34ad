/* fuzz_scanpack: the scanner's container readers and decoders, each on the
 * raw bytes (scanpack.c: gzip, its members' header fields, bzip2, xz, raw
 * deflate, tar, zip, the bytes of both outside their members; scantext.c:
 * JSON escapes, UTF-16).  None may crash, hang or take more memory than
 * its cap.  Every entry's name and bytes are read through (ASan sees any
 * byte outside), a stored entry's bytes must lie inside the input, and an
 * escape's source offsets must lie inside it too. */
#include "fuzzhelp.h"
#include "scanpack.h"
#include "scantext.h"

#define CAP ((size_t)1 << 22)

typedef struct {
    const uint8_t *b;
    size_t n;
    unsigned sum;
} ctx;

static void on_entry(void *vc, const sp_entry *e)
{
    ctx *c = vc;
    c->sum += (unsigned)strlen(e->name);
    if (e->link)
        c->sum += (unsigned)strlen(e->link);
    for (size_t i = 0; i < e->size; i++)
        c->sum += e->data[i];
    if (e->kind != SP_META && e->size && (e->data < c->b || e->data + e->size > c->b + c->n))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    sp_kind k = sp_detect(data, size);
    if (!sp_kind_name(k))
        abort();
    static const sp_kind streams[3] = {SP_GZIP, SP_BZ2, SP_XZ};
    for (int i = 0; i < 3; i++) {
        unsigned char *out = NULL;
        size_t outn = 0;
        int rc = sp_decompress(streams[i], data, size, CAP, &out, &outn, err, sizeof err);
        if (rc < SP_OK || rc > SP_NOLIB || outn > CAP)
            abort();
        free(out);
    }
    ctx c = {data, size, 0};
    unsigned char *out = NULL;
    size_t outn = 0;
    int rc = sp_gunzip(data, size, CAP, &out, &outn, err, sizeof err, on_entry, &c);   /* with the header fields */
    if (rc < SP_OK || rc > SP_NOLIB || outn > CAP)
        abort();
    free(out);
    out = NULL;
    outn = 0;
    rc = sp_inflate_raw(data, size, CAP, &out, &outn, err, sizeof err);
    if (rc < SP_OK || rc > SP_NOLIB || outn > CAP)
        abort();
    free(out);

    rc = sp_tar(data, size, on_entry, &c, err, sizeof err);
    if (rc != SP_OK && rc != SP_BAD)
        abort();
    rc = sp_zip(data, size, on_entry, &c, err, sizeof err);
    if (rc != SP_OK && rc != SP_BAD)
        abort();

    st_mark *marks = NULL;
    size_t nm = 0;
    out = NULL;
    if (st_json_unescape(data, size, &out, &outn, &marks, &nm)) {
        if (outn > size)
            abort(); /* an escape never decodes longer than itself */
        size_t last = 0;
        for (size_t d = 0; d <= outn; d++) {
            size_t s = st_src(marks, nm, d);
            if (s > size || s < last)
                abort();
            last = s;
        }
        free(out);
        free(marks);
    }
    int u = st_utf16(data, size);
    if (u < 0 || u > 2)
        abort();
    for (int be = 0; be < 2; be++) {
        st_utf16_decode(data, size, be, &out, &outn);
        free(out);
    }
    return 0;
}
