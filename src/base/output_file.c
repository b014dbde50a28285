#include "src/base/output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/base/log.h"

/* Short and fixed, so a file name up to NAME_MAX still has room for its temporary. */
#define TEMP_NAME ".membench.XXXXXX"
#define MAX_LINKS 40

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return strdup(".");
    if (slash == path) return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

static const char *base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The descriptor that /dev/fd/N, /proc/self/fd/N or /proc/thread-self/fd/N names, or -1. */
static int named_descriptor(const char *p)
{
    static const char *const prefixes[] = {"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"};
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
        size_t n = strlen(prefixes[i]);
        if (strncmp(p, prefixes[i], n) != 0 || p[n] < '0' || p[n] > '9') continue;
        char *end;
        errno = 0;
        long fd = strtol(p + n, &end, 10);
        if (*end == '\0' && errno == 0 && fd <= INT_MAX) return (int)fd;
    }
    return -1;
}

/* Follows the symbolic links that path ends in: *target is what they lead to (it may not exist
 * yet), *fd a descriptor they name (/dev/stdout) or -1. 0, or an errno value. */
static int resolve(const char *path, char **target, int *fd)
{
    char *p = strdup(path);
    *fd = -1;
    for (int hops = 0; p; hops++) {
        if ((*fd = named_descriptor(p)) >= 0) break;
        struct stat st;
        if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode)) break;
        char link[PATH_MAX];
        ssize_t n = hops < MAX_LINKS ? readlink(p, link, sizeof(link) - 1) : -1;
        if (n < 0) {
            int err = hops < MAX_LINKS ? errno : ELOOP;
            free(p);
            return err;
        }
        link[n] = '\0';
        char *dir = link[0] == '/' ? NULL : dir_of(p), *next = NULL;
        if (link[0] == '/')
            next = strdup(link);
        else if (!dir || asprintf(&next, "%s/%s", dir, link) < 0)
            next = NULL;
        free(dir);
        free(p);
        p = next;
    }
    if (!p) return ENOMEM;
    *target = p;
    return 0;
}

static int fail(struct output_file *out, int status, const char *path, const char *why,
                const char *fix)
{
    log_error("cannot write '%.200s': %s; %s", path, why, fix);
    output_abort(out);
    return status;
}

static bool writable(const char *path)
{
    return faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0;
}

int output_prepare(struct output_file *out, const char *path)
{
    memset(out, 0, sizeof(*out));
    if (!path || strcmp(path, "-") == 0) return EXIT_OK;
    static const char *const writable_path = "choose a writable path";
    out->name = strdup(path);
    int fd = -1, err = out->name ? resolve(path, &out->target, &fd) : ENOMEM;
    if (err) return fail(out, EXIT_USAGE, path, strerror(err), writable_path);
    if (fd >= 0) {
        out->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (out->fd < 0) return fail(out, EXIT_USAGE, path, strerror(errno), "open it first");
        out->has_fd = true;
        return EXIT_OK;
    }
    struct stat st;
    if (stat(out->target, &st) != 0) {
        if (errno != ENOENT) return fail(out, EXIT_USAGE, path, strerror(errno), writable_path);
        char *dir = dir_of(out->target);
        err = !dir ? ENOMEM : writable(dir) ? 0 : errno;
        free(dir);
        return err ? fail(out, EXIT_USAGE, path, strerror(err), writable_path) : EXIT_OK;
    }
    if (S_ISDIR(st.st_mode))
        return fail(out, EXIT_USAGE, path, "it is a directory", "give a file name");
    if (S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode))
        return fail(out, EXIT_USAGE, path,
                    S_ISBLK(st.st_mode) ? "it is a block device" : "it is a socket",
                    "give a file, a character device or a FIFO");
    if (!S_ISREG(st.st_mode)) { /* written through, opened now: a FIFO must have a reader */
        out->fd = open(out->target, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (out->fd < 0 && errno == ENXIO && S_ISFIFO(st.st_mode))
            return fail(out, EXIT_RESOURCE, path, "no process is reading this FIFO",
                        "start its reader first");
        if (out->fd < 0) return fail(out, EXIT_USAGE, path, strerror(errno), writable_path);
        out->has_fd = true;
        int flags = fcntl(out->fd, F_GETFL);
        if (flags >= 0) fcntl(out->fd, F_SETFL, flags & ~O_NONBLOCK);
        return EXIT_OK;
    }
    out->old = st;
    out->have_old = true;
    char *dir = dir_of(out->target);
    /* another user's file: a rename would make it ours, so it is rewritten in place */
    out->in_place = !dir || !writable(dir) || (geteuid() != 0 && st.st_uid != geteuid());
    free(dir);
    if (out->in_place && !writable(out->target))
        return fail(out, EXIT_USAGE, path, strerror(errno), writable_path);
    return EXIT_OK;
}

static int open_in_place(struct output_file *out)
{
    out->in_place = true;
    return open(out->target, O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC);
}

