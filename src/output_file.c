#include "src/output_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/log.h"

int output_open(struct output_file *out, const char *path)
{
    memset(out, 0, sizeof(*out));
    if (!path || strcmp(path, "-") == 0) {
        out->stream = stdout;
        return 0;
    }
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        log_error("cannot write '%.200s': it is a directory; give a file name", path);
        return -1;
    }
    size_t len = strlen(path) + sizeof(".tmp.XXXXXX");
    out->final_path = strdup(path);
    out->temp_path = malloc(len);
    if (!out->final_path || !out->temp_path) {
        log_error("out of memory");
        output_abort(out);
        return -1;
    }
    snprintf(out->temp_path, len, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(out->temp_path);
    if (fd < 0) {
        log_error("cannot write '%.200s': %s; choose a writable path", path, strerror(errno));
        free(out->temp_path);
        out->temp_path = NULL;
        output_abort(out);
        return -1;
    }
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask); /* mkstemp creates 0600; the report is an ordinary file */
    out->stream = fdopen(fd, "w");
    if (!out->stream) {
        close(fd);
        log_error("cannot write '%.200s': %s", path, strerror(errno));
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
    out->in_memory = 1;
    return 0;
}

int output_commit(struct output_file *out)
{
    if (out->in_memory) {
        int failed = fclose(out->stream) != 0;
        out->stream = NULL;
        return failed ? -1 : 0;
    }
    if (!out->final_path) {
        if (fflush(out->stream) != 0) {
            log_error("writing the report to stdout failed: %s", strerror(errno));
            return -1;
        }
        return 0;
    }
    int failed = fflush(out->stream) != 0 || fsync(fileno(out->stream)) != 0;
    failed |= fclose(out->stream) != 0;
    out->stream = NULL;
    if (failed || rename(out->temp_path, out->final_path) != 0) {
        log_error("writing '%.200s' failed: %s; the previous file (if any) is unchanged",
                  out->final_path, strerror(errno));
        output_abort(out);
        return -1;
    }
    free(out->temp_path);
    free(out->final_path);
    out->temp_path = out->final_path = NULL;
    return 0;
}

void output_abort(struct output_file *out)
{
    if (out->stream && out->stream != stdout) fclose(out->stream); /* memory: frees nothing */
    if (out->temp_path) unlink(out->temp_path);
    free(out->temp_path);
    free(out->final_path);
    memset(out, 0, sizeof(*out));
}
