#ifndef MEMBENCH_HYPERVISOR_H
#define MEMBENCH_HYPERVISOR_H

/* The hypervisor this machine runs under: its signature, and whether it flushes TLBs for its
 * guests (which hides the inter-processor interrupts a shootdown would send). On x86 from
 * CPUID (src/sys/x86/hypervisor_cpuid.c); elsewhere from /sys/hypervisor/type, the device
 * tree's /proc/device-tree/hypervisor/compatible and the DMI vendor and product names. */

#include <stddef.h>
#include <stdint.h>

struct hypervisor_info {
    /* CPUID 0x40000000 vendor signature ("KVMKVMKVM"); off x86 "xen", "QEMU", "KVM"...;
     * "" on bare metal or when nothing says */
    char signature[13];
    int pv_tlb_flush; /* KVM_FEATURE_PV_TLB_FLUSH: 1, 0; -1 not KVM, or unknown */
};

/* This machine's hypervisor (x86: cpuid; elsewhere: hypervisor_read_root("")). */
void hypervisor_read(struct hypervisor_info *out);

/* From files under root ("" for the real ones): <root>/sys/hypervisor/type, then
 * <root>/proc/device-tree/hypervisor/compatible (its vendor part), then a virtual machine's
 * name in <root>/sys/class/dmi/id/sys_vendor or product_name. pv_tlb_flush stays -1. */
void hypervisor_read_root(const char *root, struct hypervisor_info *out);

/* The signature in the registers of leaf 0x40000000 (ebx, ecx, edx), a byte outside printable
 * ASCII shown as '?'; buf holds at least 13 bytes. */
void hypervisor_signature(uint32_t ebx, uint32_t ecx, uint32_t edx, char *buf, size_t len);

/* KVM_FEATURE_PV_TLB_FLUSH from eax of KVM's leaf 0x40000001: 1 or 0. */
int hypervisor_kvm_pv_tlb_flush(uint32_t eax);

#endif
