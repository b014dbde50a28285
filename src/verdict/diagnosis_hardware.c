#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel_table.h"
#include "src/base/text_list.h"
#include "src/stream/plan.h"
#include "src/stream/results.h"
#include "src/sys/dimm_inventory.h"
#include "src/sys/run_conditions.h"
#include "src/verdict/diagnosis_rules.h"

static const char *labels_of(const struct diagnosis_facts *f)
{
    return f->settings && f->settings->edac_labels[0] ? f->settings->edac_labels
                                                      : "the memory controllers";
}

bool cause_uncorrected_during_run(const struct diagnosis_facts *f, struct cause *c)
{
    const struct conditions_delta *d = f->during;
    if (!d || d->ue_growth <= 0) return false;
    snprintf(c->summary, sizeof(c->summary), "%lld uncorrected memory errors during the run",
             d->ue_growth);
    snprintf(c->evidence, sizeof(c->evidence),
             "EDAC counted %lld uncorrected memory errors during the run (%llu since boot) on "
             "%.160s",
             d->ue_growth, (unsigned long long)d->ue_total, labels_of(f));
    return true;
}

bool cause_uncorrected_since_boot(const struct diagnosis_facts *f, struct cause *c)
{
    const struct conditions_delta *d = f->during;
    if (!d || d->ue_total == 0 || d->ue_growth > 0) return false;
    snprintf(c->summary, sizeof(c->summary), "%llu uncorrected memory errors since boot",
             (unsigned long long)d->ue_total);
    snprintf(c->evidence, sizeof(c->evidence),
             "EDAC has counted %llu uncorrected memory errors since boot on %.160s",
             (unsigned long long)d->ue_total, labels_of(f));
    return true;
}

bool cause_corrected_errors(const struct diagnosis_facts *f, struct cause *c)
{
    const struct conditions_delta *d = f->during;
    if (!d || d->ce_total == 0) return false;
    snprintf(c->summary, sizeof(c->summary), "%llu corrected memory errors",
             (unsigned long long)d->ce_total);
    snprintf(c->evidence, sizeof(c->evidence),
             "EDAC has counted %llu corrected memory errors since boot, %lld during the run, on "
             "%.160s",
             (unsigned long long)d->ce_total, d->ce_growth > 0 ? d->ce_growth : 0, labels_of(f));
    return true;
}

/* "channel C" or "channels F, J, L" */
static const char *channel_word(const char *names)
{
    return strchr(names, ',') ? "channels" : "channel";
}

/* Every socket with fewer channels populated than it has, in one cause. */
bool cause_empty_channel(const struct diagnosis_facts *f, struct cause *c)
{
    const struct dimm_inventory *inv = f->dimms;
    if (!inv || !inv->read) return false;
    c->summary[0] = c->evidence[0] = '\0';
    for (int s = 0; s < inv->n_sockets; s++) {
        const struct dimm_socket *k = &inv->sockets[s];
        bool named = k->empty_channels[0] != '\0';
        bool fewer =
            k->channels > 0 && k->channels_populated >= 0 && k->channels_populated < k->channels;
        if (!named && !fewer) continue;
        char part[200], brief[80];
        if (named)
            snprintf(brief, sizeof(brief), "socket %d %s %.40s empty", k->id,
                     channel_word(k->empty_channels), k->empty_channels);
        else
            snprintf(brief, sizeof(brief), "socket %d: %d of %d channels populated", k->id,
                     k->channels_populated, k->channels);
        text_list_append(c->summary, sizeof(c->summary), brief);
        snprintf(part, sizeof(part),
                 "SMBIOS: socket %d has %d of its %d channels populated%s%s%s%.80s (%u DIMMs in "
                 "%u slots)",
                 k->id, k->channels_populated, k->channels ? k->channels : k->channels_named,
                 named ? ", no DIMM in " : "", named ? channel_word(k->empty_channels) : "",
                 named ? " " : "", k->empty_channels, k->dimms, k->slots);
        text_list_append(c->evidence, sizeof(c->evidence), part);
    }
    if (!c->summary[0]) return false;
    text_list_append(c->evidence, sizeof(c->evidence),
                     "each empty channel takes its share of the socket's bandwidth");
    return true;
}

bool cause_unbalanced_sockets(const struct diagnosis_facts *f, struct cause *c)
{
    const struct dimm_inventory *inv = f->dimms;
    if (!inv || !inv->read || inv->n_sockets < 2) return false;
    const struct dimm_socket *a = &inv->sockets[0];
    for (int s = 1; s < inv->n_sockets; s++) {
        const struct dimm_socket *b = &inv->sockets[s];
        if (a->dimms == b->dimms && a->bytes == b->bytes) continue;
        snprintf(c->summary, sizeof(c->summary), "sockets %d and %d populated differently", a->id,
                 b->id);
        snprintf(c->evidence, sizeof(c->evidence),
                 "SMBIOS: socket %d has %u DIMMs (%llu GiB), socket %d has %u (%llu GiB): threads "
                 "on the emptier socket share fewer channels",
                 a->id, a->dimms, (unsigned long long)(a->bytes >> 30), b->id, b->dimms,
                 (unsigned long long)(b->bytes >> 30));
        return true;
    }
    return false;
}

