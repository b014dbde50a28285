/* Comma lists of whole numbers (--threads, --shootdown-remote, --shootdown-pages):
 * for_each_list_item with parse_uint on every item. Input: the list; an optional second line
 * "MIN MAX" sets parse_uint's range (default 1 4096, as --threads). */
#include "src/base/parse.h"
#include "tests/fuzz/fuzz.h"

struct input {
    char *list;
    uint64_t min, max;
};

static void field(const uint8_t *piece, size_t len, int index, void *ctx)
{
    struct input *in = ctx;
    char *s = fuzz_cstr(piece, len);
    if (index == 0) {
        in->list = s;
        return;
    }
    char *end;
    in->min = strtoull(s, &end, 10);
    in->max = strtoull(end, NULL, 10);
    free(s);
}

struct walk {
    const struct input *in;
    int items, stop_at;
};

static int each(const char *item, void *ctx)
{
    struct walk *w = ctx;
    size_t len = strlen(item);
    FUZZ_CHECK(len > 0 && len < 256 && !strchr(item, ','), "list item '%.60s'", item);
    w->items++;
    char why[256] = "";
    uint64_t v = 0;
    if (parse_uint(item, w->in->min, w->in->max, &v, why, sizeof(why)) == 0) {
        FUZZ_CHECK(v >= w->in->min && v <= w->in->max, "parse_uint('%s') = %llu", item,
                   (unsigned long long)v);
        FUZZ_CHECK(strspn(item, "0123456789") == len, "parse_uint accepted '%s'", item);
    } else {
        fuzz_check_reason("parse_uint", why, sizeof(why));
    }
    return w->items == w->stop_at ? 7 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = {NULL, 1, 4096};
    fuzz_split(data, size, '\n', 2, field, &in);
    char why[256] = "";
    struct walk all = {&in, 0, -1};
    int rc = for_each_list_item(in.list, each, &all, why, sizeof(why));
    if (rc == -1)
        fuzz_check_reason("for_each_list_item", why, sizeof(why));
    else
        FUZZ_CHECK(rc == 0 && all.items >= 1, "for_each_list_item: rc %d after %d items", rc,
                   all.items);
    /* a callback's non-zero return ends the walk and is passed through */
    struct walk second = {&in, 0, 2};
    rc = for_each_list_item(in.list, each, &second, why, sizeof(why));
    FUZZ_CHECK(rc == -1 || (rc == 7) == (second.items == 2), "stop: rc %d after %d items", rc,
               second.items);
    uint64_t v; /* the whole text as one number, full range */
    if (parse_uint(in.list, 0, UINT64_MAX, &v, why, sizeof(why)) != 0)
        fuzz_check_reason("parse_uint", why, sizeof(why));
    free(in.list);
    return 0;
}
