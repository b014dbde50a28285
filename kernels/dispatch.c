/* Runtime choice of the kernel variant: the widest vector ISA the CPU has, unless forced.
 * "Has" is glibc's view where it offers one (2.33+): the CPU reports the feature, the kernel
 * saves its registers, and GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,... has not masked it, so
 * one environment variable turns an ISA off for membench as for the C library itself. */
#include <string.h>

#if defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#define HAS_AVX512F() CPU_FEATURE_ACTIVE(AVX512F)
#define HAS_AVX2() CPU_FEATURE_ACTIVE(AVX2)
#endif
#endif
#ifndef HAS_AVX512F
#define HAS_AVX512F() (__builtin_cpu_init(), __builtin_cpu_supports("avx512f"))
#define HAS_AVX2() (__builtin_cpu_init(), __builtin_cpu_supports("avx2"))
#endif

#include "kernels/kernel_table.h"

kernel_fn kernel_lookup_avx512(enum kernel_id k, enum store_kind stores, enum elem_type type);
kernel_fn kernel_lookup_avx2(enum kernel_id k, enum store_kind stores, enum elem_type type);
kernel_fn kernel_lookup_sse2(enum kernel_id k, enum store_kind stores, enum elem_type type);

static const char *const names[ISA_COUNT] = {"sse2", "avx2", "avx512"};

const char *isa_name(enum isa isa)
{
    return names[isa];
}

bool isa_supported(enum isa isa)
{
    switch (isa) {
    case ISA_AVX512: return HAS_AVX512F();
    case ISA_AVX2: return HAS_AVX2();
    case ISA_SSE2: return true; /* every x86-64 CPU */
    default: return false;
    }
}

enum isa isa_best(void)
{
    for (int i = ISA_COUNT - 1; i > 0; i--)
        if (isa_supported((enum isa)i)) return (enum isa)i;
    return ISA_SSE2;
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

kernel_fn kernel_function(enum kernel_id k, enum isa isa, enum store_kind stores,
                          enum elem_type type)
{
    switch (isa) {
    case ISA_AVX512: return kernel_lookup_avx512(k, stores, type);
    case ISA_AVX2: return kernel_lookup_avx2(k, stores, type);
    default: return kernel_lookup_sse2(k, stores, type);
    }
}
