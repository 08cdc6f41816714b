//! The sample table's columns: the fixed ones sized to the data, and the
//! model's own per-sample numbers (`Fit::extra.sample_columns`), which take
//! what width is left. When the screen is narrow the model columns go, one
//! by one, before anything the curator needs to decide is narrowed. How a
//! model column looks (header, decimals, width, priority) is the model's
//! say (`ColumnDisplay`): nothing here knows a model or a column by name.

use crate::dataset::Dataset;
use crate::models::{Fit, SampleColumn};
use crate::tui::text::{clip, width};

/// Gaps ratatui leaves between table columns.
const SPACING: u16 = 1;
/// "0.870 " and a 5-cell bar: room for the header with its sort arrow.
pub const P_MIN: u16 = 11;
/// The number and a full 8-cell bar.
pub const P_FULL: u16 = 14;

/// A per-sample number of the fit's report, as a table column.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelColumn {
    /// The column's name in the report (and in `SortKey::Column`).
    pub name: String,
    pub header: String,
    pub width: u16,
    digits: usize,
    /// Shown before the others when width is short.
    first: bool,
}

/// Headers longer than this are cut (a model that gives no short label).
const HEADER_MAX: usize = 7;

impl ModelColumn {
    pub fn of(column: &SampleColumn) -> ModelColumn {
        let display = &column.display;
        let header = clip(column.label(), HEADER_MAX);
        // One more than the header so the sort arrow never truncates it.
        let width = (width(&header) + 1).max(display.width) as u16;
        ModelColumn {
            name: column.name.clone(),
            header,
            width,
            digits: display.decimals,
            first: display.sort_first,
        }
    }

    /// Right-aligned with fixed decimals; fewer decimals (then an exponent)
    /// only when a large value would not fit, never a cut-off number.
    pub fn format(&self, v: f64) -> String {
        let w = self.width as usize;
        if v.is_nan() {
            return format!("{:>w$}", "-");
        }
        let mut digits = self.digits;
        loop {
            let s = format!("{v:.digits$}");
            if width(&s) <= w {
                return format!("{s:>w$}");
            }
            if digits == 0 {
                return format!("{:>w$}", format!("{v:.0e}"));
            }
            digits -= 1;
        }
    }
}

/// The model columns a fit shows, in report order (hidden ones left out).
pub fn model_columns(fit: &Fit) -> Vec<ModelColumn> {
    shown_columns(&fit.extra.sample_columns)
}

fn shown_columns(columns: &[SampleColumn]) -> Vec<ModelColumn> {
    columns
        .iter()
        .filter(|c| !c.display.hidden)
        .map(ModelColumn::of)
        .collect()
}

/// Widths of the columns every fit shows, sized to the data so that short
/// ids and class names leave room for model columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Core {
    pub rank: u16,
    pub id: u16,
    pub given: u16,
    pub suggested: u16,
    /// Whether the fit says anything per sample as gamma.
    pub gamma: bool,
    pub decision: u16,
    /// The longest class name and id in cells (up to [`WHOLE_MAX`]): what
    /// the columns grow to when the screen has room to spare.
    pub class_whole: u16,
    pub id_whole: u16,
}

/// Ids and class names longer than these are cut with an ellipsis.
pub const ID_MAX: u16 = 10;
pub const CLASS_MAX: u16 = 12;
pub const GAMMA: u16 = 6;
/// Names are never grown past this, however much room is left.
pub const WHOLE_MAX: u16 = 40;

impl Core {
    /// `id_width`: the longest id in cells (cached: it needs every id).
    pub fn new(ds: &Dataset, id_width: usize, fit: Option<&Fit>) -> Core {
        let longest = ds.classes.iter().map(|c| width(c)).max().unwrap_or(1);
        let class = longest.min(CLASS_MAX as usize) as u16;
        let digits = ds.n_samples().max(1).to_string().len() as u16;
        Core {
            rank: digits.max(1),
            id: (id_width.min(ID_MAX as usize) as u16).max(3),
            given: class.max(5),
            suggested: class.max(9),
            gamma: fit.is_none_or(Fit::has_sample_gamma),
            // "→ " and the class name.
            decision: (class + 2).max(8),
            class_whole: longest.min(WHOLE_MAX as usize) as u16,
            id_whole: (id_width.min(WHOLE_MAX as usize) as u16).max(3),
        }
    }

