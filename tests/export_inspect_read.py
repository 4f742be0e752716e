"""Reads an Inspect log written by `ethics-bowl export --format inspect` with Inspect's own
reader (inspect_ai.log.read_eval_log) and checks it against what the round files say.

Run by tests/export_inspect.rs: python export_inspect_read.py LOG EXPECTED.json [LOG
EXPECTED.json ...] (one process for every log: importing inspect_ai takes seconds), where
EXPECTED holds, per round id, the score names (the usable judges), whether the round failed,
and each model's tokens; and the tournament's total usage by model. Prints a line per log and
exits 0 when everything in every log matches, else prints every mismatch and exits 1.
"""

import json
import math
import sys

from inspect_ai.log import read_eval_log


def main() -> int:
    args = sys.argv[1:]
    failed = 0
    for log_path, expected_path in zip(args[::2], args[1::2]):
        failed += check_log(log_path, expected_path)
    return 1 if failed or not args or len(args) % 2 else 0


def check_log(log_path: str, expected_path: str) -> int:
    with open(expected_path, encoding="utf-8") as f:
        expected = json.load(f)
    log = read_eval_log(log_path)
    problems = []

    def check(ok, what):
        if not ok:
            problems.append(what)

    check(log.version == 2, f"version {log.version}")
    check(log.eval.task == expected["task"], f"task {log.eval.task}")
    samples = log.samples or []
    rounds = expected["rounds"]
    check(len(samples) == len(rounds), f"{len(samples)} samples for {len(rounds)} rounds")
    check(log.results is not None and log.results.total_samples == len(rounds), "total_samples")
    by_id = {s.id: s for s in samples}
    check(sorted(by_id) == sorted(rounds), f"ids {sorted(by_id)} != {sorted(rounds)}")
    for round_id, want in rounds.items():
        s = by_id.get(round_id)
        if s is None:
            continue
        check(s.epoch == want["epoch"], f"{round_id}: epoch {s.epoch}")
        names = sorted((s.scores or {}).keys())
        check(names == sorted(want["scores"]), f"{round_id}: scores {names} != {want['scores']}")
        check((s.error is not None) == want["failed"], f"{round_id}: error {s.error}")
        if want["failed"]:
            check(not s.scores, f"{round_id}: a failed round has scores")
        for name, score in (s.scores or {}).items():
            check(isinstance(score.value, dict), f"{round_id}/{name}: value {score.value!r}")
            for key, v in score.value.items():
                check(
                    v is None or isinstance(v, str) or math.isfinite(float(v)),
                    f"{round_id}/{name}/{key}: {v!r}",
                )
            for key, v in want["scores"][name].items():
                check(score.value.get(key) == v, f"{round_id}/{name}/{key}: {score.value.get(key)!r} != {v!r}")
        usage = {m: [u.input_tokens, u.output_tokens] for m, u in s.model_usage.items()}
        check(usage == want["usage"], f"{round_id}: usage {usage} != {want['usage']}")
        roles = [m.metadata.get("role") for m in s.messages if m.role == "assistant"]
        check(len(roles) == want["calls"], f"{round_id}: {len(roles)} messages for {want['calls']} calls")
        check(all(r in ("debater", "judge", "panel_judge") for r in roles), f"{round_id}: roles {roles}")
        events = [e for e in s.events if e.event == "model"]
        check(len(events) == want["calls"], f"{round_id}: {len(events)} model events for {want['calls']} calls")
        check(all(e.input and e.input[-1].role == "user" for e in events), f"{round_id}: an event without its prompt")
    total = {m: [u.input_tokens, u.output_tokens] for m, u in log.stats.model_usage.items()}
    check(total == expected["usage"], f"stats usage {total} != {expected['usage']}")
    check(bool(log.eval.model_roles) and "debater" in log.eval.model_roles, "model_roles")

    if problems:
        for p in problems:
            print(f"{log_path}: {p}")
        return 1
    print(f"read {log_path}: {len(samples)} samples, inspect-ai reads it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
