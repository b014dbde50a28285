/* --size values: parse_size, then size_to_elements and format_bytes on what it accepted.
 * Input: the size text; an optional second line is the LLC size in bytes, an optional third
 * the element size (4 = float, else 8). The accepted sizes go on through array_layout (the LLC
 * line, modulo 2^24, doubling as the offset) and the LLC through llc_rule_elements. */
#include <math.h>

#include "src/stream/array_layout.h"
#include "src/base/parse.h"
#include "tests/fuzz/fuzz.h"

struct input {
    char *text;
    uint64_t llc_bytes;
    size_t elem_size;
};

static void field(const uint8_t *piece, size_t len, int index, void *ctx)
{
    struct input *in = ctx;
    char *s = fuzz_cstr(piece, len);
    if (index == 0)
        in->text = s;
    else {
        if (index == 1) in->llc_bytes = strtoull(s, NULL, 0);
        if (index == 2) in->elem_size = s[0] == '4' ? 4 : 8;
        free(s);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = {NULL, 32u << 20, 8};
    fuzz_split(data, size, '\n', 3, field, &in);
    struct size_spec spec;
    char why[256];
    memset(why, 0, sizeof(why));
    if (parse_size(in.text, &spec, why, sizeof(why)) != 0) {
        fuzz_check_reason("parse_size", why, sizeof(why));
        free(in.text);
        return 0;
    }
    FUZZ_CHECK(memchr(spec.text, '\0', sizeof(spec.text)) && !strcmp(spec.text, in.text),
               "parse_size: text label '%.40s' is not the input", spec.text);
    switch (spec.kind) {
    case SIZE_LLC_MULTIPLE:
        FUZZ_CHECK(spec.llc_multiple > 0.0 && spec.llc_multiple <= 1e6 &&
                       isfinite(spec.llc_multiple),
                   "parse_size: LLC multiple %g out of range", spec.llc_multiple);
        break;
    case SIZE_BYTES: FUZZ_CHECK(spec.bytes >= 1, "parse_size: zero bytes accepted"); break;
    case SIZE_ELEMENTS: FUZZ_CHECK(spec.elements >= 1, "parse_size: zero elements accepted"); break;
    default: fuzz_fail("parse_size: kind %d", (int)spec.kind);
    }
    uint64_t elements = 0;
    memset(why, 0, sizeof(why));
    if (size_to_elements(&spec, in.llc_bytes, in.elem_size, &elements, why, sizeof(why)) == 0) {
        FUZZ_CHECK(elements >= 1 && elements <= UINT64_MAX / 4 / in.elem_size,
                   "size_to_elements: %llu elements", (unsigned long long)elements);
        struct array_layout l;
        if (array_layout(elements, in.elem_size, in.llc_bytes % (1u << 24), 2u << 20, &l) == 0)
            FUZZ_CHECK(l.array_bytes / in.elem_size == elements &&
                           l.total_bytes >= 3 * l.array_bytes && l.stride_bytes >= l.array_bytes &&
                           l.region_bytes == 3 * l.stride_bytes,
                       "array_layout: inconsistent byte counts for %llu elements",
                       (unsigned long long)elements);
    } else
        fuzz_check_reason("size_to_elements", why, sizeof(why));
    uint64_t rule = 0;
    if (llc_rule_elements(in.llc_bytes, 4, in.elem_size, 1000000, &rule) == 0)
        FUZZ_CHECK(rule >= 1000000 &&
                       (rule >= UINT64_MAX / in.elem_size || rule * in.elem_size >= in.llc_bytes),
                   "llc_rule_elements: %llu elements for a %llu-byte LLC", (unsigned long long)rule,
                   (unsigned long long)in.llc_bytes);
    char text[16];
    format_bytes(spec.bytes, text, sizeof(text));
    format_bytes(elements * in.elem_size, text, sizeof(text));
    free(in.text);
    return 0;
}
