//! Questions: quit with unexported decisions or comments, replace an
//! earlier export, accept every suggestion above the threshold, what to do
//! with an input that changed on disk.
//! The popup table's `yes` (and `export`) keys answer; any other key is no.

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::{Command, PopupComponent, PopupContext, PopupOutcome, frame};
use crate::tui::keys::PopupAction;

/// "Quit with decisions or comments not exported?"
pub struct Quit;

/// "Replace the files an earlier export wrote?"
pub struct Overwrite;

impl PopupComponent for Quit {
    fn handle_key(&mut self, key: &KeyEvent, ctx: &PopupContext) -> PopupOutcome {
        match ctx.keys.popup_action(key) {
            Some(PopupAction::Yes) => PopupOutcome::Then(Command::Quit),
            Some(PopupAction::Export) => PopupOutcome::Then(Command::ExportThenQuit),
            _ => PopupOutcome::Close,
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, ctx: &PopupContext) {
        let k = |a| ctx.keys.popup_hint(a);
        let lines = vec![
            Line::from("Some decisions or comments are not exported."),
            Line::from("They are saved in the session journal and"),
            Line::from("come back when you open this file again."),
            Line::from(""),
            Line::from(format!(
                "{} quit   {} export, then quit   any other key stays",
                k(PopupAction::Yes),
                k(PopupAction::Export)
            )),
        ];
        frame("quit?", lines, (50, 7), area, buf, ctx.theme);
    }
}

impl PopupComponent for Overwrite {
    fn handle_key(&mut self, key: &KeyEvent, ctx: &PopupContext) -> PopupOutcome {
        match ctx.keys.popup_action(key) {
            Some(PopupAction::Yes) => PopupOutcome::Then(Command::Export { overwrite: true }),
            _ => PopupOutcome::Then(Command::Info("export cancelled".into())),
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, ctx: &PopupContext) {
        let lines = vec![
            Line::from("The cleaned file or the audit file exists."),
            Line::from(format!(
                "{} replace them   any other key cancels",
                ctx.keys.popup_hint(PopupAction::Yes)
            )),
        ];
        frame("replace?", lines, (46, 4), area, buf, ctx.theme);
    }
}

/// "Accept 3,048 suggestions?" with the class pairs they change.
#[derive(Clone, Debug, PartialEq)]
pub struct AcceptAll {
    pub threshold: f64,
    /// (given, suggested) class pairs and how many samples each, most first.
    pub pairs: Vec<((usize, usize), usize)>,
}

/// Class pairs listed before "and N more pairs".
const PAIRS_SHOWN: usize = 6;

impl PopupComponent for AcceptAll {
    fn handle_key(&mut self, key: &KeyEvent, ctx: &PopupContext) -> PopupOutcome {
        match ctx.keys.popup_action(key) {
            Some(PopupAction::Yes) => PopupOutcome::Then(Command::AcceptAll(self.threshold)),
            _ => PopupOutcome::Then(Command::Info("nothing accepted".into())),
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, ctx: &PopupContext) {
        let classes = &ctx.session.dataset().classes;
        let n: usize = self.pairs.iter().map(|p| p.1).sum();
        let mut lines = vec![Line::from(format!(
            "Relabel {} at p_mislabel >= {:.2} to their suggestion:",
            crate::dataset::counted(n, "undecided sample"),
            self.threshold
        ))];
        let w = usize::from(area.width.min(64).saturating_sub(12));
        for ((from, to), k) in self.pairs.iter().take(PAIRS_SHOWN) {
            let pair = format!("{} → {}", classes[*from], classes[*to]);
            lines.push(Line::from(format!(
                "  {:>6}  {}",
                k,
                crate::tui::text::short(&pair, w)
            )));
        }
        if self.pairs.len() > PAIRS_SHOWN {
            lines.push(Line::from(format!(
                "  and {} more pairs",
                self.pairs.len() - PAIRS_SHOWN
            )));
        }
        lines.push(Line::from(""));
        lines.push(Line::from(format!(
            "{} relabel them (one undo step)   any other key: no",
            ctx.keys.popup_hint(PopupAction::Yes)
        )));
        let h = lines.len() as u16 + 2;
        frame("accept all?", lines, (64, h), area, buf, ctx.theme);
    }
}

/// "The input changed on disk since it was loaded."
pub struct InputChanged;

impl PopupComponent for InputChanged {
    fn handle_key(&mut self, key: &KeyEvent, ctx: &PopupContext) -> PopupOutcome {
        use crossterm::event::KeyCode;
        match (ctx.keys.popup_action(key), key.code) {
            (Some(PopupAction::Export), _) => PopupOutcome::Then(Command::ExportAsLoaded),
            (_, KeyCode::Char('r')) => PopupOutcome::Then(Command::Reopen),
            (Some(PopupAction::Cancel), _) | (_, KeyCode::Char('c')) => {
                PopupOutcome::Then(Command::KeepLoaded)
            }
            _ => PopupOutcome::Stay,
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, ctx: &PopupContext) {
        let ds = ctx.session.dataset();
        let name = ds.raw.path.file_name().map_or_else(
            || ds.raw.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let lines = vec![
            Line::from(format!("{name} changed on disk since it was loaded.")),
            Line::from("The decisions are about the version loaded, and are"),
            Line::from("saved in its session; nothing was written over."),
            Line::from(""),
            Line::from(format!(
                "{} export them against the loaded version (*.as-loaded.*)",
                ctx.keys.popup_hint(PopupAction::Export)
            )),
            Line::from("r reopen the file as it is now (a new session; this"),
            Line::from("  one comes back if the file is restored)"),
            Line::from(format!(
                "c or {} go on with the loaded version",
                ctx.keys.popup_hint(PopupAction::Cancel)
            )),
        ];
        frame("file changed", lines, (60, 10), area, buf, ctx.theme);
    }
}
