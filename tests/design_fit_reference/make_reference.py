"""Reference values for the adaptive design's rating fit (src/design/rating.rs), from scipy.

Run (from this folder): pip install numpy scipy && python3 make_reference.py
(numpy 2.4.6 and scipy 1.17.1 under Python 3.11.7 wrote the files.) It writes

- datasets.csv: dataset, models, judges (the sizes the fit is called with);
- matches.csv: dataset, team_a, team_b, judge, score (one row per round: model indices,
  the deciding judge's index or empty for none, Team A's score 1, 0.5 or 0);
- reference.csv: dataset, quantity, i, j, judge, value, where quantity is `strength` (i),
  `side`, `judge_side` (i), `judge_matches` (i), `covariance` (i, j: indices into the
  vector strengths, then h, then the judges' offsets) or `p_team_a` (i Team A, j Team B,
  judge its index or empty).

The model, written from its definition (docs/adaptive.md), not from the Rust code. For M
models with strengths theta, the common Team A term h and J judges' offsets u, a round
with Team A `a`, Team B `b`, deciding judge `k` (or none) and Team A's score s has

    eta = theta_a - theta_b + h + u_k      (u_k left out when no judge decided)
    P(Team A wins) = sigma(eta)

and adds s * eta - log(1 + e^eta) to the log likelihood (a draw, s = 1/2, counts half a
win and half a loss). Each unordered pair of models that met at least once adds one
pseudo-draw with no side term: 1/2 * d - log(1 + e^d), d = theta_a - theta_b. The priors
are independent normals with mean 0: sd ln 10 on each strength (400 Elo points), sd 1 on
h, sd 1/2 on each u_k. The fit is the mode of the log posterior (the sum of those terms
and the log priors), and the covariance the inverse of the negative Hessian of the log
posterior there (priors included). No identification constraint is imposed: the strengths'
prior alone makes the mode unique (and centred, since every round adds to one strength what
it takes from another).

The mode is found by scipy.optimize.minimize (BFGS, analytic gradient) on the negative log
posterior, then refined by scipy.optimize.root (MINPACK's hybrid method) on its gradient to
a largest component below 1e-12 (the Hessian's smallest eigenvalue is at least the prior's
1 / ln(10)^2 = 0.19, so the mode is then within 1e-11); trust-exact from another start must
find the same mode, and the analytic Hessian must agree with central differences of the
gradient. The script stops with an error if any check fails.
"""
import csv
import math

import numpy as np
from scipy import optimize

STRENGTH_SD = math.log(10.0)
SIDE_SD = 1.0
JUDGE_SD = 0.5


def lcg(seed):
    """A fixed linear congruential generator, so the data do not depend on numpy's streams."""
    state = seed
    while True:
        state = (1103515245 * state + 12345) % 2**31
        yield state / 2**31


def mixed():
    """Six models, four judges used 40, 20, 8 and 2 times, judge 2 with a strong Team A
    preference, outcomes drawn once from known terms (draws when the draw is near even)."""
    u = lcg(2026)
    strength = [1.2, 0.6, 0.2, -0.1, -0.7, -1.2]
    side, offset = 0.2, [0.0, -0.3, 1.8, 0.4]
    uses = [0] * 40 + [1] * 20 + [2] * 8 + [3] * 2
    rounds = []
    for k in uses:
        a = int(next(u) * 6)
        b = (a + 1 + int(next(u) * 5)) % 6
        p = 1.0 / (1.0 + math.exp(-(strength[a] - strength[b] + side + offset[k])))
        r = next(u)
        s = 0.5 if abs(r - p) < 0.05 else (1.0 if r < p else 0.0)
        rounds.append((a, b, k, s))
    return rounds


# (models, judges, rounds (team_a, team_b, judge or None, score)).
DATASETS = {
    # Draws in every pair, by both judges.
    "ties": (3, 2, [
        (0, 1, 0, 1.0), (0, 1, 1, 0.5), (1, 0, 0, 0.5), (1, 2, 1, 1.0), (2, 1, 0, 0.5),
        (0, 2, 1, 0.5), (2, 0, 0, 0.0), (1, 2, 0, 0.5), (2, 0, 1, 0.5), (0, 1, 1, 1.0),
    ]),
    # Judge 2 gives Team A every round but one, whoever it is; judge 0 decides by strength
    # with two upsets; judge 1 decides two rounds only.
    "side_judge": (4, 3, [
        (0, 1, 0, 1.0), (1, 0, 0, 0.0), (0, 2, 0, 1.0), (2, 0, 0, 0.0), (0, 3, 0, 1.0),
        (3, 0, 0, 1.0), (1, 2, 0, 1.0), (2, 1, 0, 1.0), (1, 3, 0, 1.0), (3, 1, 0, 0.0),
        (2, 3, 0, 1.0), (3, 2, 0, 0.0),
        (3, 0, 2, 1.0), (2, 0, 2, 1.0), (3, 1, 2, 1.0), (0, 1, 2, 1.0), (2, 1, 2, 1.0),
        (3, 2, 2, 1.0), (1, 0, 2, 1.0), (0, 3, 2, 0.0),
        (0, 2, 1, 1.0), (3, 1, 1, 0.0),
    ]),
    # Model 0 never loses, model 3 never wins, model 4 never plays: the priors keep every
    # term finite.
    "unbeaten": (5, 2, [
        (0, 1, 0, 1.0), (1, 0, 1, 0.0), (0, 2, 0, 1.0), (2, 0, 1, 0.0), (0, 3, 1, 1.0),
        (1, 3, 0, 1.0), (3, 1, 1, 0.0), (2, 3, 0, 1.0), (3, 2, 1, 0.0), (1, 2, 0, 1.0),
        (2, 1, 1, 1.0), (1, 2, 1, 0.0),
    ]),
    # Rounds with no deciding judge beside judged ones, and a judge that decided nothing.
    "no_judge": (3, 3, [
        (0, 1, None, 1.0), (1, 0, None, 1.0), (1, 2, None, 0.0), (2, 0, None, 0.5),
        (0, 2, 0, 1.0), (2, 1, 0, 0.0), (1, 0, 1, 0.0), (0, 1, 1, 1.0),
    ]),
    # Team A wins every round: only h's prior holds it.
    "all_team_a": (3, 1, [
        (a, b, 0, 1.0) for _ in range(2) for a in range(3) for b in range(3) if a != b
    ]),
    # Nothing finished: the priors alone.
    "empty": (3, 2, []),
    "mixed": (6, 4, mixed()),
}


