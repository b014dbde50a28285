/* The x86-64 ISAs for kernels/dispatch.c. "Has" is glibc's view where it offers one (2.33+):
 * the CPU reports the feature, the kernel saves its registers, and
 * GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,... has not masked it, so one environment variable
 * turns an ISA off for membench as for the C library itself. */
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

#include "kernels/isa_arch.h"

kernel_fn kernel_lookup_avx512(enum kernel_id k, enum store_kind stores, enum elem_type type);
kernel_fn kernel_lookup_avx2(enum kernel_id k, enum store_kind stores, enum elem_type type);
kernel_fn kernel_lookup_sse2(enum kernel_id k, enum store_kind stores, enum elem_type type);

static bool has_avx512(void)
{
    return HAS_AVX512F();
}

static bool has_avx2(void)
{
    return HAS_AVX2();
}

static bool has_sse2(void)
{
    return true; /* every x86-64 CPU */
}

static size_t bytes_64(void)
{
    return 64;
}

static size_t bytes_32(void)
{
    return 32;
}

static size_t bytes_16(void)
{
    return 16;
}

static const struct isa_arch_isa x86_isas[] = {
    {ISA_AVX512, has_avx512, kernel_lookup_avx512, bytes_64},
    {ISA_AVX2, has_avx2, kernel_lookup_avx2, bytes_32},
    {ISA_SSE2, has_sse2, kernel_lookup_sse2, bytes_16},
};

const struct isa_arch isa_arch_this = {"x86-64", x86_isas,
                                       (int)(sizeof(x86_isas) / sizeof(x86_isas[0]))};
