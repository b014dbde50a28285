/* membench: parse the command line, then run this node (src/node) or, under mpirun/srun, the
 * cluster (src/cluster). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/base/interrupt.h"
#include "src/base/log.h"
#include "src/cli/cli.h"
#include "src/cluster/cluster.h"
#include "src/node/node.h"

/* libgomp reads OMP_NUM_THREADS while it loads, before main(), and prints its own complaint
 * about a malformed value; this runs earlier still (the executable's preinit array) so the
 * user sees one membench line and exit status 2 instead. */
static void check_omp_num_threads(int argc, char **argv, char **envp)
{
    (void)argc;
    (void)argv;
    static const char key[] = "OMP_NUM_THREADS=";
    for (char **e = envp; e && *e; e++) {
        if (strncmp(*e, key, sizeof(key) - 1) != 0) continue;
        const char *v = *e + sizeof(key) - 1;
        int ok = *v != '\0', digits = 0, nonzero = 0;
        for (const char *p = v; *p && ok; p++) {
            if (*p >= '0' && *p <= '9') {
                digits++;
                nonzero |= *p != '0';
            } else if (*p == ',' && digits > 0 && nonzero && p[1]) {
                digits = nonzero = 0;
            } else {
                ok = 0;
            }
        }
        if (!ok || digits == 0 || !nonzero || strlen(v) > 16) {
            fprintf(stderr,
                    "membench: OMP_NUM_THREADS='%.40s' is not a thread count; set it to a "
                    "whole number such as 16, or unset it\n",
                    v);
            exit(EXIT_USAGE);
        }
    }
}
__attribute__((section(".preinit_array"),
               used)) static void (*const preinit_check)(int, char **,
                                                         char **) = check_omp_num_threads;

int main(int argc, char **argv)
{
    struct options opts;
    enum cli_action action = cli_parse(argc, argv, &opts);
    if (action != CLI_RUN) { /* what was parsed before --help or an error is freed too */
        cli_free(&opts);
        return action == CLI_EXIT_OK ? EXIT_OK : EXIT_USAGE;
    }
    log_set_quiet(opts.quiet);
    interrupt_install();
    signal(SIGPIPE, SIG_IGN); /* a closed pipe is a write error with a message, not a death */
#ifdef MEMBENCH_MPI
    if (cluster_launched()) {
        int rc = cluster_main(&opts, &argc, &argv);
        cli_free(&opts);
        return rc;
    }
    const char *no_mpi = "it was not launched by mpirun or srun";
#else
    const char *no_mpi = "this membench is built without MPI (cmake -DMEMBENCH_MPI=ON)";
#endif
    if (opts.mpi_per_rank) {
        log_error("--mpi-per-rank makes every rank of an MPI run a node, and this run has no "
                  "ranks: %s; drop --mpi-per-rank",
                  no_mpi);
        cli_free(&opts);
        return EXIT_USAGE;
    }
    int rc = node_main(&opts, NULL, NULL);
    cli_free(&opts);
    return rc;
}
