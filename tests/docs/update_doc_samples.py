#!/usr/bin/env python3
"""Rewrite the docs' samples of program output from real runs on this machine, or check them.

    tests/docs/update_doc_samples.py                 # run every sample's command, rewrite it
    tests/docs/update_doc_samples.py docs/tlb.md     # only the samples of these files
    tests/docs/update_doc_samples.py docs/tlb.md:165 # only the sample whose fence is there
    tests/docs/update_doc_samples.py --check         # compare, all samples (slow ones too)
    tests/docs/update_doc_samples.py --check --full  # compare against the sample: commands

A sample is marked by a comment before its fence (tests/lib/doc_samples.py says how); its
`sample:` command is run in a scratch directory (after its `setup:`), with the built
membench (build/, or MEMBENCH_BIN), and the block is replaced by the output: each run of
lines between `...` markers becomes the output's lines from its first to its last line
found, so a trimmed sample stays trimmed. Run it on a quiet machine and quote the load:
the samples' numbers are real. Samples that need what is absent (the MPI build) are left
as they are, saying why. Exit 1 when --check finds a sample that is not the output.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import doc_samples  # noqa: E402


def rewrite(path, sample, new_lines):
    full = os.path.join(doc_samples.ROOT, path)
    with open(full, encoding="utf-8") as f:
        text = f.read().split("\n")
    start = sample.line  # the fence's line (1-based): the body starts at index start
    end = start
    while not text[end].strip().startswith("```"):
        end += 1
    head = text[start:start + 1] if sample.lines and sample.lines[0].startswith("$ ") else []
    body = [(sample.indent + l).rstrip() if l else "" for l in new_lines]
    text[start:end] = head + body
    with open(full, "w", encoding="utf-8") as f:
        f.write("\n".join(text))
    return len(head) + len(body) - (end - start)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*",
                    help="README.md, docs/x.md or docs/x.md:LINE (default: all)")
    ap.add_argument("--check", action="store_true", help="compare only, rewrite nothing")
    ap.add_argument("--full", action="store_true",
                    help="with --check: run the sample: commands, not the smaller check:")
    args = ap.parse_args()
    found, _, unmarked = doc_samples.samples()
    if unmarked:
        print("unmarked output blocks (add <!-- sample: ... --> or <!-- not output: ... -->):"
              " %s" % ", ".join(unmarked))
    cache, failed, shift = {}, 0, {}
    with doc_samples.scratch() as scratch:
        for sample in found:
            if args.files and sample.path not in args.files and sample.where not in args.files:
                continue
            why = doc_samples.missing(sample)
            if why:
                print("%s: left as it is: %s" % (sample.where, why))
                continue
            small = args.check and not args.full and sample.small
            command = sample.check_command if small else sample.command
            key = (sample.fields.get("setup"), command)
            if key not in cache:
                if sample.fields.get("setup"):
                    doc_samples.run(sample.fields["setup"], scratch)
                start = time.monotonic()
                cache[key] = doc_samples.run(command, scratch)
                print("%s: %s: exit %d, %.1f s" % (sample.where, command, cache[key][1],
                                                   time.monotonic() - start), flush=True)
            output, _ = cache[key]
            json_kind = "json" in sample.fields
            if args.check:
                problem = (doc_samples.compare_json if json_kind else doc_samples.compare)(
                    sample.body(), output, small)
                if problem:
                    failed += 1
                    print("%s: NOT the output of %s:\n%s\n" % (sample.where, command, problem))
                continue
            new = (doc_samples.regenerate_json(sample.body(), output) if json_kind
                   else doc_samples.regenerate(sample.body(), output))
            sample.line += shift.get(sample.path, 0)
            shift[sample.path] = shift.get(sample.path, 0) + rewrite(sample.path, sample, new)
    if not args.check and not args.files:
        with open(doc_samples.MACHINE_FILE, "w") as f:
            f.write(doc_samples.machine())
    if args.check:
        print("%d sample(s) differ" % failed if failed else "every sample checked is the output")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