/* The temporary file beside the target, with the old file's owner and mode (or 0666 less the
 * umask for a new file); when the owner cannot be kept, the target itself, rewritten. */
static int create_temp(struct output_file *out)
{
    char *dir = dir_of(out->target);
    if (!dir || asprintf(&out->temp_path, "%s/" TEMP_NAME, dir) < 0) out->temp_path = NULL;
    free(dir);
    if (!out->temp_path) {
        errno = ENOMEM;
        return -1;
    }
    int fd = mkostemp(out->temp_path, O_CLOEXEC);
    if (fd < 0) {
        free(out->temp_path);
        out->temp_path = NULL;
        return -1;
    }
    mode_t mode;
    if (out->have_old) {
        if (fchown(fd, out->old.st_uid, out->old.st_gid) != 0) { /* e.g. a group we are not in */
            close(fd);
            unlink(out->temp_path);
            free(out->temp_path);
            out->temp_path = NULL;
            return open_in_place(out);
        }
        mode = out->old.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask; /* mkstemp creates 0600; the report is an ordinary file */
    }
    fchmod(fd, mode);
    return fd;
}

int output_begin(struct output_file *out)
{
    if (out->stream) return 0;
    if (!out->name) {
        out->stream = stdout;
        return 0;
    }
    int fd = out->has_fd ? out->fd : -1;
    out->has_fd = false;
    if (fd < 0) fd = out->in_place ? open_in_place(out) : create_temp(out);
    if (fd >= 0 && !(out->stream = fdopen(fd, "w"))) close(fd);
    if (!out->stream) {
        log_error("cannot write '%.200s': %s", out->name, strerror(errno));
        output_abort(out);
        return -1;
    }
    return 0;
}

int output_open_memory(struct output_file *out, char **buf, size_t *len)
{
    memset(out, 0, sizeof(*out));
    out->stream = open_memstream(buf, len);
    if (!out->stream) {
        log_error("out of memory for the report");
        return -1;
    }
    out->in_memory = true;
    return 0;
}

int output_commit(struct output_file *out, int write_rc)
{
    int err = errno; /* a writer that failed left its reason here */
    if (out->in_memory) {
        int failed = fclose(out->stream) != 0 || write_rc != 0;
        out->stream = NULL;
        return failed ? -1 : 0;
    }
    bool failed = write_rc != 0 || ferror(out->stream);
    clearerr(out->stream);
    if (fflush(out->stream) != 0) {
        failed = true;
        err = errno; /* what is still buffered fails again, with the real reason */
    }
    if (!failed && (out->temp_path || out->in_place) && fsync(fileno(out->stream)) != 0) {
        failed = true;
        err = errno;
    }
    if (out->stream != stdout) {
        if (fclose(out->stream) != 0 && !failed) {
            failed = true;
            err = errno;
        }
        out->stream = NULL;
    }
    if (!failed && out->temp_path && rename(out->temp_path, out->target) != 0) {
        failed = true;
        err = errno;
    }
    if (failed) {
        log_error("writing %s%.200s%s failed: %s%s", out->name ? "'" : "",
                  out->name ? out->name : "the report to stdout", out->name ? "'" : "",
                  strerror(err ? err : EIO),
                  out->temp_path ? "; the previous file (if any) is unchanged" : "");
        output_abort(out);
        return -1;
    }
    output_abort(out); /* frees the names; the temporary is gone (renamed) */
    return 0;
}

void output_abort(struct output_file *out)
{
    if (out->stream && out->stream != stdout) fclose(out->stream); /* memory: frees nothing */
    if (out->has_fd) close(out->fd);
    if (out->temp_path) unlink(out->temp_path);
    free(out->temp_path);
    free(out->target);
    free(out->name);
    memset(out, 0, sizeof(*out));
}

/* path's resolved name with its directory made absolute, for files that do not exist yet. */
static char *canonical(const char *path)
{
    char *target = NULL, *dir = NULL, *real = NULL, *out = NULL;
    int fd;
    if (resolve(path, &target, &fd) != 0) return NULL;
    if (fd >= 0 || !(dir = dir_of(target)) || !(real = realpath(dir, NULL)) ||
        asprintf(&out, "%s/%s", real, base_of(target)) < 0)
        out = fd >= 0 ? NULL : strdup(target);
    free(target);
    free(dir);
    free(real);
    return out;
}

bool output_same_file(const char *a, const char *b)
{
    bool a_out = !a || strcmp(a, "-") == 0, b_out = !b || strcmp(b, "-") == 0;
    if (a_out || b_out) return a_out && b_out;
    struct stat sa, sb;
    bool has_a = stat(a, &sa) == 0, has_b = stat(b, &sb) == 0;
    if (has_a && has_b) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (has_a || has_b) return false;
    char *ca = canonical(a), *cb = canonical(b);
    bool same = ca && cb && strcmp(ca, cb) == 0;
    free(ca);
    free(cb);
    return same;
}
