#ifndef MEMBENCH_BROKEN_KERNEL_H
#define MEMBENCH_BROKEN_KERNEL_H

#include "kernels/kernel_table.h"

/* Chooses the kernel to break by its name ("triad", any case). 0, or -1 if no such kernel. */
int broken_kernel_select(const char *name);

/* The hook of struct test_hooks: the broken variant for the selected kernel, else chosen. */
kernel_fn broken_kernel_substitute(enum kernel_id k, enum elem_type type, kernel_fn chosen);

#endif
