#ifndef MEMBENCH_TEST_SCRATCH_TREE_H
#define MEMBENCH_TEST_SCRATCH_TREE_H

/* A scratch directory under /tmp that stands in for /sys, /proc or a cgroup mount: made,
 * filled with files and removed. Include after cmocka.h. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* root (len bytes) becomes a new empty directory /tmp/membench-NAME-XXXXXX. Returns 0 or -1,
 * as a cmocka setup does. */
static inline int scratch_make(char *root, size_t len, const char *name)
{
    snprintf(root, len, "/tmp/membench-%s-XXXXXX", name);
    return mkdtemp(root) ? 0 : -1;
}

/* Removes root and all below it. Returns 0 or -1, as a cmocka teardown does. */
static inline int scratch_remove(const char *root)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

/* Every folder of path, path included (mkdir -p). */
static inline void scratch_dirs(const char *path)
{
    char buf[512];
    snprintf(buf, sizeof(buf), "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(buf, 0755);
            *p = '/';
        }
    mkdir(buf, 0755);
}

/* The file at path holds text. */
static inline void scratch_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

#endif
