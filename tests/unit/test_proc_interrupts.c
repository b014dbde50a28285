/* The /proc/interrupts reader on recorded samples, and the deltas between two readings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "src/sys/proc_interrupts.h"

/* The 2-vCPU KVM guest membench is developed on (Linux 6.18, x86-64), trimmed. */
static const char kvm_guest[] =
    "           CPU0       CPU1       \n"
    " 24:          1          0  IO-APIC   5-edge      ACPI:Ged\n"
    " 36:          0      99113 PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0\n"
    "NMI:          0          0   Non-maskable interrupts\n"
    "LOC:     261047     255354   Local timer interrupts\n"
    "RES:      33682      24512   Rescheduling interrupts\n"
    "CAL:      59517      61879   Function call interrupts\n"
    "TLB:      13607      26716   TLB shootdowns\n"
    "TRM:          0          0   Thermal event interrupts\n"
    "HYP:         34         83   Hypervisor callback interrupts\n"
    "ERR:          0\n"
    "MIS:          0\n";

/* Four CPUs with CPU 2 offline: /proc/interrupts has no column for it. */
static const char offline_cpu[] = "           CPU0       CPU1       CPU3       \n"
                                  "  0:         44          0          0   IO-APIC    2-edge  "
                                  "timer\n"
                                  "TLB:    4294967296        17          5   TLB shootdowns\n";

/* An arm64 server: remote TLB flushes are broadcast instructions, there is no TLB line. */
static const char arm64[] = "           CPU0       CPU1       CPU2       CPU3       \n"
                            " 11:     123456     123001     122980     123111     GICv3  27 Level "
                            "    arch_timer\n"
                            "IPI0:      1200       1300       1250       1190       Rescheduling "
                            "interrupts\n"
                            "IPI1:       300        310        305        299       Function call "
                            "interrupts\n"
                            "Err:          0\n";

/* A truncated TLB line (fewer columns than CPUs) is refused rather than half read. */
static const char truncated[] = "           CPU0       CPU1\n"
                                "TLB:         12\n";

static int parse_text(const char *text, const char *label, struct irq_counts *out)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    assert_non_null(f);
    int rc = interrupts_parse(f, label, out);
    fclose(f);
    return rc;
}

static struct irq_counts a, b;

static void tlb_line_of_a_kvm_guest(void **state)
{
    (void)state;
    assert_int_equal(parse_text(kvm_guest, "TLB", &a), 0);
    assert_int_equal(a.n, 2);
    assert_int_equal(a.cpu[0], 0);
    assert_int_equal(a.cpu[1], 1);
    assert_int_equal(a.count[0], 13607);
    assert_int_equal(a.count[1], 26716);
    /* the label must match whole: "CAL" is not "CA", "ERR" has one column only */
    assert_int_equal(parse_text(kvm_guest, "CAL", &a), 0);
    assert_int_equal(a.count[1], 61879);
    assert_int_equal(parse_text(kvm_guest, "CA", &a), -1);
    assert_int_equal(parse_text(kvm_guest, "ERR", &a), -1);
}

static void columns_follow_the_header(void **state)
{
    (void)state;
    assert_int_equal(parse_text(offline_cpu, "TLB", &a), 0);
    assert_int_equal(a.n, 3);
    assert_int_equal(a.cpu[2], 3);
    assert_int_equal(a.count[0], 4294967296ull); /* beyond 32 bits */
    assert_int_equal(a.count[2], 5);
}

static void no_tlb_line_on_arm64(void **state)
{
    (void)state;
    assert_int_equal(parse_text(arm64, "TLB", &a), -1);
    assert_int_equal(a.n, 0);
    assert_int_equal(parse_text(arm64, "IPI1", &a), 0);
    assert_int_equal(a.n, 4);
    assert_int_equal(a.count[3], 299);
}

static void truncated_line_is_refused(void **state)
{
    (void)state;
    assert_int_equal(parse_text(truncated, "TLB", &a), -1);
    assert_int_equal(parse_text("", "TLB", &a), -1);
}

static void deltas_per_cpu(void **state)
{
    (void)state;
    assert_int_equal(parse_text(kvm_guest, "TLB", &a), 0);
    b = a;
    b.count[0] += 3;
    b.count[1] += 40;
    int cpu1[] = {1}, cpu0[] = {0}, both[] = {0, 1}, absent[] = {7};
    assert_int_equal(irq_delta(&a, &b, NULL, 0), 43);
    assert_int_equal(irq_delta(&a, &b, cpu1, 1), 40);
    assert_int_equal(irq_delta(&a, &b, cpu0, 1), 3);
    assert_int_equal(irq_delta(&a, &b, absent, 1), 0);
    assert_int_equal(irq_cpus_raised(&a, &b, both, 2), 2);
    b.count[0] = a.count[0];
    assert_int_equal(irq_cpus_raised(&a, &b, both, 2), 1);
    assert_int_equal(irq_cpus_raised(&a, &b, cpu0, 1), 0);
    /* a counter that went backwards (CPU hot-replugged) counts nothing, not 2^64 */
    b.count[1] = a.count[1] - 1;
    assert_int_equal(irq_delta(&a, &b, cpu1, 1), 0);
    struct irq_counts empty;
    memset(&empty, 0, sizeof(empty));
    assert_int_equal(irq_delta(&empty, &b, NULL, 0), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tlb_line_of_a_kvm_guest), cmocka_unit_test(columns_follow_the_header),
        cmocka_unit_test(no_tlb_line_on_arm64),    cmocka_unit_test(truncated_line_is_refused),
        cmocka_unit_test(deltas_per_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