    /// The core grown towards whole class names (given, suggested and the
    /// decision's "→ name"), then whole ids, within `spare` cells: room
    /// left empty is worth less than a name the curator has to guess.
    fn grown(mut self, mut spare: u16) -> Core {
        let target = self.class_whole;
        // The given label and the suggestion are read side by side: they
        // share the room, a cell at a time.
        while spare > 0 && (self.given < target || self.suggested < target) {
            let column = if self.given <= self.suggested && self.given < target {
                &mut self.given
            } else {
                &mut self.suggested
            };
            *column += 1;
            spare -= 1;
        }
        for (width, want) in [
            (&mut self.decision, target + 2),
            (&mut self.id, self.id_whole),
        ] {
            let more = want.saturating_sub(*width).min(spare);
            *width += more;
            spare -= more;
        }
        self
    }

    fn widths(&self) -> Vec<u16> {
        let mut w = vec![self.rank, self.id, self.given, self.suggested, P_MIN];
        if self.gamma {
            w.push(GAMMA);
        }
        w.push(self.decision);
        w
    }

    fn width(&self) -> u16 {
        let w = self.widths();
        w.iter().sum::<u16>() + SPACING * (w.len() as u16 - 1)
    }
}

/// What the table shows at one width.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub core: Core,
    /// Width of the p_mislabel column, `P_MIN..=P_FULL`.
    pub p: u16,
    /// Model columns shown, as indices into the fit's columns, report order.
    pub shown: Vec<usize>,
    /// Model columns left out for want of width, report order.
    pub hidden: Vec<usize>,
}

/// The columns the model puts first (e.g. `all`'s disagreement: it is why
/// one runs `all`), then report order.
fn priority(columns: &[ModelColumn]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..columns.len()).collect();
    order.sort_by_key(|&i| !columns[i].first);
    order
}

impl Core {
    /// The core narrowed by `deficit` cells for a screen too narrow for it:
    /// the class names first (they are cut with an ellipsis, keeping what
    /// tells them apart), then the id, then the decision, each down to a
    /// few cells; never the rank or the p_mislabel number.
    fn shrunk(mut self, mut deficit: u16) -> Core {
        const LEAST: u16 = 4;
        while deficit > 0 {
            let widest = [self.given, self.suggested, self.id, self.decision]
                .into_iter()
                .max()
                .unwrap_or(0);
            if widest <= LEAST {
                break;
            }
            // A cell at a time from the widest, the labels before the others.
            let column = if self.given == widest {
                &mut self.given
            } else if self.suggested == widest {
                &mut self.suggested
            } else if self.id == widest {
                &mut self.id
            } else {
                &mut self.decision
            };
            *column -= 1;
            deficit -= 1;
        }
        self
    }
}

/// Fits the model columns into `width` after the core columns, then widens
/// the p_mislabel bar with what is left.
pub fn plan(width: u16, core: Core, columns: &[ModelColumn]) -> Plan {
    let core = core.shrunk(core.width().saturating_sub(width));
    let mut left = width.saturating_sub(core.width());
    let mut shown = Vec::new();
    let mut hidden = Vec::new();
    for i in priority(columns) {
        let need = columns[i].width + SPACING;
        // Later, narrower columns may still fit after a wide one did not.
        if need <= left {
            left -= need;
            shown.push(i);
        } else {
            hidden.push(i);
        }
    }
    shown.sort_unstable();
    hidden.sort_unstable();
    let p = P_MIN + left.min(P_FULL - P_MIN);
    Plan {
        core: core.grown(left - (p - P_MIN)),
        p,
        shown,
        hidden,
    }
}

