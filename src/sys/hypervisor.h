#ifndef MEMBENCH_HYPERVISOR_H
#define MEMBENCH_HYPERVISOR_H

/* The hypervisor this machine runs under, from CPUID: its signature, and whether it flushes
 * TLBs for its guests (which hides the inter-processor interrupts a shootdown would send). */

#include <stddef.h>
#include <stdint.h>

struct hypervisor_info {
    char signature[13]; /* CPUID 0x40000000 vendor signature ("KVMKVMKVM"); "" on bare metal */
    int pv_tlb_flush;   /* KVM_FEATURE_PV_TLB_FLUSH: 1, 0; -1 not KVM, or unknown */
};

/* Runs cpuid (x86 only; elsewhere: bare metal, unknown). */
void hypervisor_read(struct hypervisor_info *out);

/* The signature in the registers of leaf 0x40000000 (ebx, ecx, edx), a byte outside printable
 * ASCII shown as '?'; buf holds at least 13 bytes. */
void hypervisor_signature(uint32_t ebx, uint32_t ecx, uint32_t edx, char *buf, size_t len);

/* KVM_FEATURE_PV_TLB_FLUSH from eax of KVM's leaf 0x40000001: 1 or 0. */
int hypervisor_kvm_pv_tlb_flush(uint32_t eax);

#endif
