#!/usr/bin/env python3
"""Merge hyperfine --export-json files of the same commands into one.

    merge_rounds.py OUT ROUND1.json ROUND2.json ...

bench/rounds.sh (for bench/exec.sh and bench/lint.sh) runs hyperfine in rounds (all commands once
per round, each round a fresh hyperfine run) instead of all runs of one
command back to back, so a slow minute on the machine falls on every
command alike rather than on whichever ran then; the ratios they print
are between the medians of all rounds' runs. OUT has hyperfine's shape
(results: command, median, min, mean, times, and user and system as the
mean over all runs) plus "round_medians", each command's median in each
round, so the spread between rounds is visible.
"""
import json
import statistics
import sys

out, rounds = sys.argv[1], sys.argv[2:]
merged = {}
order = []
for path in rounds:
    for r in json.load(open(path))["results"]:
        cmd = r["command"]
        if cmd not in merged:
            order.append(cmd)
            merged[cmd] = {"command": cmd, "times": [], "round_medians": [], "cpu": []}
        merged[cmd]["times"] += r["times"]
        merged[cmd]["cpu"].append((len(r["times"]), r["user"], r["system"]))
        merged[cmd]["round_medians"].append(r["median"])
results = []
for cmd in order:
    m = merged[cmd]
    m["median"] = statistics.median(m["times"])
    m["mean"] = statistics.fmean(m["times"])
    m["min"] = min(m["times"])
    cpu = m.pop("cpu")
    runs = sum(n for n, _, _ in cpu)
    m["user"] = sum(n * u for n, u, _ in cpu) / runs
    m["system"] = sum(n * s for n, _, s in cpu) / runs
    results.append(m)
json.dump({"results": results}, open(out, "w"))
