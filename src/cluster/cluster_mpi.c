/* Cluster runs over MPI: one benchmark per node (or per rank), one table at rank 0.
 *
 * The protocol, all point-to-point and polled with a nap between tests so that waiting ranks
 * use no CPU: every rank sends rank 0 a hello (leader flag, host, resolved profile, options
 * and environment texts); rank 0 answers each with the start word (go, or the exit status
 * when the options, a measuring rank's environment or profile differ, or -o cannot be
 * written) and its leader flag; the leaders measure and send rank 0 their exit
 * status, last error line and JSON report; rank 0 measures as a leader itself, then collects
 * the reports until the deadline (--time-limit + CLUSTER_GRACE_S, none without a limit),
 * writes the table and sends every rank the verdict. A node still silent at the deadline
 * gets a FAIL row, and rank 0 ends the job with MPI_Abort (its ranks could never join
 * MPI_Finalize). */
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/cluster/cluster.h"
#include "src/node/node.h"
#include "src/cli/option_values.h"
#include "src/cluster/cluster_env.h"
#include "src/cluster/cluster_options.h"
#include "src/base/interrupt.h"
#include "src/base/log.h"
#include "src/base/output_file.h"
#include "src/base/parse.h"
#include "src/base/test_hooks.h"
#include "src/base/clock.h"
#include "src/sys/sysinfo.h"

/* A node may overrun --time-limit by what the limit cannot cut: its first touch and two
 * repetitions (tens of seconds on a node with large caches). */
#define CLUSTER_GRACE_S 30.0
#define NAP_NS 5000000L /* between two tests of a pending message */

extern char **environ; /* what each rank's environment text is made of */

enum { TAG_HELLO = 1, TAG_START, TAG_REPORT, TAG_VERDICT };

/* followed by options_len bytes of options_describe() and env_len of environment_describe() */
struct hello {
    int leader;
    char host[256]; /* as struct sys_info holds it */
    struct rank_profile profile;
    int options_len, env_len;
};

struct report_head {
    int exit_code;
    int error_len;
};

bool cluster_launched(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK",
                                       "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
        if (getenv(vars[i])) return true;
    return false;
}

static void nap(void)
{
    struct timespec ts = {0, NAP_NS};
    nanosleep(&ts, NULL);
}

