/* The aarch64 ISAs for kernels/dispatch.c, from the kernel's HWCAP bits: ASIMD (NEON) is
 * architectural on every aarch64 Linux system, SVE when the CPU has it and the kernel enables
 * it (a qemu-aarch64 with -cpu max,sve=off reports none). */
#include <sys/auxv.h>

#include "kernels/isa_arch.h"

#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1UL << 1)
#endif
#ifndef HWCAP_SVE
#define HWCAP_SVE (1UL << 22)
#endif

kernel_fn kernel_lookup_sve(enum kernel_id k, enum store_kind stores, enum elem_type type);
kernel_fn kernel_lookup_neon(enum kernel_id k, enum store_kind stores, enum elem_type type);
size_t sve_vector_bytes(void);

static bool has_sve(void)
{
    return (getauxval(AT_HWCAP) & HWCAP_SVE) != 0;
}

static bool has_neon(void)
{
    return (getauxval(AT_HWCAP) & HWCAP_ASIMD) != 0;
}

static size_t neon_bytes(void)
{
    return 16;
}

static const struct isa_arch_isa arm_isas[] = {
    {ISA_SVE, has_sve, kernel_lookup_sve, sve_vector_bytes},
    {ISA_NEON, has_neon, kernel_lookup_neon, neon_bytes},
};

const struct isa_arch isa_arch_this = {"aarch64", arm_isas,
                                       (int)(sizeof(arm_isas) / sizeof(arm_isas[0]))};
