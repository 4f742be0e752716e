"""Expected statistics from well-known libraries, recorded once for ethics-bowl's tests.

Run: pip install scipy krippendorff && python3 make_reference.py > reference.csv
Each row: a case name, the statistic, the data (x and y as ';'-separated numbers, or units
as '|'-separated groups of ','-separated ratings), and the value scipy/krippendorff give.
"""
import csv
import sys

import krippendorff
import numpy as np
from scipy import stats

pairs = {
    "linear": ([1, 2, 3, 4, 5], [2, 4, 6, 8, 10]),
    "noisy": ([7, 8, 6, 9, 5, 8, 7, 6], [6, 9, 6, 8, 4, 7, 8, 5]),
    "ties": ([8, 8, 9, 7, 7, 10, 6], [7, 8, 9, 7, 6, 9, 7]),
    "half_points": ([7.5, 8, 6.5, 9, 5], [7, 8.5, 6, 9.5, 6]),
    "negative": ([1, 2, 3, 4, 5, 6], [6, 5, 5, 3, 2, 1]),
}
units = {
    "two_judges": [[7, 8], [9, 9], [4, 5], [6, 6], [8, 7]],
    "three_judges": [[7, 8, 6], [9, 9, 8], [4, 5, 5], [6, 6, 7], [8, 7, 9], [5, 5, 4]],
    "missing_values": [[7, 8, 6], [9, 9], [4, 5, 5], [6], [8, 7, 9]],
    "harsh_judge": [[7, 5], [9, 7], [4, 2], [6, 4], [8, 6]],
}

w = csv.writer(sys.stdout)
w.writerow(["case", "statistic", "data", "expected"])
for name, (x, y) in pairs.items():
    data = ";".join(map(str, x)) + "/" + ";".join(map(str, y))
    w.writerow([name, "pearson", data, repr(float(stats.pearsonr(x, y)[0]))])
    w.writerow([name, "spearman", data, repr(float(stats.spearmanr(x, y)[0]))])
for name, us in units.items():
    raters = max(len(u) for u in us)
    matrix = np.full((raters, len(us)), np.nan)
    for j, u in enumerate(us):
        for i, v in enumerate(u):
            matrix[i, j] = v
    alpha = krippendorff.alpha(reliability_data=matrix, level_of_measurement="interval")
    data = "|".join(",".join(map(str, u)) for u in us)
    w.writerow([name, "krippendorff_interval", data, repr(float(alpha))])
