"""Reference values for ethics-bowl's agreement of judges with people, from libraries.

Run: pip install numpy krippendorff scikit-learn ppi-python && python3 make_agreement.py
(krippendorff 0.9.0, scikit-learn 1.9.1, ppi-python wrote the file). Writes
agreement_reference.csv: case, statistic, data, expected. Statistics:
- krippendorff_nominal: units as '|'-separated groups of ','-separated category codes
  (krippendorff.alpha, level_of_measurement="nominal");
- quadratic_kappa: x and y as ';'-separated integers, 'x/y'
  (sklearn.metrics.cohen_kappa_score, weights="quadratic", labels = every integer from the
  smallest value to the largest);
- ppi_low, ppi_high, ppi_estimate: 'labelled people;…/labelled judge;…/unlabelled judge;…'
  (ppi_py.ppi_mean_ci and ppi_mean_pointestimate, alpha=0.05, the power-tuned lambda).
The data come from a fixed linear congruential generator, not numpy's random streams.
"""
import csv

import krippendorff
import numpy as np
from ppi_py import ppi_mean_ci, ppi_mean_pointestimate
from sklearn.metrics import cohen_kappa_score

state = 2024


def uniform():
    global state
    state = (1103515245 * state + 12345) % 2**31
    return state / 2**31


rows = []

nominal = {
    "two_raters": [[0, 0], [1, 1], [0, 1], [2, 2], [1, 1], [0, 0], [2, 1], [1, 1]],
    "three_raters_missing": [[0, 0, 1], [1, 1], [2, 2, 2], [0], [1, 0, 1], [2, 2]],
    "verdicts": [[0, 0], [0, 1], [1, 1], [2, 0], [1, 1], [0, 0], [1, 0], [0, 0], [1, 1], [2, 2]],
}
for name, units in nominal.items():
    raters = max(len(u) for u in units)
    matrix = np.full((raters, len(units)), np.nan)
    for j, u in enumerate(units):
        for i, v in enumerate(u):
            matrix[i, j] = v
    alpha = krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
    data = "|".join(",".join(map(str, u)) for u in units)
    rows.append((name, "krippendorff_nominal", data, repr(float(alpha))))

kappa = {
    "close": ([50, 44, 61, 38, 55, 47, 52, 58], [48, 45, 60, 40, 57, 45, 50, 59]),
    "lenient": ([50, 44, 61, 38, 55, 47, 52, 58], [55, 49, 66, 43, 60, 52, 57, 63]),
    "noisy": ([int(30 + 30 * uniform()) for _ in range(30)], [int(30 + 30 * uniform()) for _ in range(30)]),
}
for name, (x, y) in kappa.items():
    labels = list(range(min(x + y), max(x + y) + 1))
    k = cohen_kappa_score(x, y, weights="quadratic", labels=labels)
    data = ";".join(map(str, x)) + "/" + ";".join(map(str, y))
    rows.append((name, "quadratic_kappa", data, repr(float(k))))

for name, (n, big_n, bias, noise) in {
    "tracking_judge": (20, 60, 3.0, 1.0),
    "noisy_judge": (15, 45, -2.0, 6.0),
    "few_unlabelled": (12, 5, 1.0, 2.0),
}.items():
    truth = [40 + 15 * uniform() for _ in range(n + big_n)]
    people = np.array([t + 2.0 * (uniform() - 0.5) for t in truth[:n]])
    judge = np.array([t + bias + noise * (uniform() - 0.5) for t in truth])
    lab, unl = judge[:n], judge[n:]
    low, high = ppi_mean_ci(people, lab, unl, alpha=0.05)
    est = ppi_mean_pointestimate(people, lab, unl)
    data = "/".join(";".join(repr(float(v)) for v in a) for a in (people, lab, unl))
    rows.append((name, "ppi_estimate", data, repr(float(np.ravel(est)[0]))))
    rows.append((name, "ppi_low", data, repr(float(np.ravel(low)[0]))))
    rows.append((name, "ppi_high", data, repr(float(np.ravel(high)[0]))))

with open("agreement_reference.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["case", "statistic", "data", "expected"])
    w.writerows(rows)
