/* The hypervisor's CPUID leaves, decoded from recorded register values; off x86, the files that
 * name it, injected under a scratch root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "src/sys/hypervisor.h"
#include "tests/unit/scratch_tree.h"

static uint32_t word(const char *four)
{
    uint32_t w;
    memcpy(&w, four, 4);
    return w;
}

static void kvm_signature(void **state)
{
    (void)state;
    char sig[13];
    /* KVM pads its nine letters with zero bytes */
    hypervisor_signature(word("KVMK"), word("VMKV"), word("M\0\0\0"), sig, sizeof(sig));
    assert_string_equal(sig, "KVMKVMKVM");
    hypervisor_signature(word("Micr"), word("osof"), word("t Hv"), sig, sizeof(sig));
    assert_string_equal(sig, "Microsoft Hv");
}

static void unprintable_bytes_are_marked(void **state)
{
    (void)state;
    char sig[13];
    hypervisor_signature(word("ab\x01\x7f"),
                         word("\xff"
                              "cde"),
                         word("fgh\n"), sig, sizeof(sig));
    assert_string_equal(sig, "ab??"
                             "?cde"
                             "fgh?");
}

static void kvm_pv_tlb_flush_bit(void **state)
{
    (void)state;
    assert_int_equal(hypervisor_kvm_pv_tlb_flush(1u << 9), 1);
    assert_int_equal(hypervisor_kvm_pv_tlb_flush(0x01007afbu), 1); /* a KVM guest's eax */
    assert_int_equal(hypervisor_kvm_pv_tlb_flush(~(1u << 9)), 0);
}

/* Whatever this machine is: a signature of printable ASCII, and a PV flag only under KVM. */
static void this_machine(void **state)
{
    (void)state;
    struct hypervisor_info hv;
    hypervisor_read(&hv);
    assert_true(strlen(hv.signature) <= 12);
    for (const char *p = hv.signature; *p; p++)
        assert_true(*p >= 32 && *p <= 126);
    if (strcmp(hv.signature, "KVMKVMKVM") != 0) assert_int_equal(hv.pv_tlb_flush, -1);
}

static void file_case(const char *rel, const char *text, const char *want)
{
    char root[64], path[192];
    assert_int_equal(scratch_make(root, sizeof(root), "hyp"), 0);
    if (rel) {
        snprintf(path, sizeof(path), "%s/%s", root, rel);
        *strrchr(path, '/') = '\0';
        scratch_dirs(path);
        snprintf(path, sizeof(path), "%s/%s", root, rel);
        scratch_write(path, text);
    }
    struct hypervisor_info hv;
    hypervisor_read_root(root, &hv);
    assert_string_equal(hv.signature, want);
    assert_int_equal(hv.pv_tlb_flush, -1);
    assert_int_equal(scratch_remove(root), 0);
}

static void files_name_the_hypervisor(void **state)
{
    (void)state;
    file_case("sys/hypervisor/type", "xen\n", "xen");
    file_case("proc/device-tree/hypervisor/compatible", "xen,xen-4.16", "xen");
    file_case("sys/class/dmi/id/sys_vendor", "QEMU\n", "QEMU");
    file_case("sys/class/dmi/id/product_name", "KVM Virtual Machine\n", "KVM");
    file_case("sys/class/dmi/id/sys_vendor", "Ampere(R)\n", ""); /* a real machine */
    file_case(NULL, NULL, "");                                   /* nothing says */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kvm_signature),
        cmocka_unit_test(unprintable_bytes_are_marked),
        cmocka_unit_test(kvm_pv_tlb_flush_bit),
        cmocka_unit_test(this_machine),
        cmocka_unit_test(files_name_the_hypervisor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
