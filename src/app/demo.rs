//! The embedded demo, so that `cargo run --release` opens a real review with
//! no file at hand.

use std::path::Path;

use crate::dataset::{DataError, Dataset, LoadOptions, load, load_bytes};

/// Iris with 20% pair noise (the same bytes as sample_data/iris_noisy.csv).
pub const DEMO_CSV: &str = include_str!("../../assets/demo.csv");
/// What the screen calls the demo, in place of a file name.
pub const DEMO_NAME: &str = "demo (iris with 20% pair noise)";

/// Loads `file`, or the embedded demo when no file is given.
pub fn load_or_demo(file: Option<&Path>, options: &LoadOptions) -> Result<Dataset, DataError> {
    match file {
        Some(path) => load(path, options),
        None => load_bytes(Path::new(DEMO_NAME), DEMO_CSV.as_bytes().to_vec(), options),
    }
}
