/* The one registry of options: the option table assembled from src/cli's rows and each
 * measurement's (its descriptor's .options), the option rule's bits, one per ask of each
 * measurement, in --help order, and each measurement's options block in struct options. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/log.h"
#include "src/cli/measurements.h"
#include "src/cli/option_table.h"

#define OPTION_ROWS_MAX 96

struct option_row option_table[OPTION_ROWS_MAX];
size_t option_table_rows;

/* The measurements that have options, by rank, and the first bit of each one's asks. */
static const struct measurement_row *ranked[MEASURE_PARTS_MAX];
static unsigned first_bit[MEASURE_PARTS_MAX];
static size_t n_ranked;

/* Where each row of the table of measurements has its options block in struct options. */
static size_t block_at[MEASURE_PARTS_MAX];

static void place_blocks(void)
{
    const size_t align = _Alignof(max_align_t);
    size_t used = 0;
    for (size_t i = 0; i < measurement_count && i < MEASURE_PARTS_MAX; i++) {
        const struct measure_options *mo = measurement_table[i].m->options;
        block_at[i] = offsetof(struct options, blocks) + used;
        used += mo ? (mo->block_size + align - 1) / align * align : 0;
    }
    if (used > OPTIONS_BLOCKS_BYTES) {
        log_error("the options blocks take %zu bytes, more than %d: raise OPTIONS_BLOCKS_BYTES",
                  used, OPTIONS_BLOCKS_BYTES);
        abort();
    }
}

/* The block of ranked[i]. */
static size_t ranked_block(size_t i)
{
    return block_at[ranked[i] - measurement_table];
}

static unsigned asks_mask(size_t i)
{
    return ((1u << ranked[i]->m->options->n_asks) - 1u) << first_bit[i];
}

static void rank_measurements(void)
{
    n_ranked = 0;
    for (size_t i = 0; i < measurement_count && n_ranked < MEASURE_PARTS_MAX; i++) {
        const struct measurement_row *row = &measurement_table[i];
        if (!row->m->options) continue;
        size_t at = n_ranked++;
        while (at > 0 && ranked[at - 1]->m->options->rank > row->m->options->rank) {
            ranked[at] = ranked[at - 1];
            at--;
        }
        ranked[at] = row;
    }
    for (size_t i = 0; i < n_ranked; i++)
        first_bit[i] = i ? first_bit[i - 1] + (unsigned)ranked[i - 1]->m->options->n_asks : 0;
}

static bool uses(const struct measure_options *mo, const char *name)
{
    for (size_t i = 0; name && mo->uses && mo->uses[i]; i++)
        if (strcmp(mo->uses[i], name) == 0) return true;
    return false;
}

/* A row's .applies as bits of option_measures(): of measurement `owner` (an index of ranked),
 * or of src/cli (owner n_ranked). */
static unsigned applies(const struct option_row *r, size_t owner)
{
    if (r->kind == ARG_TEXT || r->kind == ARG_HELP || r->kind == ARG_VERSION) return 0;
    unsigned bits = 0;
    for (size_t i = 0; i < n_ranked; i++)
        if ((owner == n_ranked && (r->applies & APPLIES_ALL)) ||
            (owner == n_ranked && (r->applies & APPLIES_CORE) && ranked[i]->m->judged) ||
            (owner != i && owner < n_ranked && uses(ranked[i]->m->options, r->name)))
            bits |= asks_mask(i);
    if (owner < n_ranked) bits |= r->applies << first_bit[owner];
    return bits;
}

static void add_rows(const struct option_row *rows, size_t n, size_t owner)
{
    size_t own = owner < n_ranked ? ranked_block(owner) : 0;
    for (size_t i = 0; i < n; i++) {
        if (option_table_rows == OPTION_ROWS_MAX) {
            log_error("more than %d option rows: raise OPTION_ROWS_MAX", OPTION_ROWS_MAX);
            abort();
        }
        struct option_row *r = &option_table[option_table_rows++];
        *r = rows[i];
        size_t block = rows[i].flags & OPTF_SHARED ? offsetof(struct options, shared) : own;
        r->field += block;
        r->count += block;
        r->block = block;
        r->applies = applies(&rows[i], owner);
    }
}

