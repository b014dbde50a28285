"""SMBIOS fixtures: the type 16/17 records of a public dmidecode dump (tests/fixtures/smbios/
NAME.txt) written back as raw entries NN-M/raw, as /sys/firmware/dmi/entries holds them, and the
dump's CPU as a /proc/cpuinfo file.

    python3 tests/lib/smbios_fixture.py FIXTURE.txt OUTDIR   (OUTDIR/entries, OUTDIR/cpuinfo)

A fixture's header lines start with '# '; two are read: 'cpu: VENDOR FAMILY MODEL PACKAGES
MODEL NAME' and 'published_mbps: N'. Each record is a block of dmidecode's lines: 'Handle 0xH,
DMI type T, L bytes' then 'Name: value' lines. The raw bytes follow SMBIOS 3.x: the formatted
area of the dump's L bytes (fields past it are left out, as a short record has them), then the
string set."""

import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(os.path.dirname(HERE), "fixtures", "smbios")

MEMORY_TYPES = {"DDR3": 0x18, "DDR4": 0x1A, "DDR5": 0x22, "LPDDR4": 0x1E, "LPDDR5": 0x23,
                "Unknown": 0x02, "Other": 0x01}
FORM_FACTORS = {"DIMM": 0x09, "SODIMM": 0x0D, "Unknown": 0x02, "Other": 0x01}


def fixture_path(name):
    return os.path.join(FIXTURES, name + ".txt")


def read_fixture(path):
    """(header {key: value}, records [(type, length, {field: value}, handle)])."""
    header, records = {}, []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for line in text.splitlines():
        m = re.match(r"# (cpu|published_mbps): (.*)", line)
        if m:
            header[m.group(1)] = m.group(2).strip()
    for block in re.split(r"\n\s*\n", text):
        m = re.search(r"^Handle 0x([0-9A-Fa-f]+), DMI type (\d+), (\d+) bytes", block, re.M)
        if not m:
            continue
        fields = {}
        for line in block.splitlines():
            kv = re.match(r"\t([^:\t]+): (.*)$", line)
            if kv:
                fields[kv.group(1)] = kv.group(2).strip()
        records.append((int(m.group(2)), int(m.group(3)), fields, int(m.group(1), 16)))
    return header, records


def _number(text):
    m = re.match(r"(\d+)", text or "")
    return int(m.group(1)) if m else 0


def _handle(text):
    return int(text, 16) if text and text.startswith("0x") else 0xFFFE


def _size_mb(text):
    m = re.match(r"(\d+) (kB|MB|GB|TB)", text or "")
    if not m:
        return 0
    return int(m.group(1)) * {"kB": 1, "MB": 1, "GB": 1024, "TB": 1024 * 1024}[m.group(2)] \
        // (1024 if m.group(2) == "kB" else 1)


class _Record:
    def __init__(self, rtype, length, handle):
        self.b = bytearray(max(length, 4))
        self.b[0], self.b[1] = rtype, length
        struct.pack_into("<H", self.b, 2, handle)
        self.strings = []

    def put(self, fmt, at, value):
        if at + struct.calcsize(fmt) <= len(self.b):
            struct.pack_into(fmt, self.b, at, value)

    def string(self, at, text):
        if text and text != "Not Specified" and at < len(self.b):
            self.strings.append(text.encode("ascii", "replace"))
            self.b[at] = len(self.strings)

    def raw(self):
        tail = b"".join(s + b"\0" for s in self.strings) + b"\0"
        return bytes(self.b) + (tail if self.strings else b"\0\0")


def _speed(rec, at, ext, text):
    mts = _number(text)
    rec.put("<H", at, 0xFFFF if mts > 0xFFFE else mts)
    if mts > 0xFFFE:
        rec.put("<I", ext, mts)


def type16(length, fields, handle):
    rec = _Record(16, length, handle)
    rec.b[4:7] = bytes([0x03, 0x03 if fields.get("Use") == "System Memory" else 0x02, 0x06])[
        :max(0, min(3, length - 4))]
    rec.put("<I", 0x07, 0x80000000)  # the capacity is in the extended field
    rec.put("<H", 0x0B, 0xFFFE)
    rec.put("<H", 0x0D, _number(fields.get("Number Of Devices")))
    return rec.raw()


def type17(length, fields, handle):
    rec = _Record(17, length, handle)
    rec.put("<H", 0x04, _handle(fields.get("Array Handle")))
    rec.put("<H", 0x06, 0xFFFE)
    for at, key in ((0x08, "Total Width"), (0x0A, "Data Width")):
        bits = _number(fields.get(key))
        rec.put("<H", at, bits if bits else 0xFFFF)
    mb = _size_mb(fields.get("Size"))
    rec.put("<H", 0x0C, 0x7FFF if mb >= 0x7FFF else mb)
    if mb >= 0x7FFF:
        rec.put("<I", 0x1C, mb)
    rec.put("<B", 0x0E, FORM_FACTORS.get(fields.get("Form Factor"), 0x02))
    rec.string(0x10, fields.get("Locator"))
    rec.string(0x11, fields.get("Bank Locator"))
    rec.put("<B", 0x12, MEMORY_TYPES.get(fields.get("Type"), 0x02))
    _speed(rec, 0x15, 0x54, fields.get("Speed"))
    rec.put("<B", 0x1B, _number(fields.get("Rank")) & 0x0F)
    configured = fields.get("Configured Memory Speed") or fields.get("Configured Clock Speed")
    _speed(rec, 0x20, 0x58, configured)
    return rec.raw()


def write_entries(path, outdir):
    """Writes outdir/entries/NN-M/raw and outdir/cpuinfo; returns the fixture's header."""
    header, records = read_fixture(path)
    count = {}
    for rtype, length, fields, handle in records:
        encode = {16: type16, 17: type17}.get(rtype)
        if not encode:
            continue
        index = count.get(rtype, 0)
        count[rtype] = index + 1
        folder = os.path.join(outdir, "entries", "%d-%d" % (rtype, index))
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "raw"), "wb") as f:
            f.write(encode(length, fields, handle))
    vendor, family, model, packages, name = (header["cpu"].split(" ", 4) + [""] * 5)[:5]
    with open(os.path.join(outdir, "cpuinfo"), "w", encoding="utf-8") as f:
        for package in range(int(packages)):
            f.write("processor\t: %d\nvendor_id\t: %s\ncpu family\t: %s\nmodel\t\t: %s\n"
                    "model name\t: %s\nphysical id\t: %d\n\n"
                    % (package, vendor, family, model, name, package))
    return header


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: smbios_fixture.py FIXTURE.txt OUTDIR")
    write_entries(sys.argv[1], sys.argv[2])
