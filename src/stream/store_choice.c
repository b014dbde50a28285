#include "src/stream/store_choice.h"

#include <stdio.h>
#include <string.h>

bool store_choice_kernel(enum kernel_id k)
{
    return kernel_table[k].words_written > 0;
}

void store_choice_init(struct store_choice *c, const char *stores_requested, bool from_reference,
                       unsigned kernel_mask)
{
    memset(c, 0, sizeof(*c));
    c->slot = -1;
    c->last = -1;
    if (from_reference) {
        c->method = STORES_REFERENCE;
        return;
    }
    if (strcmp(stores_requested, "auto") != 0) {
        c->method = STORES_FORCED;
        return;
    }
    c->run_mask = kernel_mask;
    for (int k = 0; k < KERNEL_COUNT; k++)
        if ((kernel_mask & (1u << k)) && store_choice_kernel((enum kernel_id)k))
            c->kernel_mask |= 1u << k;
    c->method = c->kernel_mask ? STORES_MEASURED : STORES_NOT_MEASURED;
    c->why = c->kernel_mask ? NULL : "no kernel of this run stores";
    c->n_candidates = 2;
    for (int k = 0; k < KERNEL_COUNT; k++) {
        c->cand[ASSIGN_NORMAL].kind[k] = STORES_NORMAL;
        c->cand[ASSIGN_NT].kind[k] = (c->kernel_mask & (1u << k)) ? STORES_NT : STORES_NORMAL;
    }
}

/* The mix: each storing kernel's faster kind in the uniform repetitions so far (normal on a
 * tie), a candidate when it is neither uniform one. Rederived before every round: when it
 * changes, its timings so far belong to another assignment and are dropped. */
static bool update_mix(struct store_choice *c)
{
    if (!store_choice_can_stop(c)) return false;
    const struct store_candidate *n = &c->cand[ASSIGN_NORMAL], *t = &c->cand[ASSIGN_NT];
    struct store_candidate mix = {0}, *m = &c->cand[ASSIGN_MIXED];
    int nts = 0, storing = 0;
    for (int k = 0; k < KERNEL_COUNT; k++) {
        mix.kind[k] = STORES_NORMAL;
        if (!(c->kernel_mask & (1u << k))) continue;
        storing++;
        if (t->kernel_best_s[k] > 0.0 && t->kernel_best_s[k] < n->kernel_best_s[k]) {
            mix.kind[k] = STORES_NT;
            nts++;
        }
    }
    bool was = c->n_candidates == 3, is = nts > 0 && nts < storing;
    bool changed = memcmp(mix.kind, m->kind, sizeof(mix.kind)) != 0;
    if (changed) {
        *m = mix;
        if (c->last == ASSIGN_MIXED) c->last = -1;
    }
    c->n_candidates = is ? 3 : 2;
    return is && (changed || !was);
}

/* The i-th candidate of a round: forward in even rounds, reversed in odd ones. */
static int round_order(const struct store_choice *c, int i)
{
    return c->round % 2 ? c->n_candidates - 1 - i : i;
}

int store_choice_next(struct store_choice *c)
{
    c->slot++;
    if (c->round == 0 && c->slot == 4) (void)update_mix(c);
    if (c->slot < 2 * c->n_candidates) return round_order(c, c->slot / 2);
    c->rounds = ++c->round;
    bool retime = update_mix(c); /* a new mix is timed before the calibration ends */
    double counted = 0.0;
    for (int i = 0; i < c->n_candidates; i++)
        counted += c->cand[i].best_s;
    bool enough = (c->rounds >= 2 && 2.0 * c->rounds * counted >= STORE_CALIBRATION_MIN_S) ||
                  2.0 * counted >= STORE_CALIBRATION_LONG_S;
    if ((enough && !retime) || c->rounds >= STORE_CALIBRATION_ROUNDS_MAX) return -1;
    c->slot = 0;
    return round_order(c, 0);
}

void store_choice_record(struct store_choice *c, int cand, const double kernel_s[KERNEL_COUNT])
{
    bool counts = c->last == cand;
    c->last = cand;
    if (!counts) return;
    struct store_candidate *x = &c->cand[cand];
    x->best_s = 0.0;
    for (int k = 0; k < KERNEL_COUNT; k++) {
        if (!(c->run_mask & (1u << k))) continue;
        double s = kernel_s[k];
        if (s > 0.0 && (x->kernel_best_s[k] == 0.0 || s < x->kernel_best_s[k]))
            x->kernel_best_s[k] = s;
        x->best_s += x->kernel_best_s[k];
    }
    x->passes++;
}

bool store_choice_can_stop(const struct store_choice *c)
{
    return c->cand[ASSIGN_NORMAL].passes > 0 && c->cand[ASSIGN_NT].passes > 0;
}

int store_assignment_pick(const double total_s[], const int nt_kernels[], int n)
{
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (!(total_s[i] > 0.0)) continue;
        if (best < 0 || total_s[i] < total_s[best] ||
            (total_s[i] == total_s[best] && nt_kernels[i] < nt_kernels[best]))
            best = i;
    }
    return best;
}

void store_choice_decide(struct store_choice *c, uint64_t elements, enum elem_type type)
{
    double bytes = 0.0, total_s[STORE_ASSIGNMENTS];
    int nts[STORE_ASSIGNMENTS] = {0};
    for (int k = 0; k < KERNEL_COUNT; k++) {
        if (!(c->run_mask & (1u << k))) continue;
        double b = (double)kernel_bytes_counted(&kernel_table[k], elements, type);
        bytes += b;
        for (int kind = 0; kind < 2; kind++) {
            double t = c->cand[kind == STORES_NT ? ASSIGN_NT : ASSIGN_NORMAL].kernel_best_s[k];
            c->kernel_mbps[kind][k] = t > 0.0 ? 1e-6 * b / t : 0.0;
        }
    }
    for (int i = 0; i < c->n_candidates; i++) {
        struct store_candidate *x = &c->cand[i];
        x->mbps = x->best_s > 0.0 ? 1e-6 * bytes / x->best_s : 0.0;
        total_s[i] = x->best_s;
        for (int k = 0; k < KERNEL_COUNT; k++)
            nts[i] += (c->kernel_mask & (1u << k)) && x->kind[k] == STORES_NT;
    }
    int pick = store_assignment_pick(total_s, nts, c->n_candidates);
    c->assignment = pick < 0 ? ASSIGN_NORMAL : (enum store_assignment)pick;
    for (int k = 0; k < KERNEL_COUNT; k++)
        c->chosen[k] = c->cand[c->assignment].kind[k];
}

const char *store_assignment_name(enum store_assignment a)
{
    return a == ASSIGN_NT ? "nt" : a == ASSIGN_MIXED ? "mixed" : "normal";
}

void store_choice_kernels(const struct store_choice *c, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (c->kernel_mask & (1u << k))
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "+" : "",
                     kernel_table[k].name);
}
