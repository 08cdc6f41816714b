//! What each model option accepts, said beside the field while its value
//! is typed: the picker's fields take free text, and a newcomer should not
//! have to guess it (or learn it from an error).

/// The values `option` accepts, in words; empty for an option this table
/// does not know (a test keeps every model's options in it).
pub fn accepted(option: &str) -> &'static str {
    match option {
        "seed" => "a whole number (0, 1, 2 ...)",
        "max_iter" => "a whole number, at least 1",
        "tol" => "a small positive number, e.g. 1e-7",
        "covariance" => "full, tied, diag or spherical",
        "covariance_rule" => "bic (chosen with the clusters) or fixed (covariance as set)",
        "shrinkage" => "a number from 0 to 1; empty: chosen from the data",
        "gamma" => {
            "a flip table \"0.9,0.1;0.05,0.95\" (a row per true class) or a flip rate per \
             class \"0.1,0.2\"; empty: estimated"
        }
        "fix_gamma" | "standardize" => "true or false",
        "gamma_prior" => "a number, at least 0 (0: maximum likelihood)",
        "lambda" => "a positive number; empty: the Bayesian rule",
        "lambda_rule" => "auto, cv, noise or accuracy",
        "noise_fraction" => "a fraction between 0 and 1; empty: not used",
        "cv_folds" => "a whole number, at least 2",
        "theta_penalty" => "auto, none, l2 or l1",
        "kappa" => "a positive number; empty: chosen from the data",
        "path_length" => "a whole number, at least 2",
        "clusters" | "clusters_min" | "clusters_max" | "clusters_per_class" => {
            "a whole number, at least 1; empty: chosen by BIC"
        }
        "restarts" => "a whole number, at least 1",
        "alpha" => "a rate per class \"0.1,0.2\" or one for all \"0.1\"; empty: estimated",
        "levels" => "a whole number, at least 2",
        "bdra" => "true or false; empty: on with two or more features",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_a_model_offers_says_what_it_accepts() {
        for m in std::iter::once(&crate::models::AUTO_INFO).chain(crate::models::MODELS) {
            for o in m.options {
                assert!(!accepted(o).is_empty(), "{}: {o}", m.name);
            }
        }
    }
}
