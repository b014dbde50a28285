#include "src/stream/store_choice.h"

#include <stdio.h>
#include <string.h>

const enum store_kind store_calibration_order[STORE_CALIBRATION_PASSES] = {
    STORES_NT, STORES_NORMAL, STORES_NORMAL, STORES_NT};

bool store_choice_kernel(enum kernel_id k)
{
    return kernel_table[k].words_written > 0;
}

void store_choice_init(struct store_choice *c, const char *stores_requested, bool from_reference,
                       unsigned kernel_mask)
{
    memset(c, 0, sizeof(*c));
    if (from_reference) {
        c->method = STORES_REFERENCE;
        return;
    }
    if (strcmp(stores_requested, "auto") != 0) {
        c->method = STORES_FORCED;
        return;
    }
    for (int k = 0; k < KERNEL_COUNT; k++)
        if ((kernel_mask & (1u << k)) && store_choice_kernel((enum kernel_id)k))
            c->kernel_mask |= 1u << k;
    c->method = c->kernel_mask ? STORES_MEASURED : STORES_NOT_MEASURED;
    c->why = c->kernel_mask ? NULL : "no kernel of this run stores";
}

void store_choice_record(struct store_choice *c, enum kernel_id k, enum store_kind kind,
                         double seconds)
{
    double *best = &c->best_s[kind][k];
    if (seconds > 0.0 && (*best == 0.0 || seconds < *best)) *best = seconds;
}

void store_choice_rounds(struct store_choice *c, int rounds)
{
    if (c->rounds == 0 || rounds < c->rounds) c->rounds = rounds;
}

void store_choice_decide(struct store_choice *c, uint64_t elements, enum elem_type type)
{
    double bytes = 0.0, s[2] = {0.0, 0.0};
    for (int k = 0; k < KERNEL_COUNT; k++) {
        if (!(c->kernel_mask & (1u << k))) continue;
        double b = (double)kernel_bytes_counted(&kernel_table[k], elements, type);
        bytes += b;
        for (int kind = 0; kind < 2; kind++) {
            double t = c->best_s[kind][k];
            s[kind] += t;
            c->kernel_mbps[kind][k] = t > 0.0 ? 1e-6 * b / t : 0.0;
        }
        c->chosen[k] = c->kernel_mbps[STORES_NT][k] > c->kernel_mbps[STORES_NORMAL][k]
                           ? STORES_NT
                           : STORES_NORMAL;
    }
    c->normal_mbps = s[STORES_NORMAL] > 0.0 ? 1e-6 * bytes / s[STORES_NORMAL] : 0.0;
    c->nt_mbps = s[STORES_NT] > 0.0 ? 1e-6 * bytes / s[STORES_NT] : 0.0;
}

void store_choice_kernels(const struct store_choice *c, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (c->kernel_mask & (1u << k))
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "+" : "",
                     kernel_table[k].name);
}
