/* /proc/interrupts, as the TLB-shootdown probe reads it: interrupts_read for a few labels over
 * the input (as a file), then the deltas the probe computes from two readings. */
#include "src/sys/proc_interrupts.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file(data, size);
    static const char *const labels[] = {"TLB", "LOC", "NMI", "0"};
    for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++) {
        struct irq_counts c;
        if (interrupts_read(path, labels[i], &c) == 0) {
            FUZZ_CHECK(c.n >= 1 && c.n <= IRQ_MAX_CPUS, "%d columns", c.n);
            int cpus[2] = {c.cpu[0], c.cpu[c.n - 1]};
            FUZZ_CHECK(irq_delta(&c, &c, NULL, 0) == 0, "a reading differs from itself");
            FUZZ_CHECK(irq_cpus_raised(&c, &c, cpus, 2) == 0, "counts rose without time");
            FUZZ_CHECK(irq_delta(&c, &c, cpus, 2) == 0, "a reading differs from itself");
        } else {
            FUZZ_CHECK(c.n == 0, "failed with %d columns", c.n);
        }
    }
    return 0;
}
