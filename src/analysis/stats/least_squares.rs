//! Ordinary least squares for the small linear models of the analyses (a score explained by
//! model, judge and side: tens of columns, hundreds of rows). Written here rather than taken
//! from a linear-algebra crate because it is one solve of a small symmetric system, and
//! those crates would be most of the build time of this module; checked against statsmodels
//! in `tests/stats_reference.rs`.

/// The coefficients minimising the squared error of `y ≈ X·β`, `X` given row by row (each
/// row as long as the first); none when there are fewer rows than columns or the columns
/// are linearly dependent (a level of a factor never observed, a judge who judged only one
/// model's rounds beside a model that met only that judge, …).
pub fn fit(rows: &[Vec<f64>], y: &[f64]) -> Option<Vec<f64>> {
    let p = rows.first()?.len();
    if rows.len() != y.len() || rows.len() < p || p == 0 {
        return None;
    }
    // The normal equations XᵀX β = Xᵀy, as an augmented matrix.
    let mut m = vec![vec![0.0; p + 1]; p];
    for (row, &yi) in rows.iter().zip(y) {
        if row.len() != p {
            return None;
        }
        for i in 0..p {
            if row[i] == 0.0 {
                continue;
            }
            for j in 0..p {
                m[i][j] += row[i] * row[j];
            }
            m[i][p] += row[i] * yi;
        }
    }
    let scale = (0..p).map(|i| m[i][i].abs()).fold(0.0, f64::max);
    if scale == 0.0 {
        return None;
    }
    // Gaussian elimination with partial pivoting; a pivot this small relative to the
    // diagonal means the columns are dependent.
    for col in 0..p {
        let pivot = (col..p).max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))?;
        if m[pivot][col].abs() <= scale * 1e-10 {
            return None;
        }
        m.swap(col, pivot);
        let pivot_row = m[col].clone();
        for (r, row) in m.iter_mut().enumerate() {
            if r != col {
                let f = row[col] / pivot_row[col];
                if f != 0.0 {
                    for (x, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                        *x -= f * p;
                    }
                }
            }
        }
    }
    Some((0..p).map(|i| m[i][p] / m[i][i]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
