/* Helpers shared by the fuzz harnesses (tests/fuzz/fuzz_*.c).
 *
 * Every harness defines LLVMFuzzerTestOneInput. It is linked twice: with libFuzzer
 * (-DMEMBENCH_FUZZ=ON, clang) to search for crashes, and with replay_main.c into
 * fuzz_replay_<parser>, which ctest runs over the seed corpus and the crash regressions in
 * every build. A harness must therefore be deterministic, leave no state behind between
 * inputs, and say what went wrong through fuzz_fail() (abort) when a parser breaks one of its
 * promises (a reason on failure, values in range on success). */
#ifndef MEMBENCH_FUZZ_H
#define MEMBENCH_FUZZ_H

#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

__attribute__((noreturn, format(printf, 1, 2))) static inline void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz harness: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

#define FUZZ_CHECK(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) fuzz_fail(__VA_ARGS__);                                                       \
    } while (0)

/* A NUL-terminated copy of the input (which may itself contain NULs); free() it. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) abort();
    if (size) memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* Splits data at every separator byte: calls each(piece, len, index, ctx) in order, at most
 * max pieces (the last one keeps the rest). Returns the number of pieces. */
static inline int fuzz_split(const uint8_t *data, size_t size, uint8_t sep, int max,
                             void (*each)(const uint8_t *, size_t, int, void *), void *ctx)
{
    int n = 0;
    size_t start = 0;
    for (size_t i = 0; i <= size && n < max; i++) {
        if (i < size && (data[i] != sep || n == max - 1)) continue;
        each(data + start, i - start, n++, ctx);
        start = i + 1;
    }
    return n;
}

static inline int fuzz_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    if (ftw->level > 0) remove(path);
    return 0;
}

/* Empties a directory (everything under it, not the directory itself). */
static inline void fuzz_empty_dir(const char *dir)
{
    nftw(dir, fuzz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static char fuzz_dir_path[256];

static inline void fuzz_remove_dir(void)
{
    if (!fuzz_dir_path[0]) return;
    fuzz_empty_dir(fuzz_dir_path);
    rmdir(fuzz_dir_path);
}

/* A private scratch directory for this process under $TMPDIR (or /tmp), removed at exit. */
static inline const char *fuzz_dir(void)
{
    if (fuzz_dir_path[0]) return fuzz_dir_path;
    const char *tmp = getenv("TMPDIR");
    snprintf(fuzz_dir_path, sizeof(fuzz_dir_path), "%s/membench-fuzz-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(fuzz_dir_path)) fuzz_fail("mkdtemp %s: %s", fuzz_dir_path, strerror(errno));
    atexit(fuzz_remove_dir);
    return fuzz_dir_path;
}

/* Writes exactly len bytes to path, replacing it. */
static inline void fuzz_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) fuzz_fail("cannot create %s: %s", path, strerror(errno));
    if (len && fwrite(data, 1, len, f) != len) fuzz_fail("cannot write %s", path);
    if (fclose(f) != 0) fuzz_fail("cannot close %s", path);
}

/* dir/name, creating the directories on the way (name may contain '/'). */
static inline void fuzz_path(char *buf, size_t len, const char *dir, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
    for (char *p = buf + strlen(dir) + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        mkdir(buf, 0755);
        *p = '/';
    }
}

/* The input as one file in the scratch directory; returns its path. */
static inline const char *fuzz_input_file(const uint8_t *data, size_t size)
{
    static char path[300];
    snprintf(path, sizeof(path), "%s/input", fuzz_dir());
    fuzz_write_file(path, data, size);
    return path;
}

/* A reason was given: non-empty and NUL-terminated within the buffer. */
static inline void fuzz_check_reason(const char *what, const char *why, size_t len)
{
    FUZZ_CHECK(memchr(why, '\0', len) != NULL, "%s: reason not terminated", what);
    FUZZ_CHECK(why[0] != '\0', "%s failed without a reason", what);
}

/* Valid UTF-8 (what jansson accepts: no overlong forms, surrogates or values past U+10FFFF). */
static inline int fuzz_valid_utf8(const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    while (*s) {
        unsigned c = *s++, n, min;
        if (c < 0x80) continue;
        if (c >= 0xC2 && c <= 0xDF)
            n = 1, min = 0x80, c &= 0x1F;
        else if (c >= 0xE0 && c <= 0xEF)
            n = 2, min = 0x800, c &= 0x0F;
        else if (c >= 0xF0 && c <= 0xF4)
            n = 3, min = 0x10000, c &= 0x07;
        else
            return 0;
        for (; n; n--, s++) {
            if ((*s & 0xC0) != 0x80) return 0;
            c = c << 6 | (*s & 0x3F);
        }
        if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
    }
    return 1;
}

/* Runs fn with stdout and stderr (the FILE streams, not the descriptors: sanitizer and
 * libFuzzer reports still get through) pointed at /dev/null. */
static inline void fuzz_quietly(void (*fn)(void *), void *ctx)
{
    static FILE *devnull;
    if (!devnull && !(devnull = fopen("/dev/null", "w"))) abort();
    FILE *out = stdout, *err = stderr;
    stdout = devnull;
    stderr = devnull;
    fn(ctx);
    fflush(devnull);
    stdout = out;
    stderr = err;
}

#endif
