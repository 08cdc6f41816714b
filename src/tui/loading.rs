//! The screen while a large table loads: the file's first rows at once,
//! and how far the load has come, so the curator sees the right file
//! opening before every row is parsed and checked.
//!
//! The preview is parsed from the file's first [`PREVIEW_BYTES`] by the same
//! reader as the whole file, cut at the last line end, and is only looked
//! at: nothing can be decided until the session opens on the whole table,
//! so no decision can be lost when the preview is replaced.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph, Widget};

use super::text::{pad, short};
use super::theme::Theme;
use crate::dataset::{Dataset, LoadOptions, load_bytes};

/// How much of the file the preview parses: a screenful of rows of a wide
/// table, a few milliseconds of parsing.
pub const PREVIEW_BYTES: usize = 256 * 1024;

/// Files this small load about as fast as the preview would: no preview.
pub const PREVIEW_ABOVE: u64 = 4 * PREVIEW_BYTES as u64;

/// What the loading screen shows.
pub struct Loading {
    pub name: String,
    pub bytes: u64,
    pub started: Instant,
    pub preview: Option<Dataset>,
    /// Frozen elapsed time (tests); `None`: the clock.
    pub elapsed: Option<Duration>,
    /// Permille of the records read so far, set by the loading thread
    /// (0: none yet, or a file read without reports, then not shown).
    pub read: Arc<AtomicU32>,
}

impl Loading {
    pub fn new(path: &Path, opts: &LoadOptions) -> Loading {
        let bytes = std::fs::metadata(path).map_or(0, |m| m.len());
        Loading {
            name: path.display().to_string(),
            bytes,
            started: Instant::now(),
            preview: (bytes > PREVIEW_ABOVE)
                .then(|| preview(path, opts))
                .flatten(),
            elapsed: None,
            read: Arc::new(AtomicU32::new(0)),
        }
    }
}

/// The first rows of a plain table, read as the whole file will be; `None`
/// when the start alone cannot be read that way (a compressed file, a
/// spreadsheet, a transposed sheet, a quoted cell cut in two...).
pub fn preview(path: &Path, opts: &LoadOptions) -> Option<Dataset> {
    if opts.transpose || opts.probs.is_some() {
        return None;
    }
    let mut head = Vec::with_capacity(PREVIEW_BYTES);
    std::fs::File::open(path)
        .ok()?
        .take(PREVIEW_BYTES as u64)
        .read_to_end(&mut head)
        .ok()?;
    let end = head.iter().rposition(|&b| b == b'\n')?;
    head.truncate(end + 1);
    load_bytes(path, head, opts).ok()
}

fn megabytes(bytes: u64) -> String {
    format!("{:.0} MB", bytes as f64 / 1e6)
}

impl Widget for &Loading {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let theme = Theme::from_env();
        let elapsed = self.elapsed.unwrap_or_else(|| self.started.elapsed());
        let mut lines = vec![
            Line::styled(
                format!(
                    "reading and checking {} ({}): {:.1} s{}; the review opens when every row is in (q quits)",
                    self.name,
                    megabytes(self.bytes),
                    elapsed.as_secs_f64(),
                    match self.read.load(Ordering::Relaxed) {
                        0 => String::new(),
                        permille => format!(", {}% of the rows read", permille / 10),
                    }
                ),
                theme.header,
            ),
            Line::raw(""),
        ];
        match &self.preview {
            Some(ds) => lines.extend(preview_lines(ds, area, &theme)),
            None => lines.push(Line::raw("(no preview of this file's first rows)")),
        }
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.focused_border)
            .title(" loading ");
        Paragraph::new(lines).block(block).render(area, buf);
    }
}

/// One line per preview row that fits: id, label, the first features.
fn preview_lines(ds: &Dataset, area: Rect, theme: &Theme) -> Vec<Line<'static>> {
    let rows = usize::from(area.height.saturating_sub(5));
    let width = usize::from(area.width.saturating_sub(2));
    let cell = 10;
    let features = (width.saturating_sub(2 * (cell + 1)) / (cell + 1)).min(ds.n_features());
    let header: Vec<String> = ["id", "label"]
        .iter()
        .map(|s| s.to_string())
        .chain(ds.feature_names.iter().take(features).cloned())
        .map(|s| pad(&short(&s, cell), cell))
        .collect();
    let mut out = vec![Line::styled(header.join(" "), theme.header)];
    for i in 0..rows.min(ds.n_samples()) {
        let mut cells = vec![
            pad(&short(&ds.ids[i], cell), cell),
            pad(&short(ds.given_label(i), cell), cell),
        ];
        cells.extend(
            (0..features).map(|j| pad(&short(&format!("{:.4}", ds.x[(i, j)]), cell), cell)),
        );
        out.push(Line::styled(cells.join(" "), Style::default()));
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    fn big_table(dir: &Path) -> std::path::PathBuf {
        let path = dir.join("big.csv");
        let mut text = String::from("id,a,b,label\n");
        let mut i = 0;
        while text.len() as u64 <= PREVIEW_ABOVE + 10 {
            text.push_str(&format!("s{i},{}.5,{},c{}\n", i % 7, i % 3, i % 2));
            i += 1;
        }
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn a_large_file_shows_its_first_rows_while_it_loads() {
        let dir = tempfile::tempdir().unwrap();
        let path = big_table(dir.path());
        let mut loading = Loading::new(&path, &LoadOptions::default());
        loading.elapsed = Some(Duration::from_millis(300));
        let ds = loading.preview.as_ref().unwrap();
        assert!(ds.n_samples() > 1000, "{}", ds.n_samples());
        assert_eq!(ds.ids[0], "s0");
        let screen = drawn(&loading, 80);
        assert!(screen.contains("reading and checking"), "{screen}");
        assert!(screen.contains("0.3 s"), "{screen}");
        assert!(screen.contains("s0 ") && screen.contains("s6 "), "{screen}");
        assert!(screen.contains("c1"), "{screen}");
        assert!(!screen.contains("rows read"), "{screen}");
        // The loading thread's reports.
        loading.read.store(456, Ordering::Relaxed);
        let screen = drawn(&loading, 200);
        assert!(screen.contains("0.3 s, 45% of the rows read;"), "{screen}");
    }

    /// The loading screen drawn `width` cells wide, as one string.
    fn drawn(loading: &Loading, width: u16) -> String {
        let mut terminal = Terminal::new(TestBackend::new(width, 12)).unwrap();
        terminal
            .draw(|f| f.render_widget(loading, f.area()))
            .unwrap();
        terminal
            .backend()
            .buffer()
            .content()
            .iter()
            .map(|c| c.symbol())
            .collect()
    }

    #[test]
    fn a_start_that_cannot_be_read_alone_has_no_preview() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gz.csv.gz");
        std::fs::write(&path, [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, b'\n']).unwrap();
        assert!(preview(&path, &LoadOptions::default()).is_none());
        let small = dir.path().join("small.csv");
        std::fs::write(&small, "id,a,label\ns0,1,x\ns1,2,y\n").unwrap();
        assert!(
            Loading::new(&small, &LoadOptions::default())
                .preview
                .is_none(),
            "a small file loads at once"
        );
    }
}
