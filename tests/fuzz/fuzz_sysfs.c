/* The hugetlb and THP files of sysfs, and the meminfo that goes with them: a tiny tree built
 * from the input, read by sysfs_selected_word, thp_mode_check, hugetlb_pool_read and
 * hugetlb_pool_check. Input: form-feed ('\f') separated file contents, in this order:
 *   kernel/mm/transparent_hugepage/enabled, meminfo, then under
 *   kernel/mm/hugepages/hugepages-2048kB: free_, nr_, resv_, surplus_, nr_overcommit_hugepages
 * A file the input does not reach is absent. */
#include "hugepages/pool.h"
#include "src/sys/sysinfo.h"
#include "tests/fuzz/fuzz.h"

static const char *const files[] = {
    "kernel/mm/transparent_hugepage/enabled",
    "meminfo",
    "kernel/mm/hugepages/hugepages-2048kB/free_hugepages",
    "kernel/mm/hugepages/hugepages-2048kB/nr_hugepages",
    "kernel/mm/hugepages/hugepages-2048kB/resv_hugepages",
    "kernel/mm/hugepages/hugepages-2048kB/surplus_hugepages",
    "kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages",
};
#define N_FILES (int)(sizeof(files) / sizeof(files[0]))

static void write_piece(const uint8_t *piece, size_t len, int index, void *ctx)
{
    char path[512];
    fuzz_path(path, sizeof(path), ctx, files[index]);
    fuzz_write_file(path, piece, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char root[300];
    snprintf(root, sizeof(root), "%s/sys", fuzz_dir());
    fuzz_empty_dir(root);
    mkdir(root, 0755);
    fuzz_split(data, size, '\f', N_FILES, write_piece, root);

    char path[512], word[32], tiny[4];
    snprintf(path, sizeof(path), "%s/%s", root, files[0]);
    if (sysfs_selected_word(path, word, sizeof(word)) == 0)
        FUZZ_CHECK(memchr(word, '\0', sizeof(word)), "word not terminated");
    if (sysfs_selected_word(path, tiny, sizeof(tiny)) == 0)
        FUZZ_CHECK(memchr(tiny, '\0', sizeof(tiny)), "word not terminated");

    char meminfo[512];
    snprintf(meminfo, sizeof(meminfo), "%s/meminfo", root);
    struct mem_env env = {root, meminfo};
    char why[1024] = "";
    if (thp_mode_check(&env, why, sizeof(why)) != 0) fuzz_check_reason("thp_mode_check", why, 1024);

    struct hugetlb_pool pool;
    if (hugetlb_pool_read(root, 2u << 20, &pool) == 0) (void)hugetlb_pool_available(&pool);
    static const size_t bytes[] = {1, 2u << 20, 1u << 30, (size_t)1 << 40};
    for (size_t i = 0; i < sizeof(bytes) / sizeof(bytes[0]); i++) {
        memset(why, 0, sizeof(why));
        if (hugetlb_pool_check(&env, 2u << 20, bytes[i], why, sizeof(why)) != 0)
            fuzz_check_reason("hugetlb_pool_check 2M", why, sizeof(why));
        memset(why, 0, sizeof(why));
        if (hugetlb_pool_check(&env, 1u << 30, bytes[i], why, sizeof(why)) != 0)
            fuzz_check_reason("hugetlb_pool_check 1G", why, sizeof(why));
        char small[48] = ""; /* a reason cut short must still be a terminated string */
        if (hugetlb_pool_check(&env, 2u << 20, bytes[i], small, sizeof(small)) != 0)
            fuzz_check_reason("hugetlb_pool_check (short buffer)", small, sizeof(small));
    }
    return 0;
}
