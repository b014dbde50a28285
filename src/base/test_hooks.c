#include "src/base/test_hooks.h"

const struct test_hooks *test_hooks = NULL;
