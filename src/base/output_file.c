#include "src/base/output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
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

static bool is_stdout(const char *path)
{
    return !path || strcmp(path, "-") == 0;
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

/* Whether path is the root of a mount (a file bind-mounted over another): rename cannot
 * replace it. The same device as its directory is not enough: a bind mount from the same file
 * system keeps both. */
static bool mount_point(const char *path, const struct stat *st, const struct stat *dir)
{
    struct statx sx;
    if (statx(AT_FDCWD, path, 0, STATX_BASIC_STATS, &sx) == 0 &&
        (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT))
        return (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0;
    return st->st_dev != dir->st_dev;
}

/* Whether the file system has no block (or no inode) left for the temporary file; root may
 * use the blocks reserved for it. One that does not count them (some FUSE file systems) says
 * f_blocks or f_files 0: not full. */
static bool file_system_full(const char *dir)
{
    struct statvfs vfs;
    if (statvfs(dir, &vfs) != 0) return false;
    fsblkcnt_t blocks = geteuid() == 0 ? vfs.f_bfree : vfs.f_bavail;
    return (vfs.f_blocks > 0 && blocks == 0) || (vfs.f_files > 0 && vfs.f_favail == 0);
}

/* A report is never written into an existing file: it is written beside it and renamed over
 * it. EXIT_OK when that can work, else EXIT_RESOURCE (EXIT_USAGE for a missing or unwritable
 * directory of a new file) after one error line. st: the existing file, or NULL. */
static int check_replaceable(struct output_file *out, const char *path, const char *dir,
                             const struct stat *st)
{
    static const char *const elsewhere = "write the report elsewhere and copy it";
    struct stat ds;
    if (stat(dir, &ds) != 0 || faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) != 0) {
        int err = errno;
        if (err == EROFS)
            return fail(out, EXIT_RESOURCE, path, "its file system is read-only",
                        "choose a writable file system");
        if (!st) return fail(out, EXIT_USAGE, path, strerror(err), "choose a writable path");
        return fail(out, EXIT_RESOURCE, path,
                    "its directory is not writable, so no complete file can replace it "
                    "(membench never rewrites a file in place)",
                    elsewhere);
    }
    if (st && mount_point(out->target, st, &ds))
        return fail(out, EXIT_RESOURCE, path,
                    "it is a mount point (a bind mount), which rename cannot replace", elsewhere);
    if (st && (ds.st_mode & S_ISVTX) && geteuid() != 0 && st->st_uid != geteuid() &&
        ds.st_uid != geteuid())
        return fail(out, EXIT_RESOURCE, path,
                    "it belongs to another user in a sticky directory (like /tmp), so it "
                    "cannot be replaced",
                    "choose a file name of your own");
    if (file_system_full(dir))
        return fail(out, EXIT_RESOURCE, path, "no space left on its file system",
                    "free some space or choose another file system");
    return EXIT_OK;
}

int output_prepare(struct output_file *out, const char *path)
{
    memset(out, 0, sizeof(*out));
    if (is_stdout(path)) return EXIT_OK;
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
    bool exists = stat(out->target, &st) == 0;
    if (!exists && errno != ENOENT)
        return fail(out, EXIT_USAGE, path, strerror(errno), writable_path);
    if (exists && S_ISDIR(st.st_mode))
        return fail(out, EXIT_USAGE, path, "it is a directory", "give a file name");
    if (exists && (S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode)))
        return fail(out, EXIT_USAGE, path,
                    S_ISBLK(st.st_mode) ? "it is a block device" : "it is a socket",
                    "give a file, a character device or a FIFO");
    if (exists && !S_ISREG(st.st_mode)) { /* written through, opened now: a FIFO needs a reader */
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
    char *dir = dir_of(out->target);
    if (!dir) return fail(out, EXIT_USAGE, path, strerror(ENOMEM), writable_path);
    int status = check_replaceable(out, path, dir, exists ? &st : NULL);
    free(dir);
    if (status != EXIT_OK) return status;
    /* another user's file that we may not write is not ours to replace */
    if (exists && geteuid() != 0 && st.st_uid != geteuid() && !writable(out->target))
        return fail(out, EXIT_USAGE, path, strerror(errno), writable_path);
    if (exists) {
        out->old = st;
        out->have_old = true;
    }
    return EXIT_OK;
}

/* The temporary file beside the target, with the old file's mode, and its owner and group
 * where the system lets us give them (root, or a group we are in); or 0666 less the umask for
 * a new file. */
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
        if (fchown(fd, out->old.st_uid, out->old.st_gid) != 0) /* another user's file */
            (void)!fchown(fd, (uid_t)-1, out->old.st_gid);
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
    if (fd < 0) fd = create_temp(out);
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
    if (!failed && out->temp_path && fsync(fileno(out->stream)) != 0) {
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

/* What path writes into: "-" is descriptor 1, /dev/stdout and /dev/fd/N the descriptor they
 * name (a pipe or terminal has an inode too), anything else the file it resolves to. */
static bool identity(const char *path, struct stat *st)
{
    if (is_stdout(path)) return fstat(STDOUT_FILENO, st) == 0;
    char *target = NULL;
    int fd;
    if (resolve(path, &target, &fd) != 0) return false;
    bool found = fd >= 0 ? fstat(fd, st) == 0 : stat(target, st) == 0;
    free(target);
    return found;
}

bool output_same_file(const char *a, const char *b)
{
    if (is_stdout(a) && is_stdout(b)) return true;
    struct stat sa, sb;
    bool has_a = identity(a, &sa), has_b = identity(b, &sb);
    if (has_a && has_b) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (has_a || has_b || is_stdout(a) || is_stdout(b)) return false;
    char *ca = canonical(a), *cb = canonical(b);
    bool same = ca && cb && strcmp(ca, cb) == 0;
    free(ca);
    free(cb);
    return same;
}
