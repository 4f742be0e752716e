"""Reference values for ethics-bowl's judge-effects fit, from statsmodels.

Run: pip install numpy pandas statsmodels && python3 make_effects.py (statsmodels 0.15.0 wrote the files)
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

# A second schedule where the unit of replication matters: every exchange is judged by all
# three judges, and each team's text in an exchange is better or worse than its model's
# usual (a shared draw), so the three judgments of one exchange are not independent.
# effects_clustered_expected.csv: term, level, estimate, and the standard errors clustered
# by exchange (statsmodels' cov_type="cluster", its default small-sample correction) and
# the naive ones that treat every row as independent.
import numpy as np

rows = []
exchange = 0
for rep in range(3):
    for a in models:
        for b in models:
            if a == b:
                continue
            text = {a: 2.0 * noise(), b: 2.0 * noise()}
            for j in judges:
                for team_a, m in ((1, a), (0, b)):
                    side = 0.5 if team_a else -0.5
                    total = 45.0 + true_model[m] + true_judge[j] + 3.0 * side + text[m] + 0.3 * noise()
                    rows.append((exchange, m, j, team_a, round(total, 3)))
            exchange += 1

df = pd.DataFrame(rows, columns=["exchange", "model", "judge", "team_a", "total"])
df["side"] = df["team_a"] - 0.5
formula = "total ~ C(model, Sum) + C(judge, Sum) + side"
clustered = smf.ols(formula, data=df).fit(cov_type="cluster", cov_kwds={"groups": df["exchange"]})
naive = smf.ols(formula, data=df).fit()

with open("effects_clustered_data.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["exchange", "model", "judge", "team_a", "total"])
    w.writerows(rows)


def terms(fit):
    """Each level's estimate and standard error, the last level's from the covariance."""
    out = []
    cov = fit.cov_params()
    for factor, levels in (("model", models), ("judge", judges)):
        names = [f"C({factor}, Sum)[S.{lv}]" for lv in levels[:-1]]
        for lv, name in zip(levels, names):
            out.append((factor, lv, float(fit.params[name]), float(np.sqrt(cov.loc[name, name]))))
        last = -sum(float(fit.params[n]) for n in names)
        var = float(cov.loc[names, names].values.sum())
        out.append((factor, levels[-1], last, float(np.sqrt(var))))
    out.append(("side", "", float(fit.params["side"]), float(np.sqrt(cov.loc["side", "side"]))))
    return out


with open("effects_clustered_expected.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["term", "level", "estimate", "se_cluster", "se_naive"])
    for (factor, lv, est, se_c), (_, _, _, se_n) in zip(terms(clustered), terms(naive)):
        w.writerow([factor, lv, repr(est), repr(se_c), repr(se_n)])