def design(models, judges, rounds):
    """The rows of the linear predictor and the scores: the rounds, then the pseudo-draws."""
    size = models + 1 + judges
    rows, scores = [], []
    met = set()
    for a, b, k, s in rounds:
        x = np.zeros(size)
        x[a], x[b], x[models] = 1.0, -1.0, 1.0
        if k is not None:
            x[models + 1 + k] = 1.0
        rows.append(x)
        scores.append(s)
        met.add((min(a, b), max(a, b)))
    for a, b in sorted(met):
        x = np.zeros(size)
        x[a], x[b] = 1.0, -1.0
        rows.append(x)
        scores.append(0.5)
    precision = np.array(
        [1 / STRENGTH_SD**2] * models + [1 / SIDE_SD**2] + [1 / JUDGE_SD**2] * judges
    )
    return np.array(rows).reshape(len(rows), size), np.array(scores), precision


def objective(x, s, precision):
    """The negative log posterior (up to a constant), its gradient and its Hessian."""

    def value(beta):
        eta = x @ beta
        return -np.sum(s * eta - np.logaddexp(0.0, eta)) + 0.5 * np.sum(precision * beta**2)

    def gradient(beta):
        p = 1.0 / (1.0 + np.exp(-(x @ beta)))
        return -x.T @ (s - p) + precision * beta

    def hessian(beta):
        p = 1.0 / (1.0 + np.exp(-(x @ beta)))
        return x.T @ (x * (p * (1 - p))[:, None]) + np.diag(precision)

    return value, gradient, hessian


def fit(models, judges, rounds):
    x, s, precision = design(models, judges, rounds)
    value, gradient, hessian = objective(x, s, precision)
    size = len(precision)
    # The minimum by BFGS from zero; then the stationary point of the gradient by MINPACK's
    # hybrid method from there, since at a gradient of 1e-9 the objective's own rounding
    # (its value is a sum of many terms) stops the minimisers short of the last digits.
    bfgs = optimize.minimize(
        value, np.zeros(size), jac=gradient, method="BFGS", options={"gtol": 1e-9}
    )
    assert np.max(np.abs(gradient(bfgs.x))) < 1e-8, bfgs
    root = optimize.root(gradient, bfgs.x, jac=hessian, method="hybr", tol=1e-13)
    beta = root.x
    assert np.max(np.abs(gradient(beta))) < 1e-12, gradient(beta)
    assert np.max(np.abs(bfgs.x - beta)) < 1e-7, (bfgs.x, beta)
    # The same mode by a trust-region method from another start.
    start = np.linspace(-0.5, 0.5, size)
    region = optimize.minimize(
        value, start, jac=gradient, hess=hessian, method="trust-exact", options={"gtol": 1e-8}
    )
    assert np.max(np.abs(region.x - beta)) < 1e-6, (region.x, beta)
    # The analytic Hessian against central differences of the gradient.
    step = 1e-5
    numeric = np.array([
        (gradient(beta + step * e) - gradient(beta - step * e)) / (2 * step)
        for e in np.eye(size)
    ])
    info = hessian(beta)
    assert np.max(np.abs(numeric - info)) < 1e-7, np.max(np.abs(numeric - info))
    return beta, np.linalg.inv(info)


def num(v):
    return repr(float(v))


with open("datasets.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["dataset", "models", "judges"])
    for name, (models, judges, _) in DATASETS.items():
        w.writerow([name, models, judges])

with open("matches.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["dataset", "team_a", "team_b", "judge", "score"])
    for name, (_, _, rounds) in DATASETS.items():
        for a, b, k, s in rounds:
            w.writerow([name, a, b, "" if k is None else k, num(s)])

with open("reference.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["dataset", "quantity", "i", "j", "judge", "value"])
    for name, (models, judges, rounds) in DATASETS.items():
        beta, cov = fit(models, judges, rounds)
        for i in range(models):
            w.writerow([name, "strength", i, "", "", num(beta[i])])
        w.writerow([name, "side", "", "", "", num(beta[models])])
        for k in range(judges):
            w.writerow([name, "judge_side", k, "", "", num(beta[models + 1 + k])])
            w.writerow([name, "judge_matches", k, "", "", sum(1 for r in rounds if r[2] == k)])
        for i in range(len(beta)):
            for j in range(len(beta)):
                w.writerow([name, "covariance", i, j, "", num(cov[i, j])])
        # Team A's chances for a few rounds: every pair both ways, by each judge and by none.
        for a in range(models):
            for b in range(models):
                if a == b:
                    continue
                for k in [None, *range(judges)]:
                    if (a + b + (0 if k is None else k + 1)) % 3:
                        continue
                    eta = beta[a] - beta[b] + beta[models]
                    if k is not None:
                        eta += beta[models + 1 + k]
                    p = 1.0 / (1.0 + math.exp(-eta))
                    w.writerow([name, "p_team_a", a, b, "" if k is None else k, num(p)])
