/* What every option row may use: usage errors, comma lists, choices, and the list kinds. */
#include "src/measure/option_row.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "affinity/policy.h"
#include "src/base/log.h"
#include "src/base/parse.h"

int option_error(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    log_error("%s; see membench --help", msg);
    return 1;
}

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

const char *option_choice(const struct option_row *r, size_t i)
{
    if (r->choice_at) return r->choice_at(i);
    for (size_t k = 0; r->choices[k]; k++)
        if (k == i) return r->choices[k];
    return NULL;
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
