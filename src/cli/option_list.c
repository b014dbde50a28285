/* The comma-list options: one parser appends each item to the row's array, the row's list
 * kind parses the item; and the kinds themselves. */
#include <stdio.h>
#include <string.h>

#include "src/cli/option_table.h"

int option_list(const char *option, const char *list, int (*each)(const char *, void *), void *ctx)
{
    char why[256];
    int rc = for_each_list_item(list, each, ctx, why, sizeof(why));
    if (rc == -1) /* the list itself is malformed; callbacks report their own errors */
        return option_error("%s: %s", option, why);
    return rc;
}

void option_join_choices(const struct option_row *r, const char *sep, char *buf, size_t len)
{
    buf[0] = 0;
    for (size_t i = 0; option_choice(r, i); i++) {
        strncat(buf, i ? sep : "", len - strlen(buf) - 1);
        strncat(buf, option_choice(r, i), len - strlen(buf) - 1);
    }
}

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

static enum list_added add_word(const struct option_row *r, const char *option, const char *item,
                                const struct list_items *to)
{
    const char *word = NULL;
    for (size_t i = 0; !word && option_choice(r, i); i++)
        if (strcmp(option_choice(r, i), item) == 0) word = option_choice(r, i);
    if (!word) {
        char msg[300], accepted[128];
        snprintf(msg, sizeof(msg), "%s %s", option, item);
        option_join_choices(r, ", ", accepted, sizeof(accepted));
        option_error("%s: unknown value (accepted: %s)", msg, accepted);
        return LIST_ERROR;
    }
    if (to->full) return LIST_FULL;
    ((const char **)to->at)[to->n] = word;
    return LIST_ADDED;
}

static void show_word(const void *item, char *buf, size_t len)
{
    snprintf(buf, len, "%s", *(const char *const *)item);
}

const struct list_kind list_words = {sizeof(const char *), .add = add_word, .show = show_word,
                                     .separator = ","};

static enum list_added add_number(const struct option_row *r, const char *option, const char *item,
                                  const struct list_items *to)
{
    unsigned *values = to->at;
    char why[256];
    uint64_t v;
    if (parse_uint(item, r->min, r->max, &v, why, sizeof(why)) != 0) {
        option_error("%s: %s", option, why);
        return LIST_ERROR;
    }
    if (r->flags & OPTF_ONCE)
        for (size_t i = 0; i < to->n; i++)
            if (values[i] == v) return LIST_SKIPPED; /* listed twice: measured once */
    if (to->full) return LIST_FULL;
    values[to->n] = (unsigned)v;
    return LIST_ADDED;
}

static void show_number(const void *item, char *buf, size_t len)
{
    snprintf(buf, len, "%u", *(const unsigned *)item);
}

const struct list_kind list_numbers = {sizeof(unsigned), .add = add_number, .show = show_number,
                                       .separator = ","};

static int parse_size_item(const char *text, void *out, char *why, size_t len)
{
    return parse_size(text, out, why, len);
}

static void show_size(const void *item, char *buf, size_t len)
{
    snprintf(buf, len, "%s", ((const struct size_spec *)item)->text);
}

const struct list_kind list_sizes = {sizeof(struct size_spec), .parse = parse_size_item,
                                     .show = show_size, .separator = ","};

static int parse_bind_item(const char *text, void *out, char *why, size_t len)
{
    return bind_spec_parse(text, out, why, len);
}

static void show_bind(const void *item, char *buf, size_t len)
{
    snprintf(buf, len, "%s", ((const struct bind_spec *)item)->text);
}

/* "0,2,4-7" is one PU list, not three policies; shown, each has its own --bind */
const struct list_kind list_binds = {sizeof(struct bind_spec), .parse = parse_bind_item,
                                     .show = show_bind, .separator = " --bind ",
                                     .one_item = bind_text_is_list};
