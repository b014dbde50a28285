#ifndef MEMBENCH_OUTPUT_FILE_H
#define MEMBENCH_OUTPUT_FILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

/* A report destination. A regular file (symbolic links followed) is never written in place: a
 * temporary file beside it, created only when the report is ready, gets the old file's mode
 * (and its owner and group where the system allows) and is renamed over it when complete.
 * Anything else (a character device such as /dev/null, a FIFO, a descriptor named by
 * /dev/stdout or /dev/fd/N) is written through, never replaced. output_prepare checks before
 * measuring that the path can be replaced so (its directory writable, not a mount point, not
 * another user's file in a sticky directory, space left) and creates nothing. */
struct output_file {
    FILE *stream;
    char *name;      /* as given, for messages; NULL for stdout */
    char *target;    /* the file a regular-file report replaces or creates */
    char *temp_path; /* the temporary file, while the report is written */
    int fd;          /* written through: opened by output_prepare (has_fd) */
    bool has_fd;
    bool have_old;
    bool in_memory;
    struct stat old; /* the file replaced, when have_old */
};

/* EXIT_OK, or EXIT_USAGE / EXIT_RESOURCE after one error line. NULL or "-" is stdout. */
int output_prepare(struct output_file *out, const char *path);
/* When the report is ready: out->stream is where it goes. 0, or -1 after an error line. */
int output_begin(struct output_file *out);
/* A report kept in memory (cluster runs send it to rank 0); *buf is valid after commit. */
int output_open_memory(struct output_file *out, char **buf, size_t *len);
/* write_rc: the writer's result (nonzero: it failed). Flushes, syncs and renames; 0, or -1
 * after one error line naming the file (or stdout) and the errno text. */
int output_commit(struct output_file *out, int write_rc);
void output_abort(struct output_file *out);

/* Whether two paths write into the same file: the same inode when both exist (symbolic and
 * hard links included), else the same resolved path. "-" is whatever descriptor 1 is, so
 * /dev/stdout, /dev/fd/1 and a file stdout is redirected to are the same as "-". */
bool output_same_file(const char *a, const char *b);

#endif