bool cause_below_rated(const struct diagnosis_facts *f, struct cause *c)
{
    const struct dimm_inventory *inv = f->dimms;
    if (!inv || !inv->read) return false;
    for (int s = 0; s < inv->n_sockets; s++) {
        const struct dimm_socket *k = &inv->sockets[s];
        if (!k->configured_mts || !k->rated_mts || k->configured_mts >= k->rated_mts) continue;
        snprintf(c->summary, sizeof(c->summary), "DIMMs at %u of their rated %u MT/s",
                 k->configured_mts, k->rated_mts);
        snprintf(c->evidence, sizeof(c->evidence),
                 "SMBIOS: socket %d's DIMMs run at %u MT/s, rated %u MT/s (%u DIMM%s per "
                 "channel): %.0f%% of the bandwidth they are rated for",
                 k->id, k->configured_mts, k->rated_mts, k->dimms_per_channel_max,
                 k->dimms_per_channel_max == 1 ? "" : "s",
                 100.0 * k->configured_mts / k->rated_mts);
        return true;
    }
    return false;
}

static bool same_kind(const struct dimm_slot *a, const struct dimm_slot *b)
{
    return a->size_bytes == b->size_bytes && a->ranks == b->ranks &&
           a->configured_mts == b->configured_mts && a->rated_mts == b->rated_mts &&
           !strcmp(a->type, b->type);
}

/* The socket's populated DIMMs by kind, "6 x 32 GiB DDR4 2-rank at 2400 MT/s, 6 x 64 GiB DDR4
 * 2-rank at 2933 MT/s"; "" when the inventory holds no slot of it. */
static void dimm_kinds(const struct dimm_inventory *inv, int socket, char *out, size_t len)
{
    out[0] = '\0';
    for (int i = 0; i < inv->n_slots; i++) {
        const struct dimm_slot *d = &inv->slots[i];
        if (d->socket != socket || !d->populated) continue;
        int seen = 0, count = 0;
        for (int j = 0; j < inv->n_slots; j++) {
            const struct dimm_slot *e = &inv->slots[j];
            if (e->socket != socket || !e->populated || !same_kind(d, e)) continue;
            seen += j < i;
            count++;
        }
        if (seen) continue;
        char ranks[24] = "", rated[32] = "", kind[128];
        if (d->ranks) snprintf(ranks, sizeof(ranks), " %u-rank", d->ranks);
        if (d->rated_mts && d->rated_mts != d->configured_mts)
            snprintf(rated, sizeof(rated), " (rated %u)", d->rated_mts);
        bool gib = d->size_bytes % (1ull << 30) == 0;
        snprintf(kind, sizeof(kind), "%d x %llu %s%s%s%s at %u MT/s%s", count,
                 (unsigned long long)(d->size_bytes >> (gib ? 30 : 20)), gib ? "GiB" : "MiB",
                 d->type[0] ? " " : "", d->type, ranks, d->configured_mts, rated);
        size_t at = strlen(out);
        snprintf(out + at, len - at, "%s%s", at ? ", " : "", kind);
    }
}

bool cause_mixed_dimms(const struct diagnosis_facts *f, struct cause *c)
{
    const struct dimm_inventory *inv = f->dimms;
    if (!inv || !inv->read) return false;
    for (int s = 0; s < inv->n_sockets; s++) {
        const struct dimm_socket *k = &inv->sockets[s];
        const char *what[3];
        int n = 0;
        if (k->mixed_sizes) what[n++] = "size";
        if (k->mixed_ranks) what[n++] = "ranks";
        if (k->mixed_speeds) what[n++] = "speed";
        if (!n) continue;
        char differ[32] = "";
        for (int i = 0; i < n; i++) {
            size_t at = strlen(differ);
            const char *sep = i == n - 1 ? " and " : ", ";
            snprintf(differ + at, sizeof(differ) - at, "%s%s", i ? sep : "", what[i]);
        }
        char kinds[200];
        dimm_kinds(inv, s, kinds, sizeof(kinds));
        snprintf(c->summary, sizeof(c->summary), "socket %d has mixed DIMMs", k->id);
        snprintf(c->evidence, sizeof(c->evidence),
                 "SMBIOS: socket %d's DIMMs differ in %s: %s%schannels interleave unevenly and "
                 "run at the slowest DIMM's speed",
                 k->id, differ, kinds, kinds[0] ? "; " : "");
        return true;
    }
    return false;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A domain whose Triad per thread is below its peers' median by more than the tolerance (and
 * at least 10%), all domains measured at the same time. */
bool cause_slow_domain(const struct diagnosis_facts *f, struct cause *c)
{
    const struct run_result *r = f->run;
    if (!r || r->n_domains < 2 || r->n_domains > 64) return false;
    double per[64], sorted[64];
    for (int d = 0; d < r->n_domains; d++) {
        const struct domain_result *dom = &r->domains[d];
        per[d] = dom->n_threads ? dom->best_rate_mbps[KERNEL_TRIAD] / dom->n_threads : 0.0;
        sorted[d] = per[d];
    }
    qsort(sorted, (size_t)r->n_domains, sizeof(double), by_value);
    double median = sorted[r->n_domains / 2];
    double tol = f->tolerance_pct > 10.0 ? f->tolerance_pct : 10.0;
    for (int d = 0; d < r->n_domains; d++) {
        if (median <= 0.0 || per[d] <= 0.0 || per[d] >= median * (1.0 - tol / 100.0)) continue;
        const char *kind = domain_kind_name(r->config.per_domain);
        snprintf(c->summary, sizeof(c->summary), "%s %d slower than its peers", kind,
                 r->domains[d].index);
        snprintf(c->evidence, sizeof(c->evidence),
                 "%s %d: Triad %.0f MB/s per thread, %.0f%% below the median of the %d domains "
                 "(%.0f MB/s), all measured at the same time (--per-domain)",
                 kind, r->domains[d].index, per[d], 100.0 * (1.0 - per[d] / median), r->n_domains,
                 median);
        return true;
    }
    return false;
}
