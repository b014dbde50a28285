#include "src/cli/cli_checks.h"

#include <stdio.h>
#include <string.h>

#include "src/cli/option_table.h"
#include "src/latency/latency_options.h"
#include "src/stream/stream_options.h"
#include "src/tlb/tlb_options.h"

/* Combinations of probe options that cannot mean anything. */
static int check_tlb_options(const struct options *o)
{
    const struct tlb_options *t = options_block_of(o, &tlb_option_rows);
    const struct stream_options *s = options_block_of(o, &stream_option_rows);
    const struct latency_options *l = options_block_of(o, &latency_option_rows);
    if (t->trials && !t->pages)
        return option_error("--tlb-trials needs --tlb-pages N (trials are traversals of N "
                            "pages)");
    if (t->pages && t->max_pages != TLB_DEFAULT_MAX_PAGES)
        return option_error("--tlb-pages measures one point; --tlb-max-pages is for sweeps, "
                            "drop one of them");
    if (t->enabled && t->cpu_given && o->shared.n_binds && !s->kernel_mask && !l->enabled)
        return option_error("--cpu and --bind both place the TLB probe; give one of them");
    if (t->enabled && t->cpu_given && o->shared.n_threads)
        return option_error("--cpu pins the single-thread probe; with --threads place the "
                            "threads with --bind (e.g. --bind 0,1)");
    return 0;
}

/* --matrix plans its own runs: one per NUMA node pair, threads one per core of the row's node. */
static int check_matrix_options(const struct options *o)
{
    const struct shared_options *sh = &o->shared;
    const struct stream_options *s = options_block_of(o, &stream_option_rows);
    const struct latency_options *l = options_block_of(o, &latency_option_rows);
    if (!sh->matrix) return 0;
    const char *clash = sh->n_threads       ? "--threads (each row runs one thread per core)"
                        : sh->n_binds       ? "--bind (each row binds to its node's cores)"
                        : s->per_domain     ? "--per-domain (every cell is one domain pair)"
                        : o->acceptance     ? "--acceptance (it judges one run)"
                        : o->checks         ? "--expect/--reference (they judge one run)"
                        : o->save_reference ? "--save-reference (it records one run)"
                        : s->n_sizes > 1    ? "a --size list (give one size)"
                        : sh->n_pages > 1   ? "a --pages list (give one backing)"
                        : s->n_stores > 1   ? "a --stores list (give one kind)"
                                            : NULL;
    if (clash)
        return option_error("--matrix %s plans its own runs and cannot take %s",
                            sh->matrix == MATRIX_TIERS ? "tiers" : "numa", clash);
    if (sh->matrix == MATRIX_TIERS && l->enabled)
        return option_error("--latency --matrix tiers is not a measurement; the idle latency "
                            "between nodes is --latency --matrix numa");
    return 0;
}

/* A verdict must check what it names: kernels that run. */
static int check_verdict_options(const struct options *o)
{
    const struct stream_options *s = options_block_of(o, &stream_option_rows);
    char msg[400];
    if (o->reference_interval_s > 0 && o->reference_runs < 2)
        return option_error("--reference-interval pauses between the runs of --reference-runs "
                            "K; add --reference-runs 5 (or more), or drop --reference-interval");
    if (o->reference_runs > 1 && !o->save_reference)
        return option_error("--reference-runs measures the runs of a reference to save; add "
                            "--save-reference FILE, or drop --reference-runs");
    for (int k = 0; k < KERNEL_COUNT; k++) {
        if (!(expectations_kernel_mask(&o->expect) & (1u << k)) || (s->kernel_mask & (1u << k)))
            continue;
        const char *word = kernel_table[k].flag + 2; /* "triad" */
        char runs[96] = "";
        for (int r = 0; r < KERNEL_COUNT; r++)
            if (s->kernel_mask & (1u << r))
                snprintf(runs + strlen(runs), sizeof(runs) - strlen(runs), "%s%s",
                         runs[0] ? ", " : "", kernel_table[r].flag + 2);
        if (o->acceptance)
            snprintf(msg, sizeof(msg),
                     "--expect %s: the acceptance profile measures %s, not %s; drop %s from "
                     "--expect",
                     word, runs, word, word);
        else
            snprintf(msg, sizeof(msg),
                     "--expect %s: this run measures %s, not %s; add %s (kernel options choose "
                     "what runs) or drop %s from --expect",
                     word, runs, word, kernel_table[k].flag, word);
        return option_error("%s", msg);
    }
    return 0;
}

int cli_check_combinations(const struct options *o)
{
    return check_tlb_options(o) || check_matrix_options(o) || check_verdict_options(o);
}
