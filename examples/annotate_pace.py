#!/usr/bin/env python3
"""How much work judging a round blind at the keyboard is, measured in a real terminal.

Drives `ethics-bowl annotate RESULTS --annotator pace --sample N` in a tmux session the
size of a laptop terminal, as a person would: on each round it pages through the whole
transcript (PgDn until the title's last row is the transcript's last), enters the
protocol's judgment with the fewest keys the screen needs, and saves (Ctrl-S). It counts
the keys of each kind, the transcript's rows and words (the responses', and the words the
screen recorded as shown), and the tool's own latency from Ctrl-S to the next round
showing (the screen polled every 2 ms; the poll itself is part of what is measured, so it
is an upper bound). It does not time reading: that is the person's.

    cargo build
    ethics-bowl run sample-config/tournament.toml --headless --out /tmp/pace-eb
    python3 examples/annotate_pace.py /tmp/pace-eb/sample --sample 20

The results folder's `annotations/pace/` is written (remove it to run again). Needs tmux.
"""

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time

SESSION = "annotate-pace"


def tmux(*args, check=True):
    return subprocess.run(["tmux", *args], check=check, capture_output=True, text=True).stdout


def screen():
    return tmux("capture-pane", "-t", SESSION, "-p")


def send(*keys):
    tmux("send-keys", "-t", SESSION, *keys)


def wait(pred, what, timeout=20.0, poll=0.002):
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        s = screen()
        if pred(s):
            return s, time.monotonic() - start
        time.sleep(poll)
    sys.exit(f"timed out waiting for {what}:\n{screen()}")


TITLE = re.compile(r"Transcript · (?:rows (\d+)–(\d+) of (\d+)|all (\d+) rows)")


def rows(s):
    m = TITLE.search(s)
    if not m:
        return None
    if m.group(4):
        return (1, int(m.group(4)), int(m.group(4)))
    return tuple(int(g) for g in m.groups()[:3])


def words(results, round_id):
    with open(os.path.join(results, "rounds", round_id + ".json")) as f:
        r = json.load(f)
    return sum(
        len(p.get("response", "").split())
        for p in r.get("phases", [])
        if "judg" not in p.get("phase_type", "")
    )


def judgment_keys(s, rng):
    """The keys that enter a judgment on this screen, by protocol (read from the rubric)."""
    if "Scores, typed" in s or "Principle articulation" in s:
        keys = []
        for cell in range(14):
            score = rng.choice([2, 3, 4, 5, 6, 7, 8, 9, 10, 1])
            keys += list(str(score))
            # A `1` waits for a `0`: the next cell's digit or Enter moves on (not after the
            # last cell).
            if score == 1 and cell == 13:
                pass
            elif score == 1:
                keys.append("Enter")
        return keys
    if "Confidence" in s:
        labels = "proved" in s and "disproved" in s
        return [rng.choice("pdu" if labels else "ab"), *str(rng.randint(50, 100))]
    # Structured debate: one key per argument row, then the winner.
    arguments = len(re.findall(r"(?:PRO|CON)-\d+ +—", s))
    return [rng.choice("upr?") for _ in range(arguments)] + [rng.choice("pct")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--sample", type=int, default=20)
    ap.add_argument("--binary", default="target/debug/ethics-bowl")
    ap.add_argument("--size", default="120x40")
    args = ap.parse_args()
    if not shutil.which("tmux"):
        sys.exit("needs tmux")
    shutil.rmtree(os.path.join(args.results, "annotations", "pace"), ignore_errors=True)
    cols, lines = args.size.split("x")
    tmux("kill-session", "-t", SESSION, check=False)
    cmd = f"{args.binary} annotate {args.results} --annotator pace --sample {args.sample}; sleep 5"
    tmux("new-session", "-d", "-s", SESSION, "-x", cols, "-y", lines, cmd)
    rng = random.Random(34)
    per_round = []
    for k in range(1, args.sample + 1):
        here = f"round {k} of {args.sample}"
        s, _ = wait(lambda s: here in s and rows(s), here)
        first, last, total = rows(s)
        pages = 0
        while last < total:
            send("PageDown")
            pages += 1
            s, _ = wait(lambda t: rows(t) and rows(t)[1] > last, "the next page")
            first, last, total = rows(s)
        keys = judgment_keys(s, rng)
        for key in keys:
            send(key)
        wait(lambda t: "Complete: Ctrl-S saves" in t, "the complete judgment")
        send("C-s")
        t0 = time.monotonic()
        nxt = f"round {k + 1} of {args.sample}" if k < args.sample else "Every one of the"
        wait(lambda t: nxt in t, nxt, poll=0.002)
        latency = time.monotonic() - t0
        per_round.append(
            {
                "rows": total,
                "pages": pages,
                "judgment_keys": len(keys),
                "keys": pages + len(keys) + 1,
                "latency_ms": latency * 1000,
            }
        )
    send("q")
    tmux("kill-session", "-t", SESSION, check=False)
    stored = os.listdir(os.path.join(args.results, "annotations", "pace"))
    with open(os.path.join(args.results, "annotations", "sample.json")) as f:
        ids = json.load(f)["round_ids"]
    for r, rid in zip(per_round, ids):
        r["words"] = words(args.results, rid)
        # What the screen recorded: the words it drew (setup and debaters' phases, headings
        # included) and the round's time on task (this script's, not a person's).
        with open(os.path.join(args.results, "annotations", "pace", rid + ".json")) as f:
            stored_judgment = json.load(f)
        r["words_shown"] = stored_judgment.get("words_shown", 0)
        r["seconds_on_round"] = stored_judgment.get("seconds_on_round", 0.0)

    def summary(key):
        v = [r[key] for r in per_round]
        return f"median {statistics.median(v):.1f}, min {min(v):.1f}, max {max(v):.1f}"

    print(f"{len(per_round)} rounds judged and stored ({len(stored)} files), terminal {args.size}")
    for key in [
        "words",
        "words_shown",
        "seconds_on_round",
        "rows",
        "pages",
        "judgment_keys",
        "keys",
        "latency_ms",
    ]:
        print(f"  {key:18} {summary(key)}")
    print(f"  keys in all        {sum(r['keys'] for r in per_round)}")


if __name__ == "__main__":
    main()
