#!/usr/bin/env python3
"""The plan membench makes for each committed topology (tests/topologies/*.xml, loaded with
HWLOC_XMLFILE, --dry-run): its memory tiers, HMAT, CPU LLC, memory-side caches, the shape of
--matrix numa and the default array size. Prints a Markdown table.
Usage: bench/topologies_table.py [MEMBENCH=build/membench]"""

import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEMBENCH = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "build", "membench")


def plan(xml, args):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_", "HWLOC_"))}
    env["HWLOC_XMLFILE"] = xml
    p = subprocess.run([MEMBENCH, "--dry-run", "--format", "json"] + args, env=env,
                       capture_output=True, text=True)
    return (json.loads(p.stdout), None) if p.returncode == 0 else \
        (None, "exit %d: %s" % (p.returncode, p.stderr.strip()[:100]))


def nodes(list_):
    return ",".join(str(n) for n in list_)


def row(xml):
    doc, why = plan(xml, [])
    matrix, mwhy = plan(xml, ["--matrix", "numa", "-s", "1MiB"])
    name = os.path.basename(xml)
    if doc:
        c = doc["runs"][0]["config"]
        size = "%.1f MiB (%s)" % (c["array_bytes"] / 2 ** 20, c["size_rule"])
        if c.get("in_memory_side_cache"):
            size += ", fits the memory-side cache"
    else:
        size = why
    if not matrix:
        return [name, "-", "-", "-", "-", mwhy, size]
    s, mem, m = matrix["system"], matrix["memory"], matrix["matrix"]
    tiers = "; ".join("%s %s" % (t["name"], nodes(t["nodes"])) for t in mem["tiers"])
    llc = "L%d %.1f MiB" % (s["llc_level"], s["llc_bytes_total"] / 2 ** 20) \
        if s["llc_bytes_total"] else "unknown"
    msc = "%.2f GiB" % (s["memcache_bytes_total"] / 2 ** 30) if s["memcache_bytes_total"] else "-"
    shape = "%d x %d" % (len(m["rows"]), len(m["columns"]))
    return [name, tiers, "yes" if mem["hmat"] else "no", llc, msc, shape, size]


def main():
    print("| topology | tiers (OS node numbers) | HMAT | CPU LLC | memory-side caches | "
          "--matrix numa rows x columns | default arrays |")
    print("|---|---|---|---|---|---|---|")
    for xml in sorted(glob.glob(os.path.join(HERE, "tests", "topologies", "*.xml"))):
        print("| " + " | ".join(row(xml)) + " |")


if __name__ == "__main__":
    main()
