#ifndef MEMBENCH_KERNEL_TABLE_H
#define MEMBENCH_KERNEL_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/kernel_list.h"

enum elem_type { TYPE_DOUBLE, TYPE_FLOAT };

/* KERNEL_COPY, KERNEL_SCALE, ... in the order of kernels/kernel_list.h. */
#define KERNEL_ENUM(ID, ...) KERNEL_##ID,
enum kernel_id { KERNEL_LIST(KERNEL_ENUM) KERNEL_COUNT };
#undef KERNEL_ENUM

#define KERNEL_MASK_STREAM 0xFu /* the default: STREAM's four */
#define KERNEL_MASK_ALL ((1u << KERNEL_COUNT) - 1)

enum store_kind { STORES_NORMAL, STORES_NT };

/* Every architecture's ISAs in one list; a build compiles its own and scalar (isa_compiled). */
enum isa { ISA_SSE2, ISA_AVX2, ISA_AVX512, ISA_SCALAR, ISA_NEON, ISA_SVE, ISA_COUNT };

/* One thread's share [begin, end) of a pass over the arrays a, b, c with scalar q. Called
 * inside the runner's parallel region; no OpenMP inside. Reductions return their partial
 * sum, the others 0. */
typedef double (*kernel_fn)(void *a, void *b, void *c, size_t begin, size_t end, double q);

/* A kernel is a row of this table (made from kernels/kernel_list.h): every byte count and rate
 * comes from here. */
struct kernel_desc {
    enum kernel_id id;
    const char *name;  /* "Triad": CSV and JSON */
    const char *label; /* "Triad:     ": STREAM's text table */
    const char *flag;  /* "--triad" */
    const char *formula;
    const char *help; /* what --help says after the formula */
    unsigned words_read;
    unsigned words_written;
    unsigned flops;
    bool reduction; /* returns a sum that is validated instead of an array */
    int dst;        /* the array it writes: 0 a, 1 b, 2 c; -1 for a reduction */
};

extern const struct kernel_desc kernel_table[KERNEL_COUNT];

/* The kernel named name ("Triad", any case), or -1; kernel_find_n: its first len chars. */
int kernel_find(const char *name);
int kernel_find_n(const char *name, size_t len);

size_t elem_size(enum elem_type type);
const char *elem_type_name(enum elem_type type);

/* The variant of kernel k for an ISA, store kind and element type. The ISA must be one the
 * CPU supports (isa_supported). */
kernel_fn kernel_function(enum kernel_id k, enum isa isa, enum store_kind stores,
                          enum elem_type type);

const char *isa_name(enum isa isa);
/* This build has the ISA's kernels: its architecture's ISAs and scalar. */
bool isa_compiled(enum isa isa);
/* Compiled, and the CPU has it. */
bool isa_supported(enum isa isa);
/* Its "nt" variants are non-temporal stores (scalar's are normal stores). */
bool isa_has_nt(enum isa isa);
enum isa isa_best(void);
/* Bytes in one of the ISA's vector registers on this CPU (SVE's is the CPU's choice); 0 for
 * scalar or an ISA not compiled. */
size_t isa_vector_bytes(enum isa isa);
/* The name of any ISA of any architecture ("sse2", "neon", "scalar", ...) -> 0 and *isa;
 * else -1. */
int isa_parse(const char *text, enum isa *isa);
/* "x86-64", "aarch64", or the architecture a portable build was made for. */
const char *isa_build_arch(void);
/* This build's ISAs as "sse2, avx2, avx512, scalar". */
const char *isa_build_list(void);

/* Bytes STREAM credits per pass: (words read + words written) x n x element size. */
uint64_t kernel_bytes_counted(const struct kernel_desc *k, uint64_t n, enum elem_type type);

/* Bytes the memory system really moves: normal stores first read the line they write
 * (write-allocate), so each written word costs two transfers; non-temporal stores do not. */
uint64_t kernel_bytes_traffic(const struct kernel_desc *k, uint64_t n, enum elem_type type,
                              int nontemporal);

/* First touch of [begin, end): a=2, b=0.5, c=1, by the thread that will run the kernels on
 * that range, so its pages land on that thread's NUMA node. */
void stream_init_arrays(void *a, void *b, void *c, size_t begin, size_t end, enum elem_type type);

/* Multiplies [begin, end) of the three arrays by 2^exponent (exact in binary floating point),
 * used between repetitions to keep values in range. */
void stream_scale_arrays(void *a, void *b, void *c, size_t begin, size_t end, enum elem_type type,
                         int exponent);

/* Start of thread's range when n elements are split over nthreads; the range ends where the
 * next thread's begins (n for the last). Boundaries fall on cache lines. */
size_t stream_chunk_begin(size_t n, int nthreads, int thread, enum elem_type type);

#endif
