"""Summarises the side-by-side runs of bench/producer.sh and bench/consumer.sh.

Reads lines "BROKERS SIZE CLIENT ROUND RATE CPU_SECONDS RECORDS" and prints,
per cluster shape and record size, each client's median records/s with its
range and median CPU per record, then kbench's ratios to the others. With
--markdown, prints the same as the two Markdown tables of docs/benchmarks.md.
"""
import collections
import statistics
import sys

CLIENTS = ("java", "kbench", "base", "rdkafka", "bare")  # base: kbench at another commit (BASELINE)

markdown = "--markdown" in sys.argv[1:]
path = [a for a in sys.argv[1:] if a != "--markdown"][0]
by = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(path):
    b, s, c, _round, rate, cpu, n = line.split()
    by[(int(b), int(s))][c].append((float(rate), float(cpu) / int(n) * 1e6))


def medians(clients):
    med, spread = {}, {}
    for c in CLIENTS:
        xs = clients.get(c)
        if xs:
            rates, cpus = [x[0] for x in xs], [x[1] for x in xs]
            med[c] = (statistics.median(rates), statistics.median(cpus))
            spread[c] = (min(rates), max(rates), min(cpus), max(cpus))
    return med, spread


def print_markdown():
    print("| brokers | size | client | records/s (median) | range | CPU µs/record (median) | range |")
    print("| ---: | ---: | --- | ---: | ---: | ---: | ---: |")
    ratios = []
    for (b, s), clients in sorted(by.items()):
        med, spread = medians(clients)
        for c in CLIENTS:
            if c in med:
                lo, hi, clo, chi = spread[c]
                name = f"**{c}**" if c == "kbench" else c
                print(f"| {b} | {s} B | {name} | {med[c][0]:,.0f} | {lo:,.0f}–{hi:,.0f} | {med[c][1]:.2f} | {clo:.2f}–{chi:.2f} |")
        if all(c in med for c in CLIENTS):
            k = med["kbench"]
            best = max(med["rdkafka"][0], med["bare"][0])
            ratios.append(f"| {b} | {s} B | {k[0] / best:.2f}× | {k[0] / med['rdkafka'][0]:.2f}× | "
                          f"{k[0] / med['bare'][0]:.2f}× | {k[0] / med['java'][0]:.2f}× | {k[1] / med['bare'][1]:.2f}× |")
    print()
    print("| brokers | size | kbench ÷ best native (records/s) | kbench ÷ librdkafka | kbench ÷ bare loop | kbench ÷ Java | kbench CPU/record ÷ bare loop's |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    print("\n".join(ratios))
    for (b, s), clients in sorted(by.items()):
        med, _ = medians(clients)
        if "kbench" in med and "base" in med:
            k, base = med["kbench"], med["base"]
            print(f"\n{b} broker(s), {s} B: kbench ÷ base {k[0] / base[0]:.2f}× records/s, {k[1] / base[1]:.2f}× CPU per record")


if markdown:
    print_markdown()
    sys.exit(0)

print(f"{'brokers':>7} {'size':>5} {'client':>8} {'records/s median':>17} {'range':>23} {'CPU µs/record':>14} {'range':>11}")
for (b, s), clients in sorted(by.items()):
    med, spread = medians(clients)
    for c in CLIENTS:
        if c in med:
            lo, hi, clo, chi = spread[c]
            print(f"{b:>7} {s:>5} {c:>8} {med[c][0]:>17,.0f} {lo:>11,.0f}-{hi:<11,.0f}"
                  f" {med[c][1]:>14.2f} {clo:>5.2f}-{chi:<5.2f}")
    k = med.get("kbench")
    if not k:
        continue
    others = "  ".join(f"{k[0] / med[c][0]:.2f}x {c}" for c in CLIENTS[2:] + CLIENTS[:1] if c in med)
    if "base" in med:
        others += f"; CPU per record {k[1] / med['base'][1]:.2f}x base's"
    line = f"{'':>15} kbench records/s: {others}"
    if "bare" in med:
        line += f"; CPU per record: {k[1] / med['bare'][1]:.2f}x the bare loop's"
    print(line)
    native = [med[c][0] for c in ("rdkafka", "bare") if c in med]
    if native:
        print(f"{'':>15} kbench / best native client: {k[0] / max(native):.2f}x")