void option_table_build(void)
{
    if (option_table_rows) return;
    place_blocks();
    rank_measurements();
    add_rows(cli_usage.rows, cli_usage.n, n_ranked);
    for (size_t i = 0; i < n_ranked; i++) {
        const struct measure_options *mo = ranked[i]->m->options;
        if (i > 0 && !ranked[i]->m->judged && ranked[i - 1]->m->judged)
            add_rows(cli_probes_heading.rows, cli_probes_heading.n, n_ranked);
        add_rows(mo->asking, mo->n_asking, i);
    }
    add_rows(cli_options_heading.rows, cli_options_heading.n, n_ranked);
    for (size_t i = 0; i < n_ranked; i++)
        add_rows(ranked[i]->m->options->common, ranked[i]->m->options->n_common, i);
    add_rows(cli_node_rows.rows, cli_node_rows.n, n_ranked);
}

unsigned option_measures(const struct options *o)
{
    option_table_build();
    unsigned bits = 0;
    for (size_t i = 0; i < n_ranked; i++) {
        const struct measure_options *mo = ranked[i]->m->options;
        const void *block = (const char *)o + ranked_block(i);
        for (size_t a = 0; a < mo->n_asks; a++)
            if (mo->asks[a].asked(block)) bits |= 1u << (first_bit[i] + a);
    }
    return bits;
}

/* The ask of bit b, NULL past the last. */
static const struct option_ask *ask_of(unsigned b)
{
    for (size_t i = 0; i < n_ranked; i++)
        if (b >= first_bit[i] && b < first_bit[i] + ranked[i]->m->options->n_asks)
            return &ranked[i]->m->options->asks[b - first_bit[i]];
    return NULL;
}

void option_measures_text(unsigned mask, char *buf, size_t len)
{
    option_table_build();
    size_t n = 0, total = (size_t)__builtin_popcount(mask);
    buf[0] = '\0';
    for (unsigned b = 0; ask_of(b); b++) {
        if (!(mask & (1u << b))) continue;
        const char *sep = n == 0 ? "" : n + 1 == total ? " and " : ", ";
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", sep, ask_of(b)->name);
        n++;
    }
}

void option_measures_add(unsigned mask, char *buf, size_t len)
{
    const struct option_ask *a =
        __builtin_popcount(mask) == 1 ? ask_of((unsigned)__builtin_ctz(mask)) : NULL;
    snprintf(buf, len, "%s", !a ? "one of them" : a->add ? a->add : a->name);
}

void options_init_blocks(struct options *o)
{
    option_table_build();
    for (size_t i = 0; i < measurement_count && i < MEASURE_PARTS_MAX; i++) {
        const struct measure_options *mo = measurement_table[i].m->options;
        if (mo && mo->init) mo->init((char *)o + block_at[i]);
    }
}

void *options_block(struct options *o, const struct measure_options *mo)
{
    option_table_build();
    for (size_t i = 0; i < measurement_count && i < MEASURE_PARTS_MAX; i++)
        if (mo && measurement_table[i].m->options == mo) return (char *)o + block_at[i];
    return NULL;
}

const void *options_block_of(const struct options *o, const struct measure_options *mo)
{
    return options_block((struct options *)o, mo);
}

const void *options_judged(const struct options *o)
{
    for (size_t i = 0; i < measurement_count && i < MEASURE_PARTS_MAX; i++)
        if (measurement_table[i].m->judged)
            return options_block_of(o, measurement_table[i].m->options);
    return NULL;
}

void cli_request(const struct options *o, size_t i, void *request)
{
    const struct measure_options *mo = measurement_table[i].m->options;
    if (!mo || !mo->request) return;
    struct measure_shared shared;
    cli_measure_shared(o, &shared);
    mo->request(options_block_of(o, mo), &shared, request);
}
