/* The comma-list options: one parser appends each item to the row's array, the row's list
 * kind (src/measure/option_row.c) parses the item. */
#include <stdio.h>
#include <string.h>

#include "src/cli/option_table.h"

size_t option_count(const struct options *o, const struct option_row *r)
{
    const void *at = (const char *)o + r->count;
    return r->count_size == sizeof(size_t) ? *(const size_t *)at : (size_t) * (const int *)at;
}

static void store_count(struct options *o, const struct option_row *r, size_t n)
{
    void *at = (char *)o + r->count;
    if (r->count_size == sizeof(size_t))
        *(size_t *)at = n;
    else
        *(int *)at = (int)n;
}

struct list_ctx {
    struct options *opts;
    const struct option_row *row;
    const char *option;
};

static size_t list_max(const struct option_row *r)
{
    return r->field_size / r->list->item_size;
}

/* A list kind's .parse: a full list is refused before the item is read. */
static enum list_added parse_item(const struct option_row *r, const char *option, const char *item,
                                  const struct list_items *to)
{
    char why[256];
    if (to->full) return LIST_FULL;
    if (r->list->parse(item, (char *)to->at + to->n * r->list->item_size, why, sizeof(why)) != 0) {
        option_error("%s: %s", option, why);
        return LIST_ERROR;
    }
    return LIST_ADDED;
}

static int add_item(const char *item, void *vctx)
{
    const struct list_ctx *ctx = vctx;
    const struct option_row *r = ctx->row;
    size_t n = option_count(ctx->opts, r);
    struct list_items items = {(char *)ctx->opts + r->field, n, n == list_max(r)};
    switch (r->list->add ? r->list->add(r, ctx->option, item, &items)
                         : parse_item(r, ctx->option, item, &items)) {
    case LIST_ADDED: store_count(ctx->opts, r, n + 1); return 0;
    case LIST_SKIPPED: return 0;
    case LIST_FULL: return option_error("%s: more than %zu values", ctx->option, list_max(r));
    default: return 1;
    }
}

int option_list_add(struct options *o, const struct option_row *r, const char *option,
                    const char *arg)
{
    struct list_ctx ctx = {o, r, option};
    if (r->list->one_item && r->list->one_item(arg)) return add_item(arg, &ctx);
    return option_list(option, arg, add_item, &ctx);
}

bool option_list_show(const struct options *o, const struct option_row *r, char *buf, size_t len)
{
    size_t n = option_count(o, r), used = 0;
    const char *items = (const char *)o + r->field;
    char item[256];
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++) {
        r->list->show(items + i * r->list->item_size, item, sizeof(item));
        int w = snprintf(buf + used, len - used, "%s%s", i ? r->list->separator : "", item);
        used += w > 0 ? (size_t)w : 0;
    }
    return n > 0;
}
