"""Reference values for the paired lift over the naive judge (the unit test
analysis::qa::tests::the_lift_is_the_difference_of_accuracies_with_a_paired_interval_over_items):
twenty items, each judged three times in debate and once by the naive judge; the difference of
the two pooled accuracies, its cluster bootstrap over items (numpy, 200,000 resamples) and the
linearised paired standard error. Run: pip install numpy && python3 make_paired.py
"""
import numpy as np
d = np.array([3,2,3,1,0,3,2,2,3,1,3,0,2,3,1,2,3,3,0,2])  # debate hits of 3
nv = np.array([1,0,1,0,0,1,1,0,1,0,1,0,0,1,0,1,1,0,0,0])  # naive hits of 1
td = np.full(20, 3); tn = np.ones(20, dtype=int)
G = 20
point = d.sum()/td.sum() - nv.sum()/tn.sum()
rng = np.random.default_rng(12345)
B = 200000
idx = rng.integers(0, G, size=(B, G))
diff = d[idx].sum(1)/td[idx].sum(1) - nv[idx].sum(1)/tn[idx].sum(1)
pd, pn = d.sum()/td.sum(), nv.sum()/tn.sum()
# linearised (delta-method) paired SE of a difference of two ratio estimators, clustered by item
u = (d - pd*td)/td.sum() - (nv - pn*tn)/tn.sum()
se_lin = np.sqrt(G/(G-1) * (u**2).sum())
print("point", repr(point))
print("boot se", diff.std(ddof=1))
print("percentiles", np.percentile(diff, [2.5, 97.5]))
print("linearised se", se_lin)
# unpaired (as if independent samples): sum of separate clustered variances -- for comparison
ud = (d - pd*td)/td.sum(); un = (nv - pn*tn)/tn.sum()
print("unpaired se", np.sqrt(G/(G-1)*((ud**2).sum() + (un**2).sum())))
