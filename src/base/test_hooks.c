#include "src/base/test_hooks.h"

#include <stddef.h>

const struct test_hooks *test_hooks = NULL;
