"""Reference values for ethics-bowl's cluster-robust prediction-powered mean
(`analysis::human::rates::clustered_ppi`), from ppi_py and statsmodels.

Run: pip install numpy scipy statsmodels ppi_python && python3 make_clustered_ppi.py
(ppi_python 0.2.3, statsmodels 0.15.0 wrote the values in `src/analysis/human/rates.rs`'s
`clustered_ppi_matches_ppi_py_and_statsmodels` test). The data is a formula both sides compute:
12 clusters (items) of 1 to 3 rounds; a round's judges' value is ((7c + 3r) mod 5) / 4; people
judged the rounds of the first 8 clusters with r = 0 and the second round of even clusters,
their value ((7c + 3r) mod 5 + c mod 2) / 5.

lambda is ppi_py's power-tuned one (recovered from ppi_mean_pointestimate). The standard
error of  theta = lambda * mean(f_unlabelled) + mean(Y - lambda * f_labelled)  is
statsmodels' cluster-robust covariance of the two means (OLS of z on two indicators, no small
sample correction, clustered by item), times G / (G - 1); the interval uses Student's t with
the labelled clusters less one degree of freedom.
"""
import numpy as np
import statsmodels.api as sm
from ppi_py import ppi_mean_pointestimate
from scipy.stats import t

rows = []  # (cluster, judges, people or None)
for c in range(12):
    for r in range(1 + c % 3):
        judges = ((7 * c + 3 * r) % 5) / 4
        labelled = (c < 8 and r == 0) or (c % 2 == 0 and r == 1)
        people = ((7 * c + 3 * r) % 5 + c % 2) / 5 if labelled else None
        rows.append((c, judges, people))

lab = [(c, f, y) for c, f, y in rows if y is not None]
unl = [(c, f) for c, f, y in rows if y is None]
Y = np.array([y for _, _, y in lab])
Yhat = np.array([f for _, f, _ in lab])
F = np.array([f for _, f in unl])
theta = float(np.ravel(ppi_mean_pointestimate(Y, Yhat, F))[0])
lam = (theta - Y.mean()) / (F.mean() - Yhat.mean())

z = np.concatenate([Y - lam * Yhat, F])
X = np.zeros((len(z), 2))
X[: len(Y), 0] = 1
X[len(Y):, 1] = 1
groups = np.array([c for c, _, _ in lab] + [c for c, _ in unl])
fit = sm.OLS(z, X).fit(cov_type="cluster", cov_kwds={"groups": groups, "use_correction": False})
w = np.array([1.0, lam])
g = len(set(groups))
se = float(np.sqrt(w @ fit.cov_params() @ w * g / (g - 1)))
labelled_clusters = len({c for c, _, _ in lab})
q = t.ppf(0.975, labelled_clusters - 1)
print(f"lambda {lam:.12f}")
print(f"estimate {theta:.12f}")
print(f"low {theta - q * se:.12f}")
print(f"high {theta + q * se:.12f}")
print(f"labelled {labelled_clusters} unlabelled {g - labelled_clusters}")
