#!/usr/bin/env python3
"""ab-medians.py: the medians of an A/B bench series (scripts/bench-*.sh).

usage: scripts/ab-medians.py OUT_DIR ROUNDS BASE TRIAL

Reads OUT_DIR/round<r>-<mode>.csv for r in 1..ROUNDS and mode BASE and
TRIAL (each `signet bench parallel --csv`), and prints per algorithm and
client count the median sigs/s of each mode, TRIAL/BASE, and every run.
"""
import csv
import statistics
import sys


def main():
    out_dir, rounds, base, trial = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    figures = {}  # (algo, clients) -> mode -> [sigs/s]
    for r in range(1, rounds + 1):
        for mode in (base, trial):
            with open(f"{out_dir}/round{r}-{mode}.csv") as f:
                lines = f.read().splitlines()
            start = next(i for i, line in enumerate(lines) if line.startswith("algorithm,"))
            for row in csv.DictReader(lines[start:]):
                if not row.get("c"):
                    continue
                key = (row["algorithm"], int(row["c"]))
                figures.setdefault(key, {}).setdefault(mode, []).append(float(row["sigs/sec"]))
    print(f"algorithm clients {trial}_median {base}_median {trial}/{base}  {trial}_runs | {base}_runs")
    for (algo, clients), modes in sorted(figures.items()):
        t, b = statistics.median(modes[trial]), statistics.median(modes[base])
        runs = lambda xs: " ".join(f"{x:.0f}" for x in xs)
        print(f"{algo} {clients} {t:.0f} {b:.0f} {t / b:.3f}  {runs(modes[trial])} | {runs(modes[base])}")


if __name__ == "__main__":
    main()