static void wait_for(MPI_Request *req)
{
    int done = 0;
    while (MPI_Test(req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
        nap();
}

static void send_bytes(const void *buf, size_t len, int dest, int tag, MPI_Comm world)
{
    MPI_Request req;
    MPI_Isend(buf, (int)len, MPI_BYTE, dest, tag, world, &req);
    wait_for(&req);
}

static void receive_bytes(void *buf, size_t len, int tag, MPI_Comm world)
{
    MPI_Request req;
    MPI_Irecv(buf, (int)len, MPI_BYTE, 0, tag, world, &req);
    wait_for(&req);
}

/* Rank 0: one message with this tag from every rank r with want[r], until the deadline
 * (0 = none). msg[r] (NUL-terminated, malloc'd) and len[r]; returns how many did not come. */
static int collect(MPI_Comm world, int tag, const bool *want, int size, double deadline, char **msg,
                   int *len)
{
    int missing = 0;
    for (int r = 0; r < size; r++)
        missing += want[r] && !msg[r];
    while (missing > 0) {
        int flag = 0, n = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, tag, world, &flag, &st);
        if (!flag) {
            if (deadline > 0 && timer_now() > deadline) break;
            nap();
            continue;
        }
        MPI_Get_count(&st, MPI_BYTE, &n);
        char *buf = malloc((size_t)n + 1);
        if (!buf) MPI_Abort(world, EXIT_RESOURCE);
        MPI_Recv(buf, n, MPI_BYTE, st.MPI_SOURCE, tag, world, MPI_STATUS_IGNORE);
        buf[n] = '\0';
        int r = st.MPI_SOURCE;
        if (want[r] && !msg[r]) {
            msg[r] = buf;
            len[r] = n;
            missing--;
        } else {
            free(buf);
        }
    }
    return missing;
}

/* The shared state of one cluster run. */
struct cluster {
    MPI_Comm world;
    int rank, size;
    double deadline; /* rank 0: when it stops waiting for reports; 0 = never */
    double wait_s;
    struct hello *hellos; /* rank 0: every rank's */
    int *leaders;         /* rank 0: whether each rank measures (and reports) */
};

static void free_all(char **msg, int n)
{
    for (int i = 0; i < n; i++)
        free(msg[i]);
    free(msg);
}

/* A hello's two texts, NUL-terminated copies (malloc'd); false when the hello is malformed. */
static bool hello_texts(const char *msg, int len, struct hello *h, char **options, char **env)
{
    if ((size_t)len < sizeof(*h)) return false;
    memcpy(h, msg, sizeof(*h));
    h->host[sizeof(h->host) - 1] = '\0';
    h->profile.threads_from[sizeof(h->profile.threads_from) - 1] = '\0';
    h->profile.topology[sizeof(h->profile.topology) - 1] = '\0';
    if (h->options_len < 0 || h->env_len < 0 ||
        (size_t)len - sizeof(*h) != (size_t)h->options_len + (size_t)h->env_len)
        return false;
    *options = strndup(msg + sizeof(*h), (size_t)h->options_len);
    *env = strndup(msg + sizeof(*h) + h->options_len, (size_t)h->env_len);
    return *options && *env;
}

/* Rank 0: a rank's options, and a measuring rank's environment (first: MEMBENCH_ISA also sets
 * --isa) and resolved profile, against its own. */
static int compare_rank(const struct cluster *c, int r, bool measures, const char *options,
                        const char *env, const char *my_options, const char *my_env)
{
    char a[640], b[640];
    if (measures && environment_difference(env, my_env, b, sizeof(b), a, sizeof(a))) {
        log_error("rank %d (%s) was launched with %s but rank 0 with %s: launch every rank with "
                  "the same environment (mpirun -x NAME=value, srun --export=ALL,NAME=value)",
                  r, c->hellos[r].host, b, a);
        return EXIT_USAGE;
    }
    if (options_difference(options, my_options, b, sizeof(b), a, sizeof(a))) {
        log_error("rank %d was given %s but rank 0 %s: give every rank the same options", r, b, a);
        return EXIT_USAGE;
    }
    if (measures && profile_difference(&c->hellos[r].profile, &c->hellos[0].profile, b, sizeof(b),
                                       a, sizeof(a))) {
        log_error("rank %d (%s) resolves %s but rank 0 %s: give every rank the same options and "
                  "the same environment",
                  r, c->hellos[r].host, b, a);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* Rank 0: the hellos in, the leaders chosen, and the first rank whose options, or (a leader)
 * environment or profile differ from its own named. Ranks that only wait measure nothing:
 * their environment and profile change nothing and are not compared. */
static int check_hellos(struct cluster *c, const struct options *opts, const char *mine,
                        const char *my_env, char **msg, int *len, int *leader)
{
    char **options = calloc((size_t)c->size, sizeof(char *)),
         **env = calloc((size_t)c->size, sizeof(char *));
    if (!options || !env) MPI_Abort(c->world, EXIT_RESOURCE);
    int rc = EXIT_OK;
    for (int r = 1; r < c->size && rc == EXIT_OK; r++)
        if (!hello_texts(msg[r], len[r], &c->hellos[r], &options[r], &env[r])) {
            log_error("rank %d sent rank 0 a short hello: run the same membench on every rank", r);
            rc = EXIT_USAGE;
        }
    for (int r = 0; r < c->size && rc == EXIT_OK; r++) {
        leader[r] = c->hellos[r].leader;
        if (test_hooks && (test_hooks->hostname || test_hooks->group_by_hostname)) {
            /* the first rank of each name leads */
            leader[r] = 1;
            for (int q = 0; q < r && !opts->mpi_per_rank; q++)
                if (strcmp(c->hellos[q].host, c->hellos[r].host) == 0) leader[r] = 0;
        }
    }
    for (int r = 1; r < c->size && rc == EXIT_OK; r++)
        rc = compare_rank(c, r, leader[r], options[r], env[r], mine, my_env);
    free_all(options, c->size);
    free_all(env, c->size);
    char why[400];
    if (rc == EXIT_OK && cluster_refusal(opts, why, sizeof(why)) != 0) {
        log_error("%s", why);
        rc = EXIT_USAGE;
    }
    return rc;
}

/* The startup exchange; returns EXIT_OK with *leader set, or the status every rank exits with
 * before measuring. */
static int start(struct cluster *c, const struct options *opts, int shared_leader, int *leader,
                 struct output_file *out)
{
    struct hello me = {.leader = shared_leader};
    sysinfo_hostname(me.host, sizeof(me.host)); /* the name its report would give */
    bool may_lead =
        shared_leader || (test_hooks && (test_hooks->hostname || test_hooks->group_by_hostname));
    if (may_lead) /* a topology load: not on the ranks that will only wait */
        rank_profile_read(opts, &me.profile);
    char *fp = options_describe(opts), *env = environment_describe(environ);
    if (!fp || !env) MPI_Abort(c->world, EXIT_RESOURCE);
    int word[2] = {EXIT_OK, shared_leader};
    if (c->rank != 0) {
        size_t n = strlen(fp), e = strlen(env);
        me.options_len = (int)n;
        me.env_len = (int)e;
        char *buf = malloc(sizeof(me) + n + e);
        if (!buf || n + e > 0x7fff0000) MPI_Abort(c->world, EXIT_RESOURCE);
        memcpy(buf, &me, sizeof(me));
        memcpy(buf + sizeof(me), fp, n);
        memcpy(buf + sizeof(me) + n, env, e);
        send_bytes(buf, sizeof(me) + n + e, 0, TAG_HELLO, c->world);
        free(buf);
        free(fp);
        free(env);
        receive_bytes(word, sizeof(word), TAG_START, c->world);
        *leader = word[1];
        return word[0];
    }
    c->hellos = calloc((size_t)c->size, sizeof(*c->hellos));
    char **msg = calloc((size_t)c->size, sizeof(char *));
    int *len = calloc((size_t)c->size, sizeof(int)),
        *leaders = calloc((size_t)c->size, sizeof(int));
    bool *want = calloc((size_t)c->size, sizeof(bool));
    if (!c->hellos || !msg || !len || !leaders || !want) MPI_Abort(c->world, EXIT_RESOURCE);
    c->hellos[0] = me;
    for (int r = 1; r < c->size; r++)
        want[r] = true;
    int missing = collect(c->world, TAG_HELLO, want, c->size, c->deadline, msg, len);
    if (missing > 0) {
        log_error("%d rank%s did not start within %.0f s; check the launcher and the nodes",
                  missing, missing == 1 ? "" : "s", c->wait_s);
        MPI_Abort(c->world, EXIT_RESOURCE);
    }
    int rc = check_hellos(c, opts, fp, env, msg, len, leaders);
    if (rc == EXIT_OK) rc = output_prepare(out, opts->output);
    free_all(msg, c->size);
    free(len);
    free(want);
    free(fp);
    free(env);
    MPI_Request *reqs = calloc((size_t)c->size, sizeof(MPI_Request));
    int(*words)[2] = calloc((size_t)c->size, sizeof(*words));
    if (!reqs || !words) MPI_Abort(c->world, EXIT_RESOURCE);
    for (int r = 1; r < c->size; r++) {
        words[r][0] = rc;
        words[r][1] = leaders[r];
        MPI_Isend(words[r], sizeof(words[r]), MPI_BYTE, r, TAG_START, c->world, &reqs[r]);
    }
    for (int r = 1; r < c->size; r++)
        wait_for(&reqs[r]);
    *leader = leaders[0];
    c->leaders = leaders;
    free(reqs);
    free(words);
    return rc;
}

/* A leader other than rank 0: its exit status, last error line and report to rank 0. */
static void send_report(struct cluster *c, int rc, const char *json, size_t len)
{
    const char *error = rc != EXIT_OK ? log_last_error() : "";
    struct report_head head = {rc, (int)strlen(error)};
    size_t total = sizeof(head) + (size_t)head.error_len + len;
    char *buf = malloc(total);
    if (!buf) MPI_Abort(c->world, EXIT_RESOURCE);
    memcpy(buf, &head, sizeof(head));
    memcpy(buf + sizeof(head), error, (size_t)head.error_len);
    if (len) memcpy(buf + sizeof(head) + head.error_len, json, len);
    if (test_hooks && test_hooks->stop_before_report) raise(SIGSTOP);
    send_bytes(buf, total, 0, TAG_REPORT, c->world);
    free(buf);
}

/* A node's row from what its leader sent (or did not send). */
static void summarize(const struct cluster *c, int r, int rc, const char *error, const char *json,
                      bool arrived, struct node_summary *s)
{
    if (!arrived) {
        memset(s, 0, sizeof(*s));
        s->rank = r;
        s->exit_code = EXIT_FAILED;
        snprintf(s->error, sizeof(s->error), "no report within %.0f s", c->wait_s);
    } else {
        node_summary_parse(json, r, rc, s);
        if ((rc > EXIT_FAILED && rc != EXIT_INCONCLUSIVE) || !s->report_json) {
            if (error && *error)
                snprintf(s->error, sizeof(s->error), "%s", error);
            else if (rc > 128)
                snprintf(s->error, sizeof(s->error), "interrupted by %s", interrupt_name(rc - 128));
            utf8_trim_partial(s->error);
        }
    }
    if (!s->report_json || !arrived) snprintf(s->host, sizeof(s->host), "%s", c->hellos[r].host);
    utf8_trim_partial(s->host);
}

/* Rank 0: every leader's report (its own first), until the deadline. */
static struct node_summary *gather(struct cluster *c, const int *leader, int rc, const char *json,
                                   int *n_nodes, int *missing)
{
    char **msg = calloc((size_t)c->size, sizeof(char *));
    int *len = calloc((size_t)c->size, sizeof(int));
    bool *want = calloc((size_t)c->size, sizeof(bool));
    struct node_summary *nodes = calloc((size_t)c->size, sizeof(*nodes));
    if (!msg || !len || !want || !nodes) MPI_Abort(c->world, EXIT_RESOURCE);
    for (int r = 1; r < c->size; r++)
        want[r] = leader[r];
    *missing = collect(c->world, TAG_REPORT, want, c->size, c->deadline, msg, len);
    *n_nodes = 0;
    for (int r = 0; r < c->size; r++) {
        if (!leader[r]) continue;
        struct node_summary *s = &nodes[(*n_nodes)++];
        if (r == 0) {
            summarize(c, 0, rc, rc != EXIT_OK ? log_last_error() : "", json, true, s);
            continue;
        }
        struct report_head head = {0, 0};
        bool arrived = msg[r] && (size_t)len[r] >= sizeof(head);
        if (arrived) memcpy(&head, msg[r], sizeof(head));
        if (arrived && (head.error_len < 0 || (size_t)head.error_len > len[r] - sizeof(head)))
            arrived = false;
        char error[LOG_LINE_MAX] = "";
        const char *text = "";
        if (arrived) {
            snprintf(error, sizeof(error), "%.*s", head.error_len, msg[r] + sizeof(head));
            text = msg[r] + sizeof(head) + head.error_len;
        }
        summarize(c, r, head.exit_code, error, text, arrived, s);
    }
    free_all(msg, c->size);
    free(len);
    free(want);
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
    return cluster_exit_status(nodes, n);
}

/* Rank 0 after measuring: the table, then the verdict to every rank, or MPI_Abort when a
 * node never reported (its ranks cannot finish). */
static int conclude(struct cluster *c, const struct options *opts, struct output_file *out, int rc,
                    const char *json)
{
    int n = 0, missing = 0;
    struct node_summary *nodes = gather(c, c->leaders, rc, json, &n, &missing);
    int verdict = write_cluster(opts, out, nodes, n);
    if (missing > 0) {
        for (int i = 0; i < n; i++)
            if (!nodes[i].report_json && strstr(nodes[i].error, "no report within"))
                log_error("no report from %s (rank %d) within %.0f s: the table is written and "
                          "the job ends here (MPI_Abort) with exit status %d",
                          nodes[i].host, nodes[i].rank, c->wait_s, verdict);
        fflush(NULL);
        MPI_Abort(c->world, verdict);
    }
    for (int i = 0; i < n; i++)
        free(nodes[i].report_json);
    free(nodes);
    MPI_Request *reqs = calloc((size_t)c->size, sizeof(MPI_Request));
    if (!reqs) MPI_Abort(c->world, verdict);
    for (int r = 1; r < c->size; r++)
        MPI_Isend(&verdict, 1, MPI_INT, r, TAG_VERDICT, c->world, &reqs[r]);
    for (int r = 1; r < c->size; r++)
        wait_for(&reqs[r]);
    free(reqs);
    return verdict;
}

int cluster_main(struct options *opts, int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    struct cluster c = {.world = MPI_COMM_WORLD};
    MPI_Comm_rank(c.world, &c.rank);
    MPI_Comm_size(c.world, &c.size);
    double limit = opts->time_limit_s > 0 ? opts->time_limit_s
                   : opts->acceptance     ? ACCEPTANCE_TIME_LIMIT_S
                                          : 0.0;
    c.wait_s = limit + (test_hooks && test_hooks->cluster_grace_s > 0 ? test_hooks->cluster_grace_s
                                                                      : CLUSTER_GRACE_S);
    c.deadline = limit > 0 ? timer_now() + c.wait_s : 0.0;
    MPI_Comm node; /* ranks that share memory are one node */
    int local = 0;
    MPI_Comm_split_type(c.world, MPI_COMM_TYPE_SHARED, c.rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    int leader = 0;
    struct output_file out = {0}; /* rank 0 writes the table: -o is checked before measuring */
    int rc = start(&c, opts, opts->mpi_per_rank || local == 0, &leader, &out);
    if (rc != EXIT_OK) {
        free(c.hellos);
        free(c.leaders);
        MPI_Finalize();
        return rc;
    }

    char *json = NULL;
    size_t len = 0;
    if (leader) {
        rc = node_main(opts, &json, &len);
        if (len > (size_t)0x7fffff00) len = 0;
    }
    int verdict = EXIT_OK;
    if (c.rank == 0) {
        verdict = conclude(&c, opts, &out, rc, json);
    } else {
        if (leader) send_report(&c, rc, json, len);
        receive_bytes(&verdict, sizeof(verdict), TAG_VERDICT, c.world);
    }
    free(json);
    free(c.hellos);
    free(c.leaders);
    MPI_Finalize();
    return verdict;
}
