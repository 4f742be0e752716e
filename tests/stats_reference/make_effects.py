"""Reference values for ethics-bowl's judge-effects fit, from statsmodels.

Run: pip install numpy pandas statsmodels && python3 make_effects.py
Writes effects_data.csv (one row per team total: exchange, model, judge, team_a, total) and
effects_expected.csv (term, level, estimate): the least-squares fit of
total ~ C(model, Sum) + C(judge, Sum) + side, side = +1/2 for Team A and -1/2 for Team B,
each factor's effects summing to zero (the last level is minus the sum of the others).
The data are an unbalanced schedule (four models, three judges, some pairings judged by
one judge only) with noise from a fixed linear congruential generator, so the file does
not depend on numpy's random streams.
"""
import csv

import pandas as pd
import statsmodels.formula.api as smf

state = 12345


def noise():
    global state
    state = (1103515245 * state + 12345) % 2**31
    return (state / 2**31 - 0.5) * 6.0


models = ["m0", "m1", "m2", "m3"]
judges = ["j0", "j1", "j2"]
true_model = {"m0": 4.0, "m1": 1.0, "m2": -2.0, "m3": -3.0}
true_judge = {"j0": 2.0, "j1": -0.5, "j2": -1.5}
rows = []
exchange = 0
for a in models:
    for b in models:
        if a == b:
            continue
        # Some pairings meet one judge, others two or three.
        k = (models.index(a) * 3 + models.index(b)) % 3 + 1
        for j in judges[:k]:
            for team_a, m in ((1, a), (0, b)):
                side = 0.5 if team_a else -0.5
                total = 45.0 + true_model[m] + true_judge[j] + 3.0 * side + noise()
                rows.append((exchange, m, j, team_a, round(total, 3)))
            exchange += 1

df = pd.DataFrame(rows, columns=["exchange", "model", "judge", "team_a", "total"])
df["side"] = df["team_a"] - 0.5
fit = smf.ols("total ~ C(model, Sum) + C(judge, Sum) + side", data=df).fit()

with open("effects_data.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["exchange", "model", "judge", "team_a", "total"])
    w.writerows(rows)

with open("effects_expected.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["term", "level", "estimate"])
    for factor, levels in (("model", models), ("judge", judges)):
        effects = [float(fit.params[f"C({factor}, Sum)[S.{lv}]"]) for lv in levels[:-1]]
        effects.append(-sum(effects))
        for lv, e in zip(levels, effects):
            w.writerow([factor, lv, repr(e)])
    w.writerow(["side", "", repr(float(fit.params["side"]))])
