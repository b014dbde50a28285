#include "src/probes/fault_filesystems.h"

#include <stdbool.h>
#include <stdio.h>

static const struct {
    unsigned long magic;
    const char *name;
    bool memory;
} filesystems[] = {
    {0x01021994, "tmpfs", true},     {0x858458f6, "ramfs", true},
    {0x958458f6, "hugetlbfs", true}, {0xef53, "ext4", false},
    {0x58465342, "xfs", false},      {0x9123683e, "btrfs", false},
    {0xf2f52010, "f2fs", false},     {0x2fc12fc1, "zfs", false},
    {0x794c7630, "overlay", false},  {0x6969, "nfs", false},
    {0x65735546, "fuse", false},     {0x01021997, "9p", false},
    {0xff534d42, "cifs", false},     {0xfe534d42, "smb2", false},
    {0x00c36400, "ceph", false},     {0x0bd00bd0, "lustre", false},
    {0x47504653, "gpfs", false},     {0x19830326, "beegfs", false},
    {0x73717368, "squashfs", false}, {0x4d44, "vfat", false},
    {0x5346544e, "ntfs", false},     {0x3153464a, "jfs", false},
    {0x52654973, "reiserfs", false}, {0x9fa0, "proc", true},
    {0x62656572, "sysfs", true},
};

const char *fs_memory_backed_name(long f_type)
{
    for (size_t i = 0; i < sizeof(filesystems) / sizeof(filesystems[0]); i++)
        if (filesystems[i].magic == (unsigned long)f_type && filesystems[i].memory)
            return filesystems[i].name;
    return NULL;
}

void fs_type_name(long f_type, char *buf, size_t len)
{
    for (size_t i = 0; i < sizeof(filesystems) / sizeof(filesystems[0]); i++)
        if (filesystems[i].magic == (unsigned long)f_type) {
            snprintf(buf, len, "%s", filesystems[i].name);
            return;
        }
    snprintf(buf, len, "0x%lx", (unsigned long)f_type);
}
