#!/usr/bin/env python3
"""A stand-in for build/syncbench that speaks the A/B worker protocol
(scripts/ab.py), for tests/py/test_ab.py: no GPU, no build.

    fake_syncbench.py --benchmark_list_tests [SWEEP_ARGS]
    fake_syncbench.py --serve (--out FILE | --resume FILE) [--seed S] [--device N] [SWEEP_ARGS]

Behaviour by environment. Every FAKE_X is read as FAKE_X_<FAKE_SIDE> first
(a per-side setting), then FAKE_X:
  FAKE_SIDE         label in the trace (A, B); picks the per-side settings
  FAKE_POINTS       the sweep: point names separated by blanks, or @FILE
  FAKE_TRACE        file where each event is appended as `<seq> <side> <event> <what>`,
                    seq a sequence number over every process sharing the file
  FAKE_SLOW         name:factor[,name:factor...]: those points that much slower
  FAKE_CRASH_POINT  names (comma list) answered `error` (syncbench's supervisor
                    catches the crash; the server goes on)
  FAKE_DIE_AT       name: the server process exits abruptly (status 9) when asked it
                    (whole, or its part 1)
  FAKE_DIE_AT_PART2 name: the server process exits abruptly when asked its part 2
  FAKE_DIE_BETWEEN  names (comma list): the worker dies between the point's two
                    parts: part 2 answers `error` with an error row, as the
                    supervisor's crash row
  FAKE_NO_PARTS     set: `@part` is not understood (a build older than it):
                    `unknown - <the whole line>`
  FAKE_NO_SERVE     set: --serve is an unknown option (exit 2), as in old builds
  FAKE_NO_GPU       set: exit 3 before `ready`, one line on stderr
  FAKE_UUID         the GPU uuid (default GPU-fake-0000)
  FAKE_COMMIT       the commit in `ready` and the CSV (default fake-<side>)
  FAKE_DELAY        seconds each point takes (default 0)
  FAKE_TAKES        JSON (or @FILE): {name: [take 1, take 2, ...]}, what this server
                    answers the n-th time it is asked the point (whole, or its part 1;
                    counted per server process; past the list, its last take): a
                    median in us, or {"median": us, "min": us, "status": s}, each
                    optional (status `die`: the server exits abruptly, as FAKE_DIE_AT)
Parts (`@part 1/2 NAME`, `@part 2/2 NAME`, syncbench --serve): part 1
answers `partial - NAME` (or the point's final status when it fails: then
its row is written, and its part 2 answers that status again without a
row); part 2 writes the one row of the point. Traced as `part1`, `part2`.
The CSV rows are schema 8, with the header of results/csv_header.csv; the
times are a function of the point name, times the slowdown, with a noise
of +-0.2% drawn from (seed, side, name).
"""
import csv
import fcntl
import json
import os
import random
import signal
import sys
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEADER = os.path.join(ROOT, "results", "csv_header.csv")
SIDE = os.environ.get("FAKE_SIDE", "?")


def setting(name, default=None):
    for key in (f"FAKE_{name}_{SIDE}", f"FAKE_{name}"):
        if key in os.environ:
            return os.environ[key]
    return default


def trace(event, what):
    path = setting("TRACE")
    if not path:
        return
    with open(path, "a+", encoding="utf-8") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.seek(0)
        seq = sum(1 for _ in f)
        f.write(f"{seq} {SIDE} {event} {what}\n")
        f.flush()
        fcntl.flock(f, fcntl.LOCK_UN)


def points():
    spec = setting("POINTS", "")
    if spec.startswith("@"):
        with open(spec[1:], encoding="utf-8") as f:
            spec = f.read()
    return spec.split()


def names(key):
    return {n for n in (setting(key) or "").replace(",", " ").split() if n}


def scripted_takes():
    spec = setting("TAKES") or "{}"
    if spec.startswith("@"):
        with open(spec[1:], encoding="utf-8") as f:
            spec = f.read()
    return {name: [t if isinstance(t, dict) else {"median": t} for t in takes]
            for name, takes in json.loads(spec).items()}


def take_spec(takes, name, n):
    """What the n-th take (1-based) of name is scripted to be, or {}."""
    script = takes.get(name)
    return script[min(n, len(script)) - 1] if script else {}


def parse(argv):
    opts = {"sweep": []}
    it = iter(argv)
    for arg in it:
        if arg in ("--out", "--resume", "--seed", "--device"):
            opts[arg[2:]] = next(it, None)
        elif arg in ("--serve", "--benchmark_list_tests"):
            opts[arg[2:]] = True
        else:
            opts["sweep"].append(arg)
    return opts


