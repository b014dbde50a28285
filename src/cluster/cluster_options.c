/* One set of options across the ranks of a cluster run. */
#include "src/cluster/cluster_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/log.h"
#include "src/stream/plan.h"

static void copy_line(const char *s, char *out, size_t len)
{
    size_t n = strcspn(s, "\n");
    snprintf(out, len, "%.*s", (int)(n < 400 ? n : 400), s);
}

int options_difference(const char *mine, const char *theirs, char *my_line, size_t my_len,
                       char *their_line, size_t their_len)
{
    while (*mine || *theirs) {
        size_t a = strcspn(mine, "\n"), b = strcspn(theirs, "\n");
        if (a != b || memcmp(mine, theirs, a) != 0) {
            copy_line(mine, my_line, my_len);
            copy_line(theirs, their_line, their_len);
            return 1;
        }
        mine += a + (mine[a] == '\n');
        theirs += b + (theirs[b] == '\n');
    }
    return 0;
}

int cluster_refusal(const struct options *o, char *why, size_t why_len)
{
    const struct stream_options *s = options_judged(o); /* STREAM's: the runs compared */
    const struct {
        const char *name;
        size_t n;
    } lists[] = {{"--threads", o->shared.n_threads},
                 {"--size", s->n_sizes},
                 {"--pages", o->shared.n_pages},
                 {"--bind", o->shared.n_binds},
                 {"--stores", s->n_stores}};
    for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
        if (lists[i].n > 1) {
            snprintf(why, why_len,
                     "%s with %zu values is a sweep, and a cluster run compares one run per "
                     "node: give one value (one job per value), or sweep on one node without "
                     "mpirun",
                     lists[i].name, lists[i].n);
            return EXIT_USAGE;
        }
    if (o->save_reference) {
        snprintf(why, why_len,
                 "--save-reference in a cluster run would have every node write the same file: "
                 "save it on one good node without mpirun, then give the cluster run "
                 "--reference FILE");
        return EXIT_USAGE;
    }
    if (o->format == FORMAT_OPENMETRICS || o->metrics_file) {
        snprintf(why, why_len,
                 "%s: the metrics are one node's, and a cluster run writes one table: run "
                 "membench without mpirun on each node for node_exporter, or use --format json",
                 o->metrics_file ? "--metrics-file" : "--format openmetrics");
        return EXIT_USAGE;
    }
    return 0;
}
