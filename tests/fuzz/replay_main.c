/* fuzz_replay_<parser>: runs one fuzz harness over files, without libFuzzer.
 *
 *   fuzz_replay_size tests/fuzz/corpus/size tests/fuzz/regressions/size some-crash-file
 *
 * Each argument is a file or a directory of files (not recursive; names starting with '.' are
 * skipped); a missing directory counts as empty, so a parser without regressions needs none.
 * Every input goes through LLVMFuzzerTestOneInput exactly as the fuzzer would pass it; a
 * crash, a sanitizer report or a broken harness check ends the program abnormally. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz.h"

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "fuzz_replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            uint8_t *bigger = realloc(buf, cap *= 2);
            if (!bigger) free(buf);
            buf = bigger;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        fprintf(stderr, "fuzz_replay: cannot read %s\n", path);
        free(buf);
        return -1;
    }
    /* an exact-size copy, so that ASan sees a read past the input as one */
    uint8_t *input = malloc(len ? len : 1);
    if (!input) abort();
    memcpy(input, buf, len);
    free(buf);
    fprintf(stderr, "fuzz_replay: %s\n", path); /* the culprit, should it crash */
    LLVMFuzzerTestOneInput(input, len);
    free(input);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir, int *count)
{
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT) return 0;
        fprintf(stderr, "fuzz_replay: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char **more = realloc(names, (n + 1) * sizeof(*names));
        if (!more) abort();
        names = more;
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof(*names), by_name); /* the same order on every run */
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            if (replay_file(path) != 0)
                rc = -1;
            else
                ++*count;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    int count = 0, rc = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISREG(st.st_mode)) {
            if (replay_file(argv[i]) != 0)
                rc = 1;
            else
                count++;
        } else if (replay_dir(argv[i], &count) != 0) {
            rc = 1;
        }
    }
    printf("fuzz_replay: %d input%s replayed%s\n", count, count == 1 ? "" : "s",
           rc ? ", some unreadable" : "");
    return rc;
}