/// The width at which nothing is hidden, the bar is whole and the given
/// and suggested labels are whole (up to [`WHOLE_MAX`]).
pub fn full_width(core: Core, columns: &[ModelColumn]) -> u16 {
    let whole_names = core.class_whole.saturating_sub(core.given)
        + core.class_whole.saturating_sub(core.suggested);
    core.width()
        + (P_FULL - P_MIN)
        + whole_names
        + columns.iter().map(|c| c.width + SPACING).sum::<u16>()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::models::ColumnDisplay;

    /// Columns as a model would describe them: short labels, the last
    /// one asking to be shown first.
    fn column(name: &str, label: &str, width: usize, first: bool) -> ModelColumn {
        ModelColumn::of(
            &SampleColumn::new(name, Vec::new()).with_display(ColumnDisplay {
                label: Some(label.into()),
                width,
                sort_first: first,
                ..ColumnDisplay::default()
            }),
        )
    }

    fn all_columns() -> Vec<ModelColumn> {
        ["rnda", "rlr", "shift", "rmda"]
            .iter()
            .map(|m| column(&format!("p_{m}"), m, 5, false))
            .chain([column("spread", "dis.", 5, true)])
            .collect()
    }

    const CORE: Core = Core {
        rank: 3,
        id: 3,
        given: 10,
        suggested: 10,
        gamma: false,
        decision: 12,
        class_whole: 10,
        id_whole: 3,
    };

    #[test]
    fn headers_are_short_and_numbers_fixed() {
        let c = all_columns();
        let headers: Vec<&str> = c.iter().map(|c| c.header.as_str()).collect();
        assert_eq!(headers, ["rnda", "rlr", "shift", "rmda", "dis."]);
        assert_eq!(c[0].format(0.5), "0.500");
        assert_eq!(c[2].format(1.0), " 1.000");
        assert_eq!(c[4].format(f64::NAN), "    -");
        let lambda = column("lambda", "entry", 6, false);
        assert_eq!(lambda.format(1.150443), " 1.150");
        assert_eq!(lambda.format(1234.5678), "1234.6");
        assert_eq!(lambda.format(1.0e9), "   1e9");
        let counts = ModelColumn::of(&SampleColumn::new("k", Vec::new()).with_display(
            ColumnDisplay {
                label: Some("clu.".into()),
                decimals: 0,
                width: 3,
                ..ColumnDisplay::default()
            },
        ));
        assert_eq!(counts.format(3.0), "    3");
    }

    #[test]
    fn hints_size_columns_and_hidden_ones_are_not_drawn() {
        let long = ModelColumn::of(&SampleColumn::new("a_long_column_name", Vec::new()));
        assert_eq!((long.header.as_str(), long.width), ("a_long_", 8));
        let columns = [
            SampleColumn::new("shown", vec![]),
            SampleColumn::new("secret", vec![]).with_display(ColumnDisplay {
                hidden: true,
                ..ColumnDisplay::default()
            }),
        ];
        let names: Vec<String> = shown_columns(&columns)
            .into_iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(names, ["shown"]);
    }

    #[test]
    fn narrow_tables_drop_model_columns_disagreement_last() {
        let c = all_columns();
        let full = full_width(CORE, &c);
        let p = plan(full, CORE, &c);
        assert_eq!((p.shown.len(), p.p), (5, P_FULL));
        let p = plan(full - 1, CORE, &c);
        assert_eq!((p.shown.len(), p.p), (5, P_FULL - 1));
        let p = plan(78, CORE, &c);
        // shift, the widest, goes; the narrower rmda after it still fits.
        assert_eq!(p.shown, [0, 1, 3, 4]);
        assert_eq!(p.hidden, [2]);
        let p = plan(CORE.width() + 6, CORE, &c);
        assert_eq!((p.shown.as_slice(), p.p), ([4].as_slice(), P_MIN));
        let p = plan(10, CORE, &c);
        assert!(p.shown.is_empty() && p.hidden.len() == 5);
    }

    #[test]
    fn room_to_spare_shows_whole_class_names_then_whole_ids() {
        let long = Core {
            class_whole: 30,
            id_whole: 8,
            ..CORE
        };
        // Only the bar's room: nothing grows.
        let p = plan(CORE.width() + (P_FULL - P_MIN), long, &[]);
        assert_eq!((p.core.given, p.core.id), (10, 3));
        // 30 more cells: the given label and the suggestion share them.
        let p = plan(CORE.width() + (P_FULL - P_MIN) + 30, long, &[]);
        assert_eq!(
            (p.core.given, p.core.suggested, p.core.decision),
            (25, 25, 12)
        );
        let p = plan(CORE.width() + (P_FULL - P_MIN) + 45, long, &[]);
        assert_eq!(
            (p.core.given, p.core.suggested, p.core.decision),
            (30, 30, 17)
        );
        // Enough for everything: whole names, "→ name", whole ids.
        let p = plan(200, long, &[]);
        assert_eq!(
            (p.core.given, p.core.suggested, p.core.decision, p.core.id),
            (30, 30, 32, 8)
        );
    }
}
