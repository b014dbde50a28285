#include "src/sys/hypervisor.h"

#include "src/sys/sysinfo.h"

#include <stdio.h>
#include <string.h>

void hypervisor_signature(uint32_t ebx, uint32_t ecx, uint32_t edx, char *buf, size_t len)
{
    char sig[13];
    memcpy(sig, &ebx, 4);
    memcpy(sig + 4, &ecx, 4);
    memcpy(sig + 8, &edx, 4);
    sig[12] = '\0';
    for (int i = 0; i < 12; i++)
        if (sig[i] && (sig[i] < 32 || sig[i] > 126)) sig[i] = '?';
    snprintf(buf, len, "%s", sig);
}

int hypervisor_kvm_pv_tlb_flush(uint32_t eax)
{
    return (eax >> 9) & 1;
}

/* A DMI vendor or product name that only a virtual machine reports, as the signature to show. */
static const char *dmi_hypervisor(const char *text)
{
    static const struct {
        const char *contains, *signature;
    } known[] = {{"QEMU", "QEMU"},
                 {"KVM", "KVM"},
                 {"Xen", "Xen"},
                 {"VMware", "VMware"},
                 {"innotek", "VirtualBox"},
                 {"Parallels", "Parallels"}};
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (strstr(text, known[i].contains)) return known[i].signature;
    return NULL;
}

static void set_signature(struct hypervisor_info *out, const char *text)
{
    size_t n = strnlen(text, sizeof(out->signature) - 1);
    memcpy(out->signature, text, n);
    out->signature[n] = '\0';
    for (char *p = out->signature; *p; p++)
        if (*p < 32 || *p > 126) *p = '?';
}

void hypervisor_read_root(const char *root, struct hypervisor_info *out)
{
    out->pv_tlb_flush = -1;
    out->signature[0] = '\0';
    char path[512], line[128];
    snprintf(path, sizeof(path), "%s/sys/hypervisor/type", root);
    if (read_first_line(path, line, sizeof(line)) == 0 && line[0]) {
        set_signature(out, line);
        return;
    }
    /* "xen,xen-4.16\0xen,xen": the first string's vendor part */
    snprintf(path, sizeof(path), "%s/proc/device-tree/hypervisor/compatible", root);
    if (read_first_line(path, line, sizeof(line)) == 0 && line[0]) {
        line[strcspn(line, ",")] = '\0';
        set_signature(out, line);
        return;
    }
    static const char *const dmi[] = {"sys_vendor", "product_name"};
    for (size_t i = 0; i < sizeof(dmi) / sizeof(dmi[0]); i++) {
        snprintf(path, sizeof(path), "%s/sys/class/dmi/id/%s", root, dmi[i]);
        const char *sig =
            read_first_line(path, line, sizeof(line)) == 0 ? dmi_hypervisor(line) : NULL;
        if (sig) {
            set_signature(out, sig);
            return;
        }
    }
}
