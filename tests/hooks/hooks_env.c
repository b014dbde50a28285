/* membench-hooked: membench's own main() with the test hooks (src/test_hooks.h) filled from
 * the MEMBENCH_TEST_* variables before it runs. Never installed; the CLI tests run it.
 *   MEMBENCH_TEST_CORRUPT=1           flip a bit of one result after the kernels
 *   MEMBENCH_TEST_BROKEN_KERNEL=NAME  run a deliberately wrong NAME kernel (broken_kernel.c)
 *   MEMBENCH_TEST_VERIFY_AS=BACKEND   judge the pages as if --pages BACKEND was asked for
 *   MEMBENCH_TEST_SYS_ROOT=ROOT       the fault probe reads ROOT/kernel/mm/... for /sys */
#include <stdio.h>
#include <stdlib.h>

#include "src/test_hooks.h"
#include "tests/hooks/broken_kernel.h"

static struct test_hooks hooks;

static const char *variable(const char *name)
{
    const char *value = getenv(name);
    return value && *value ? value : NULL;
}

static void usage_error(const char *name, const char *value, const char *fix)
{
    fprintf(stderr, "membench: %s='%.40s' is not valid; %s\n", name, value, fix);
    exit(2);
}

__attribute__((constructor)) static void install_test_hooks(void)
{
    const char *value;
    hooks.corrupt_result = variable("MEMBENCH_TEST_CORRUPT") != NULL;
    if ((value = variable("MEMBENCH_TEST_VERIFY_AS"))) {
        hooks.judge_as = mem_backend_find(value);
        if (!hooks.judge_as)
            usage_error("MEMBENCH_TEST_VERIFY_AS", value, "name a --pages backend such as 2m");
    }
    hooks.sys_root = variable("MEMBENCH_TEST_SYS_ROOT");
    if ((value = variable("MEMBENCH_TEST_BROKEN_KERNEL"))) {
        if (broken_kernel_select(value) != 0)
            usage_error("MEMBENCH_TEST_BROKEN_KERNEL", value, "name a kernel such as triad");
        hooks.kernel = broken_kernel_substitute;
    }
    test_hooks = &hooks;
}
