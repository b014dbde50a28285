"""/proc and /sys of a node at rest, as fixture trees (MEMBENCH_TEST_PROC_ROOT,
MEMBENCH_TEST_SYS_ROOT), so that a test's causes come from its fixtures, not from this machine's
own load, settings and counters."""

import os


def put(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def quiet_node(tmp):
    """Counters that do not move, NUMA balancing off, the performance governor at full
    frequency, no EDAC; returns the environment that points membench at them."""
    proc, sys_ = os.path.join(tmp, "proc"), os.path.join(tmp, "sys")
    cpus = sorted(os.sched_getaffinity(0))
    put(proc, "stat", "".join("cpu%d 100 0 50 900 0 0 0 0 0 0\n" % c for c in cpus))
    put(proc, "self/stat", "1 (membench) R 1 1 1 0 -1 0 0 0 0 0 20 5 0 0 20 0 1 0\n")
    put(proc, "self/task/1/schedstat", "1000000 2000 3\n")
    put(proc, "vmstat", "pswpin 0\npswpout 0\n")
    put(proc, "sys/kernel/numa_balancing", "0\n")
    for c in cpus:
        freq = "devices/system/cpu/cpu%d/cpufreq/" % c
        put(sys_, freq + "scaling_governor", "performance\n")
        put(sys_, freq + "cpuinfo_max_freq", "3000000\n")
        put(sys_, freq + "scaling_max_freq", "3000000\n")
    return {"MEMBENCH_TEST_PROC_ROOT": proc, "MEMBENCH_TEST_SYS_ROOT": sys_}
