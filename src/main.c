/* membench: parse the command line, then run this node (src/node) or, under mpirun/srun, the
 * cluster (src/cluster). */
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "affinity/omp_env.h"
#include "src/base/init_stderr.h"
#include "src/base/interrupt.h"
#include "src/base/log.h"
#include "src/cli/cli.h"
#include "src/cluster/cluster.h"
#include "src/node/node.h"

/* libgomp reads OMP_NUM_THREADS while it loads, before main(), and prints its own complaint
 * about a malformed value; this runs earlier still (the executable's preinit array) so the
 * user sees one membench line and exit status 2 instead. */
static void check_omp_num_threads(char **envp)
{
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
            log_error("OMP_NUM_THREADS='%.40s' is not a thread count; set it to a whole number "
                      "such as 16, or unset it",
                      v);
            exit(EXIT_USAGE);
        }
    }
}

/* Before any shared library's constructor: what they print on stderr is held for main(). */
static void before_the_libraries(int argc, char **argv, char **envp)
{
    (void)argc;
    (void)argv;
    check_omp_num_threads(envp);
    init_stderr_hold();
}
__attribute__((section(".preinit_array"),
               used)) static void (*const preinit_check)(int, char **,
                                                         char **) = before_the_libraries;

/* What the libraries printed while they loaded, passed on, except the OpenMP runtime's
 * complaints about the variables it cannot read (and then ignores): those are membench's one
 * error line.
 * EXIT_OK, or EXIT_USAGE after that line. */
static int judge_library_messages(void)
{
    size_t len;
    omp_get_thread_limit(); /* libomp (clang) reads its variables when first called */
    char *text = init_stderr_release(&len), why[600];
    if (!text) return EXIT_OK;
    int refused = omp_env_refused(text, &len, why, sizeof(why));
    init_stderr_pass_on(text, len);
    free(text);
    if (!refused) return EXIT_OK;
    log_error("%s", why);
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
    if (judge_library_messages() != EXIT_OK) {
        /* nothing started: skip the runtimes' destructors (libomp 14 frees twice at exit
         * after it refused GOMP_CPU_AFFINITY='0,,1' and was never asked for threads) */
        fflush(NULL);
        _exit(EXIT_USAGE);
    }
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
