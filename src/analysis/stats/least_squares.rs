//! Ordinary least squares for the small linear models of the analyses (a score explained by
//! model, judge and side: tens of columns, hundreds of rows). Written here rather than taken
//! from a linear-algebra crate because it is one solve of a small symmetric system, and
//! those crates would be most of the build time of this module; checked against statsmodels
//! in `tests/stats_reference.rs`.

/// The normal equations `XᵀX β = Xᵀy` of some rows, as an augmented `p × (p+1)` matrix.
/// Kept apart from the solve so that a bootstrap can sum each cluster's equations once and
/// then add them up per resample, rather than refit from the rows every time.
#[derive(Debug, Clone, PartialEq)]
pub struct Normal {
    p: usize,
    rows: usize,
    m: Vec<f64>,
}

impl Normal {
    /// No rows yet, `p` columns.
    pub fn new(p: usize) -> Self {
        Self {
            p,
            rows: 0,
            m: vec![0.0; p * (p + 1)],
        }
    }

    /// Adds a row and its response; a row of the wrong length is ignored (and counted as no
    /// row, so the solve sees too few).
    pub fn add_row(&mut self, row: &[f64], y: f64) {
        let p = self.p;
        if row.len() != p {
            return;
        }
        for i in 0..p {
            if row[i] == 0.0 {
                continue;
            }
            let line = &mut self.m[i * (p + 1)..(i + 1) * (p + 1)];
            for j in 0..p {
                line[j] += row[i] * row[j];
            }
            line[p] += row[i] * y;
        }
        self.rows += 1;
    }

    /// Adds another set of equations `times` times (a cluster drawn that often).
    pub fn add(&mut self, other: &Normal, times: usize) {
        if other.p != self.p || times == 0 {
            return;
        }
        let t = times as f64;
        for (x, o) in self.m.iter_mut().zip(&other.m) {
            *x += t * o;
        }
        self.rows += times * other.rows;
    }

    /// Clears the equations, keeping the size.
    pub fn clear(&mut self) {
        self.m.iter_mut().for_each(|x| *x = 0.0);
        self.rows = 0;
    }

    /// The coefficients; none when there are fewer rows than columns or the columns are
    /// linearly dependent.
    pub fn solve(&self) -> Option<Vec<f64>> {
        let p = self.p;
        if self.rows < p || p == 0 {
            return None;
        }
        let w = p + 1;
        let mut m = self.m.clone();
        let scale = (0..p).map(|i| m[i * w + i].abs()).fold(0.0, f64::max);
        if scale == 0.0 {
            return None;
        }
        // Gaussian elimination with partial pivoting; a pivot this small relative to the
        // diagonal means the columns are dependent.
        for col in 0..p {
            let pivot =
                (col..p).max_by(|&a, &b| m[a * w + col].abs().total_cmp(&m[b * w + col].abs()))?;
            if m[pivot * w + col].abs() <= scale * 1e-10 {
                return None;
            }
            if pivot != col {
                for k in 0..w {
                    m.swap(col * w + k, pivot * w + k);
                }
            }
            let pivot_row: Vec<f64> = m[col * w..(col + 1) * w].to_vec();
            for r in 0..p {
                if r == col {
                    continue;
                }
                let f = m[r * w + col] / pivot_row[col];
                if f != 0.0 {
                    for k in col..w {
                        m[r * w + k] -= f * pivot_row[k];
                    }
                }
            }
        }
        Some((0..p).map(|i| m[i * w + p] / m[i * w + i]).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The least-squares coefficients of `y ≈ X·β`, `X` row by row.
    fn fit(rows: &[Vec<f64>], y: &[f64]) -> Option<Vec<f64>> {
        let mut normal = Normal::new(rows.first()?.len());
        for (row, &yi) in rows.iter().zip(y) {
            normal.add_row(row, yi);
        }
        normal.solve()
    }

    #[test]
    fn a_line_through_points_and_no_answer_for_dependent_columns() {
        // y = 1 + 2x exactly.
        let rows: Vec<Vec<f64>> = (0..5).map(|x| vec![1.0, f64::from(x)]).collect();
        let y: Vec<f64> = (0..5).map(|x| 1.0 + 2.0 * f64::from(x)).collect();
        let b = fit(&rows, &y).unwrap();
        assert!(
            (b[0] - 1.0).abs() < 1e-12 && (b[1] - 2.0).abs() < 1e-12,
            "{b:?}"
        );
        // The second column twice: dependent.
        let rows: Vec<Vec<f64>> = (0..5)
            .map(|x| vec![1.0, f64::from(x), 2.0 * f64::from(x)])
            .collect();
        assert_eq!(fit(&rows, &y), None);
        assert_eq!(fit(&rows[..2], &y[..2]), None, "fewer rows than columns");
    }

    #[test]
    fn equations_summed_by_cluster_solve_as_the_rows_do() {
        let rows: Vec<Vec<f64>> = (0..6)
            .map(|x| vec![1.0, f64::from(x), f64::from(x * x % 5)])
            .collect();
        let y: Vec<f64> = (0..6)
            .map(|x| 3.0 - f64::from(x) + 0.1 * f64::from(x * x))
            .collect();
        // Rows 0–2 drawn twice, rows 3–5 once: the same as those rows repeated.
        let (mut first, mut second) = (Normal::new(3), Normal::new(3));
        for i in 0..3 {
            first.add_row(&rows[i], y[i]);
            second.add_row(&rows[i + 3], y[i + 3]);
        }
        let mut sum = Normal::new(3);
        sum.add(&first, 2);
        sum.add(&second, 1);
        let repeated: Vec<Vec<f64>> = rows[..3]
            .iter()
            .chain(&rows[..3])
            .chain(&rows[3..])
            .cloned()
            .collect();
        let ys: Vec<f64> = y[..3]
            .iter()
            .chain(&y[..3])
            .chain(&y[3..])
            .copied()
            .collect();
        let (a, b) = (sum.solve().unwrap(), fit(&repeated, &ys).unwrap());
        for (x, z) in a.iter().zip(&b) {
            assert!((x - z).abs() < 1e-9, "{a:?} {b:?}");
        }
        sum.clear();
        assert_eq!(sum.solve(), None);
    }
}