def row_for(name, status, median, seed, uuid, commit, header, fastest=None):
    parts = name.split("/")
    row = dict.fromkeys(header, "")
    row.update(schema_version=8, family=parts[0], variant=parts[1], status=status,
               gpu_name="NVIDIA H100 80GB HBM3", gpu_uuid=uuid, cc="9.0", sm_count=132,
               driver="580.00", cuda="13.0", commit=commit,
               run_utc=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), seed=seed,
               blocks_per_sm=1)
    for axis in parts[2:]:
        key, _, value = axis.partition("=")
        if key in row:
            row[key] = value
    if status == "ok":
        fastest = median * 0.99 if fastest is None else fastest
        row.update(samples=100, median_us=f"{median:.4f}", min_us=f"{fastest:.4f}",
                   max_us=f"{median * 1.02:.4f}", q1_us=f"{median * 0.995:.4f}",
                   q3_us=f"{median * 1.005:.4f}", cv_pct="0.50", sm_clock_mhz="1980.00",
                   sm_clock_after_mhz="1980.00")
    else:
        row["detail"] = f"fake {status}"
    return row


def serve(opts):
    if setting("NO_SERVE"):
        print("syncbench: unknown option '--serve' (see --help)", file=sys.stderr)
        return 2
    if setting("NO_GPU"):
        print("syncbench: no CUDA device: cudaGetDeviceCount: no CUDA-capable device is detected",
              file=sys.stderr)
        return 3
    path = opts.get("resume") or opts.get("out")
    if not path:
        print("syncbench: --serve needs --out FILE or --resume FILE", file=sys.stderr)
        return 2
    with open(HEADER, encoding="utf-8") as f:
        header = f.readline().strip().split(",")
    seed = opts.get("seed") or "1"
    uuid = setting("UUID", "GPU-fake-0000")
    commit = setting("COMMIT", f"fake-{SIDE}")
    how = "resume" if opts.get("resume") else "out"
    trace("serve", f"seed={seed} {how}={path} device={opts.get('device')} "
                   f"sweep={' '.join(opts['sweep']) or '-'}")
    if how == "out" or not os.path.exists(path):
        with open(path, "w", newline="", encoding="utf-8") as f:
            csv.writer(f, lineterminator="\n").writerow(header)
    known = set(points())
    slow = {}
    for item in (setting("SLOW") or "").split(","):
        if ":" in item:
            n, _, factor = item.rpartition(":")
            slow[n] = float(factor)
    crash, die_at = names("CRASH_POINT"), setting("DIE_AT")
    die_at_part2, die_between = setting("DIE_AT_PART2"), names("DIE_BETWEEN")
    no_parts = setting("NO_PARTS")
    delay = float(setting("DELAY", "0"))
    takes, asked = scripted_takes(), {}
    print(f"ready {uuid} {commit}", flush=True)
    failed = False
    waiting = None                    # the point whose part 1 passed
    decided = None                    # (name, status): a part 1 that ended its point
    for line in sys.stdin:
        name = line.strip()
        if not name:
            continue
        if name == "@start":          # set up, run nothing
            trace("start", os.path.basename(path))
            print("started", flush=True)
            continue
        part = None
        if name.startswith(("@part 1/2 ", "@part 2/2 ")) and not no_parts:
            part, name = int(name[6]), name[10:]
        trace("run" if part is None else f"part{part}", name)
        was_waiting, was_decided = waiting, decided
        waiting = decided = None
        if name not in known:
            print(f"unknown - {name}", flush=True)
            continue
        if part != 2:
            asked[name] = asked.get(name, 0) + 1
        spec = take_spec(takes, name, asked.get(name, 1))
        if (name == die_at and part != 2 or name == die_at_part2 and part == 2
                or spec.get("status") == "die"):
            print(f"fake: dying at {name}", file=sys.stderr, flush=True)
            os._exit(9)
        if part == 2 and was_decided and was_decided[0] == name:
            print(f"{was_decided[1]} - {name}", flush=True)
            continue
        time.sleep(delay / 2 if part else delay)
        status = spec.get("status") or ("error" if name in crash else "ok")
        if part == 1 and status == "ok":
            waiting = name
            print(f"partial - {name}", flush=True)
            continue
        if part == 1:
            decided = (name, status)
        if part == 2 and (was_waiting != name or name in die_between):
            status = "error"
        median = None
        if status == "ok":
            base = 10 + (zlib.crc32(name.encode()) % 1000) / 10
            noise = random.Random(f"{seed}/{SIDE}/{name}").uniform(-0.002, 0.002)
            median = spec.get("median") or base * (1 + noise) * slow.get(name, 1.0)
        failed |= status != "ok"
        with open(path, "a", newline="", encoding="utf-8") as f:
            csv.DictWriter(f, fieldnames=header, lineterminator="\n").writerow(
                row_for(name, status, median, seed, uuid, commit, header, spec.get("min")))
        print(f"{status} {'-' if median is None else f'{median:.4f}'} {name}", flush=True)
    return 1 if failed else 0


def main():
    signal.signal(signal.SIGINT, lambda *_: os._exit(130))
    opts = parse(sys.argv[1:])
    if opts.get("benchmark_list_tests"):
        trace("list", " ".join(opts["sweep"]) or "-")
        print("\n".join(points()))
        return 0
    if opts.get("serve"):
        return serve(opts)
    print("fake_syncbench: only --benchmark_list_tests and --serve", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
