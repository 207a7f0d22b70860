//! Transition times that vary from one use to the next (seed 002 Table 2: the microdrive wakes
//! in 4.5 s ± 1.98 s). A transition with a spread takes a time drawn per use from a stated
//! distribution with the transition's mean; its power stays that of the mean (energy scales with
//! the drawn time). Draws come from a PCG stream seeded per run, so a run is reproducible.

use rand::Rng;
use rand_distr::{Distribution, LogNormal, Normal};

/// The shape of a transition time's distribution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpreadShape {
    /// Normal with the given mean and standard deviation; a draw below zero is drawn again
    /// (truncation moves the mean up by `σ·φ(μ/σ)/Φ(μ/σ)`, 0.06 s for 4.5 ± 1.98 s).
    Normal,
    /// Log-normal with the given mean and standard deviation: never negative, skewed to the
    /// long side as retried spin-ups are.
    LogNormal,
}

impl SpreadShape {
    pub fn parse(text: &str) -> Option<SpreadShape> {
        match text {
            "normal" => Some(SpreadShape::Normal),
            "lognormal" => Some(SpreadShape::LogNormal),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            SpreadShape::Normal => "normal",
            SpreadShape::LogNormal => "lognormal",
        }
    }
}

/// A transition time's spread around its mean.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeSpread {
    pub shape: SpreadShape,
    pub std_s: f64,
}

impl TimeSpread {
    /// One draw of a time whose mean is `mean_s` (> 0).
    pub fn draw<R: Rng + ?Sized>(&self, mean_s: f64, rng: &mut R) -> f64 {
        match self.shape {
            SpreadShape::Normal => {
                let normal = Normal::new(mean_s, self.std_s).expect("validated spread");
                loop {
                    let t = normal.sample(rng);
                    if t >= 0.0 {
                        return t;
                    }
                }
            }
            SpreadShape::LogNormal => {
                // Mean m and deviation s: σ² = ln(1 + s²/m²), μ = ln m − σ²/2.
                let sigma2 = (1.0 + (self.std_s / mean_s).powi(2)).ln();
                LogNormal::new(mean_s.ln() - sigma2 / 2.0, sigma2.sqrt()).expect("validated spread").sample(rng)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    fn moments(spread: TimeSpread, mean_s: f64) -> (f64, f64) {
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let n = 200_000;
        let draws: Vec<f64> = (0..n).map(|_| spread.draw(mean_s, &mut rng)).collect();
        let mean = draws.iter().sum::<f64>() / n as f64;
        let var = draws.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        assert!(draws.iter().all(|&d| d >= 0.0));
        (mean, var.sqrt())
    }

    #[test]
    fn lognormal_draws_keep_the_stated_mean_and_deviation() {
        let (mean, std) = moments(TimeSpread { shape: SpreadShape::LogNormal, std_s: 1.98 }, 4.5);
        assert!((mean - 4.5).abs() < 0.02, "{mean}");
        assert!((std - 1.98).abs() < 0.03, "{std}");
    }

    #[test]
    fn normal_draws_are_truncated_at_zero() {
        // Truncation at 0 of N(4.5, 1.98): mean 4.5 + 1.98·φ(2.273)/Φ(2.273) = 4.561.
        let (mean, _) = moments(TimeSpread { shape: SpreadShape::Normal, std_s: 1.98 }, 4.5);
        assert!((mean - 4.561).abs() < 0.02, "{mean}");
    }
}
