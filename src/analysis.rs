//! What the review screen shows that is not a model: the 2-D projection of
//! the data and the selected sample's unusual features and nearest
//! neighbours. Computed when the data or the selection changes, never while
//! drawing.

pub mod neighbours;
pub mod projection;

pub use neighbours::{Detail, DetailCache};
pub use projection::Projection;
