/* Runtime choice of the kernel variant: the widest vector ISA of this build's architecture
 * that the CPU has (kernels/x86/, kernels/arm/ say which), unless forced; scalar everywhere. */
#include <stdio.h>
#include <string.h>

#include "kernels/isa_arch.h"

static const char *const names[ISA_COUNT] = {"sse2", "avx2", "avx512", "scalar", "neon", "sve"};

const char *isa_name(enum isa isa)
{
    return names[isa];
}

static const struct isa_arch_isa *arch_isa(enum isa isa)
{
    for (int i = 0; i < isa_arch_this.n_isas; i++)
        if (isa_arch_this.isas[i].isa == isa) return &isa_arch_this.isas[i];
    return NULL;
}

bool isa_compiled(enum isa isa)
{
    return isa == ISA_SCALAR || arch_isa(isa) != NULL;
}

bool isa_supported(enum isa isa)
{
    const struct isa_arch_isa *a = arch_isa(isa);
    return isa == ISA_SCALAR || (a && a->supported());
}

bool isa_has_nt(enum isa isa)
{
    return isa != ISA_SCALAR;
}

size_t isa_vector_bytes(enum isa isa)
{
    const struct isa_arch_isa *a = arch_isa(isa);
    return a ? a->vector_bytes() : 0;
}

enum isa isa_best(void)
{
    for (int i = 0; i < isa_arch_this.n_isas; i++)
        if (isa_arch_this.isas[i].supported()) return isa_arch_this.isas[i].isa;
    return ISA_SCALAR;
}

int isa_parse(const char *text, enum isa *isa)
{
    for (int i = 0; i < ISA_COUNT; i++)
        if (strcmp(text, names[i]) == 0) {
            *isa = (enum isa)i;
            return 0;
        }
    return -1;
}

const char *isa_build_arch(void)
{
    return isa_arch_this.name;
}

const char *isa_build_list(void)
{
    static char list[64];
    if (list[0]) return list;
    size_t used = 0;
    for (int i = 0; i < ISA_COUNT; i++)
        if (isa_compiled((enum isa)i) && used < sizeof(list))
            used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", used ? ", " : "",
                                     names[i]);
    return list;
}

kernel_fn kernel_function(enum kernel_id k, enum isa isa, enum store_kind stores,
                          enum elem_type type)
{
    const struct isa_arch_isa *a = arch_isa(isa);
    return a ? a->lookup(k, stores, type) : kernel_lookup_scalar(k, stores, type);
}
