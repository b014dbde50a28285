/* Cluster runs over MPI: one benchmark per node (or per rank), one table at rank 0. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/cluster.h"
#include "src/log.h"
#include "src/output_file.h"

bool cluster_launched(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK",
                                       "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
        if (getenv(vars[i])) return true;
    return false;
}

/* Rank 0 receives every leader's exit status and JSON report (empty from non-leaders). */
static struct node_summary *gather(MPI_Comm world, int rank, int size, int leader, int rc,
                                   const char *json, size_t len, int *n_nodes)
{
    int mine[2] = {leader ? rc : -1, (int)(leader ? len : 0)};
    int *meta = rank == 0 ? malloc(2 * (size_t)size * sizeof(int)) : NULL;
    MPI_Gather(mine, 2, MPI_INT, meta, 2, MPI_INT, 0, world);
    int *counts = NULL, *displs = NULL;
    char *all = NULL;
    if (rank == 0) {
        counts = calloc((size_t)size, sizeof(int));
        displs = calloc((size_t)size, sizeof(int));
        long total = 0;
        for (int r = 0; r < size; r++) {
            counts[r] = meta[2 * r + 1];
            displs[r] = (int)total;
            total += counts[r];
        }
        all = malloc((size_t)total + 1);
    }
    MPI_Gatherv(json, mine[1], MPI_CHAR, all, counts, displs, MPI_CHAR, 0, world);
    struct node_summary *nodes = NULL;
    *n_nodes = 0;
    if (rank == 0) {
        nodes = calloc((size_t)size, sizeof(*nodes));
        for (int r = 0; r < size; r++) {
            if (meta[2 * r] < 0) continue; /* not a leader */
            char *text = malloc((size_t)counts[r] + 1);
            memcpy(text, all + displs[r], (size_t)counts[r]);
            text[counts[r]] = '\0';
            node_summary_parse(text, r, meta[2 * r], &nodes[(*n_nodes)++]);
            free(text);
        }
        free(meta);
        free(counts);
        free(displs);
        free(all);
    }
    return nodes;
}

static int write_cluster(const struct options *opts, struct output_file *out,
                         struct node_summary *nodes, int n)
{
    struct cluster_stats st;
    cluster_flag(nodes, n, opts->tolerance_pct, CLUSTER_MAD_K, &st);
    if (output_begin(out) != 0) return EXIT_RESOURCE;
    int rc = opts->format == FORMAT_JSON
                 ? report_cluster_json(out->stream, nodes, n, &st, opts->tolerance_pct)
             : opts->format == FORMAT_CSV
                 ? report_cluster_csv(out->stream, nodes, n, &st)
                 : report_cluster_text(out->stream, nodes, n, &st, opts->tolerance_pct);
    if (output_commit(out, rc) != 0) return EXIT_RESOURCE;
    int verdict = EXIT_OK;
    for (int i = 0; i < n; i++) {
        if (!node_passed(&nodes[i]) && verdict == EXIT_OK) verdict = EXIT_FAILED;
        if (nodes[i].exit_code > 1) verdict = nodes[i].exit_code;
    }
    return verdict;
}

int cluster_main(struct options *opts, int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm world = MPI_COMM_WORLD, node;
    int rank, size, local;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    int leader = opts->mpi_per_rank || local == 0;
    struct output_file out = {0}; /* rank 0 writes the table: its -o is checked before measuring */
    int early = rank == 0 ? output_prepare(&out, opts->output) : EXIT_OK;
    MPI_Bcast(&early, 1, MPI_INT, 0, world);
    if (early != EXIT_OK) {
        MPI_Comm_free(&node);
        MPI_Finalize();
        return early;
    }

    char *json = NULL;
    size_t len = 0;
    int rc = EXIT_OK;
    if (leader) {
        rc = node_main(opts, &json, &len);
        if (len > (size_t)0x7fffffff) len = 0;
    }
    MPI_Barrier(world); /* the other ranks of a node wait here while its leader measures */
    int n = 0;
    struct node_summary *nodes = gather(world, rank, size, leader, rc, json, len, &n);
    free(json);
    int verdict = rank == 0 ? write_cluster(opts, &out, nodes, n) : EXIT_OK;
    MPI_Bcast(&verdict, 1, MPI_INT, 0, world);
    for (int i = 0; i < n; i++)
        free(nodes[i].report_json);
    free(nodes);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return verdict;
}
