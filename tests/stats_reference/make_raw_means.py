"""Reference values for the raw means beside ethics-bowl's adjusted scores, from statsmodels.

Run: pip install numpy pandas statsmodels && python3 make_raw_means.py (statsmodels 0.15.0
wrote the file). Reads effects_clustered_data.csv (written by make_effects.py: every exchange
judged by three judges) and writes effects_raw_expected.csv (model, estimate, se_cluster,
se_naive): each model's mean total minus the average of the models' mean totals, with its
standard error clustered by exchange (cov_type="cluster") and the naive one that treats
every judgment as independent. The means are the coefficients of total ~ 0 + C(model); the
centred mean is the contrast e_i - 1/k, so its variance is c' V c.
"""
import csv

import numpy as np
import pandas as pd
import statsmodels.formula.api as smf

df = pd.read_csv("effects_clustered_data.csv")
models = sorted(df["model"].unique())
formula = "total ~ 0 + C(model)"
clustered = smf.ols(formula, data=df).fit(cov_type="cluster", cov_kwds={"groups": df["exchange"]})
naive = smf.ols(formula, data=df).fit()
k = len(models)
with open("effects_raw_expected.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["model", "estimate", "se_cluster", "se_naive"])
    for i, m in enumerate(models):
        c = np.full(k, -1.0 / k)
        c[i] += 1.0
        est = float(c @ clustered.params.values)
        se_c = float(np.sqrt(c @ clustered.cov_params().values @ c))
        se_n = float(np.sqrt(c @ naive.cov_params().values @ c))
        w.writerow([m, repr(est), repr(se_c), repr(se_n)])
