#include "kernels/kernel_table.h"

#include <string.h>
#include <strings.h>

// clang-format off
#define KERNEL_ROW(ID, NAME, LABEL, FLAG, FORMULA, HELP, READ, WRITTEN, FLOPS, SHAPE, DST, EXPR)   \
    [KERNEL_##ID] = {KERNEL_##ID, #NAME, LABEL, FLAG, FORMULA, HELP, READ, WRITTEN, FLOPS,         \
                     KERNEL_REDUCES_##SHAPE, KERNEL_DST_##DST},
// clang-format on

const struct kernel_desc kernel_table[KERNEL_COUNT] = {KERNEL_LIST(KERNEL_ROW)};

int kernel_find_n(const char *name, size_t len)
{
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (strlen(kernel_table[k].name) == len &&
            strncasecmp(kernel_table[k].name, name, len) == 0)
            return k;
    return -1;
}

int kernel_find(const char *name)
{
    return kernel_find_n(name, strlen(name));
}

size_t elem_size(enum elem_type type)
{
    return type == TYPE_FLOAT ? sizeof(float) : sizeof(double);
}

const char *elem_type_name(enum elem_type type)
{
    return type == TYPE_FLOAT ? "float" : "double";
}

uint64_t kernel_bytes_counted(const struct kernel_desc *k, uint64_t n, enum elem_type type)
{
    return (uint64_t)(k->words_read + k->words_written) * n * elem_size(type);
}

uint64_t kernel_bytes_traffic(const struct kernel_desc *k, uint64_t n, enum elem_type type,
                              int nontemporal)
{
    unsigned per_write = nontemporal ? 1 : 2;
    return (uint64_t)(k->words_read + per_write * k->words_written) * n * elem_size(type);
}
