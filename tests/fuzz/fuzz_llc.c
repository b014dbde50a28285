/* The cache description of sysfs (/sys/devices/system/cpu): llc_from_sysfs over a tree built
 * from the input. Input: lines, six per cache: the CPU directory name (e.g. cpu0), the index
 * number, then the contents of level, type, size and shared_cpu_list; "-" leaves that file
 * out. A '/' in a name becomes '_'. */
#include "affinity/topology.h"
#include "tests/fuzz/fuzz.h"

#define MAX_LINES (6 * 48)

struct tree {
    const char *root;
    char *lines[MAX_LINES];
    int n;
};

static void take_line(const uint8_t *piece, size_t len, int index, void *ctx)
{
    struct tree *t = ctx;
    (void)index;
    t->lines[t->n++] = fuzz_cstr(piece, len);
}

static void add_cache(const struct tree *t, char *const *f)
{
    char name[64];
    snprintf(name, sizeof(name), "%s", f[0]);
    for (char *p = name; *p; p++)
        if (*p == '/') *p = '_';
    if (!name[0] || !strcmp(name, ".") || !strcmp(name, "..")) snprintf(name, sizeof(name), "cpu");
    static const char *const files[] = {"level", "type", "size", "shared_cpu_list"};
    for (int i = 0; i < 4; i++) {
        if (!strcmp(f[2 + i], "-")) continue;
        char rel[200], path[600];
        snprintf(rel, sizeof(rel), "%s/cache/index%d/%s", name, abs(atoi(f[1]) % 8), files[i]);
        fuzz_path(path, sizeof(path), t->root, rel);
        fuzz_write_file(path, f[2 + i], strlen(f[2 + i]));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char root[300];
    snprintf(root, sizeof(root), "%s/cpu", fuzz_dir());
    fuzz_empty_dir(root);
    mkdir(root, 0755);
    struct tree t = {.root = root};
    fuzz_split(data, size, '\n', MAX_LINES, take_line, &t);
    for (int i = 0; i + 6 <= t.n; i += 6)
        add_cache(&t, &t.lines[i]);
    int level = -7, count = -7;
    uint64_t bytes = 7;
    if (llc_from_sysfs(root, &level, &count, &bytes) == 0)
        FUZZ_CHECK(level >= 1 && count >= 1 && bytes > 0, "LLC level %d, %d instances, %llu B",
                   level, count, (unsigned long long)bytes);
    else
        FUZZ_CHECK(level == -7 && count == -7 && bytes == 7, "failed but wrote results");
    for (int i = 0; i < t.n; i++)
        free(t.lines[i]);
    return 0;
}
