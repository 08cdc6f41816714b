//! The application state: a review `Session` plus what the screen needs
//! (focus, the open popup, the fit in flight, cached projections). Every
//! key ends in a method here, and every method here ends in `Session`
//! calls, so the whole UI can be driven in tests without a terminal.
//! Popups own their keys (`popup/`); the app carries out what they ask.

use std::cell::{Cell, RefCell};
use std::path::PathBuf;
use std::rc::Rc;
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent};
use ratatui::layout::Rect;
use ratatui::widgets::TableState;

use super::keys::{Action, KeyMap};
// The open popup is part of the app's state (tests compare it).
pub use super::popup::Popup;
use super::popup::{
    ClassPicker, Command, CommentPrompt, FilterMenu, Help, ModelPicker, Notes, PopupContext,
    PopupOutcome, RecordView, SearchPrompt, ThresholdPrompt,
};
use super::text::width;
use super::theme::Theme;
use crate::analysis::{DetailCache, Projection};
use crate::app::FitJob;
use crate::models::{Fit, ModelOptions};
use crate::review::{Accepted, ExportOptions, ResumeInfo, ReviewError, Session};

/// Which pane has the focus (and, on narrow screens, is shown).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pane {
    List,
    Detail,
    Model,
}

/// A line at the bottom: what just happened, or what went wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    pub text: String,
    pub error: bool,
    /// Outlives the announcement of a learning refit that starts by itself
    /// (errors do too): what an export wrote must not vanish because the
    /// curator paused after deciding.
    pub lasting: bool,
}

pub struct App {
    pub session: Session,
    pub keys: KeyMap,
    pub theme: Theme,
    pub focus: Pane,
    pub popup: Option<Popup>,
    /// The message line: what the last key did, what a fit found, or
    /// what went wrong (the hint line below it is always the keys).
    pub message: Option<Message>,
    pub model: String,
    pub options: ModelOptions,
    pub job: Option<FitJob>,
    pub projection: Projection,
    /// The scatter's flagged samples for (fit generation, threshold): a
    /// scan of every sample, kept between frames.
    flagged_cache: RefCell<Option<FlaggedPoints>>,
    /// The status bar's count of wrong labels left, kept between frames.
    wrong_left_cache: RefCell<Option<WrongLeft>>,
    pub detail: DetailCache,
    pub quit: bool,
    /// Quit to open the input again as it is now (it changed on disk).
    pub reopen: bool,
    /// How the session was resumed, said again with the first fit's line.
    pub opening: Option<String>,
    /// The list's scroll position (first row shown) and selection, kept
    /// across frames; the list is drawn through a `&App`, hence the cell.
    pub list_state: RefCell<TableState>,
    /// Where the list's rows were drawn, for mouse clicks.
    pub list_area: Cell<Rect>,
    /// Rows formatted in the last frame (the list is virtualised).
    pub rows_formatted: Cell<usize>,
    /// How far the detail and the model pane are scrolled (lines), as the
    /// keys asked; drawing keeps it within what the pane holds.
    pub pane_scroll: [u16; 2],
    /// The most each of them can scroll, as the last frame found.
    pub pane_room: Cell<[u16; 2]>,
    /// The widest id in terminal cells: the id column's width, measured
    /// once since it reads every id.
    pub id_width: usize,
    /// Where exports go when the user did not say (tests point it elsewhere).
    pub export_dir: Option<PathBuf>,
    /// The session's decisions version the current fit was started with,
    /// the last one seen, and when it last changed (learning refits).
    pub fitted_version: u64,
    pub seen_version: u64,
    pub changed_at: Option<Instant>,
    /// Whether the fit in flight is a refit (keeps the cursor's sample).
    pub refitting: bool,
    /// Until when the rows the last refit moved far are marked.
    pub moved_until: Option<Instant>,
}

/// The opening line: what reading the journal found, when anything (an
/// error: the curator should look, and it outlives the first fit's line),
/// else how the session was resumed. One line; the notes (`i`) hold all.
fn start_message(session: &Session, resume: &ResumeInfo) -> Option<Message> {
    let journal = session.journal_notices();
    if let Some(first) = journal.first() {
        let more = match journal.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        return Some(Message {
            text: format!("{first}{more}"),
            error: true,
            lasting: true,
        });
    }
    resume_message(resume, session.comments().len()).or_else(|| {
        match crate::app::data_notes(session.dataset()).len() {
            0 => None,
            n => Some(Message {
                text: format!(
                    "{} on the table: i shows {}",
                    crate::dataset::counted(n, "note"),
                    if n == 1 { "it" } else { "them" }
                ),
                error: false,
                lasting: false,
            }),
        }
    })
}

fn resume_message(resume: &ResumeInfo, comments: usize) -> Option<Message> {
    use crate::dataset::counted;
    let text = match (resume, comments) {
        (ResumeInfo::Resumed { decisions: 0 }, 0) => {
            "resumed the earlier session (no decisions in it yet)".into()
        }
        (ResumeInfo::Resumed { decisions }, comments) => {
            let restored = match (*decisions, comments) {
                (d, 0) => counted(d, "decision"),
                (0, c) => counted(c, "comment"),
                (d, c) => format!("{} and {}", counted(d, "decision"), counted(c, "comment")),
            };
            format!("resumed the earlier session: {restored} restored")
        }
        (ResumeInfo::InputChanged, _) => {
            "the file changed since the last session: starting a new one".into()
        }
        (
            ResumeInfo::Fresh {
                set_aside: Some(to),
            },
            _,
        ) => format!(
            "started afresh: the earlier session is kept as {}",
            to.display()
        ),
        (ResumeInfo::Fresh { set_aside: None }, _) => {
            "started afresh (there was no earlier session)".into()
        }
        (ResumeInfo::New, _) => return None,
    };
    Some(Message {
        text,
        error: false,
        lasting: false,
    })
}

/// (fit generation, decisions version) and the count of wrong labels
/// left among the undecided for them.
type WrongLeft = ((u64, u64), crate::models::WrongLabelCount);

/// (fit generation, threshold bits) and the flagged samples for them.
type FlaggedPoints = ((u64, u64), Rc<[usize]>);

impl App {
    /// The app with the user's key table from the config directory and
    /// colours unless `NO_COLOR` says otherwise.
    pub fn new(session: Session, resume: &ResumeInfo, model: &str, options: ModelOptions) -> App {
        let (keys, key_errors) = KeyMap::from_config_dir();
        let mut app = App::with_keys(session, resume, model, options, keys);
        app.theme = Theme::from_env();
        // A broken entry outlives the first fit's line: the curator pressed
        // a key that does nothing and should know why.
        if let Some(first) = key_errors.first() {
            let more = match key_errors.len() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            app.say(format!("{first}{more}"), true, true);
        }
        app
    }

    pub fn with_keys(
        session: Session,
        resume: &ResumeInfo,
        model: &str,
        options: ModelOptions,
        keys: KeyMap,
    ) -> App {
        let projection = Projection::compute(&session.dataset().x);
        let detail = DetailCache::new(&session.dataset().x);
        let id_width = session
            .dataset()
            .ids
            .iter()
            .map(|i| width(i))
            .max()
            .unwrap_or(0);
        let message = start_message(&session, resume);
        let opening = resume_message(resume, session.comments().len()).map(|m| m.text);
        let (model, options) = match session.model_choice() {
            Some((m, o)) => (m, o),
            None => (model.to_string(), options),
        };
        App {
            session,
            keys,
            theme: Theme::coloured(),
            focus: Pane::List,
            popup: None,
            message,
            model,
            options,
            job: None,
            projection,
            flagged_cache: RefCell::new(None),
            wrong_left_cache: RefCell::new(None),
            detail,
            quit: false,
            reopen: false,
            opening,
            list_state: RefCell::new(TableState::new()),
            list_area: Cell::new(Rect::default()),
            rows_formatted: Cell::new(0),
            pane_scroll: [0; 2],
            pane_room: Cell::new([0; 2]),
            export_dir: None,
            fitted_version: 0,
            seen_version: 0,
            changed_at: None,
            refitting: false,
            moved_until: None,
            id_width,
        }
    }

    /// At most 4000 samples with p_mislabel at or above `threshold` in
    /// `fit` (the session's current fit), for the scatter.
    pub(super) fn flagged_points(&self, fit: &Fit, threshold: f64) -> Rc<[usize]> {
        let key = (self.session.fit_generation(), threshold.to_bits());
        if let Some((k, v)) = self.flagged_cache.borrow().as_ref()
            && *k == key
        {
            return Rc::clone(v);
        }
        let v: Rc<[usize]> = (0..fit.p_mislabel.len())
            .filter(|&i| fit.p_mislabel[i] >= threshold)
            .take(4000)
            .collect();
        *self.flagged_cache.borrow_mut() = Some((key, Rc::clone(&v)));
        v
    }

    /// The count of wrong labels among the undecided samples, with its
    /// interval (`app::auto::counts`), recounted when a decision or the
    /// fit changed.
    pub fn wrong_left(&self) -> crate::models::WrongLabelCount {
        let key = (
            self.session.fit_generation(),
            self.session.decisions_version(),
        );
        if let Some((k, c)) = self.wrong_left_cache.borrow().as_ref()
            && *k == key
        {
            return c.clone();
        }
        let p: Vec<f64> = self.session.fit().map_or_else(Vec::new, |f| {
            f.p_mislabel
                .iter()
                .enumerate()
                .filter(|(i, _)| self.session.decision(*i).is_none())
                .map(|(_, p)| *p)
                .collect()
        });
        let c = crate::app::auto::counts::count(&p);
        *self.wrong_left_cache.borrow_mut() = Some((key, c.clone()));
        c
    }

    fn say(&mut self, text: impl Into<String>, error: bool, lasting: bool) {
        self.message = Some(Message {
            text: text.into(),
            error,
            lasting,
        });
    }

    pub(super) fn info(&mut self, text: impl Into<String>) {
        self.say(text, false, false);
    }

    /// [`App::info`] for news a learning refit must not cover (see
    /// [`Message::lasting`]).
    fn lasting_info(&mut self, text: impl Into<String>) {
        self.say(text, false, true);
    }

    pub(super) fn error(&mut self, text: impl Into<String>) {
        self.say(text, true, false);
    }

    fn report<T>(&mut self, r: Result<T, ReviewError>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                self.review_error(e);
                None
            }
        }
    }

    /// Says a session's error; a changed input also asks what to do.
    fn review_error(&mut self, e: ReviewError) {
        if matches!(e, ReviewError::InputChanged(_)) {
            self.popup = Some(Popup::InputChanged);
        }
        self.error(e.to_string());
    }

    /// What a popup may read while it handles a key or draws.
    pub fn popup_context(&self) -> PopupContext<'_> {
        PopupContext {
            session: &self.session,
            message: self.message.as_ref().map(|m| m.text.as_str()),
            keys: &self.keys,
            theme: &self.theme,
        }
    }

    // ----- keys -----

    pub fn handle_key(&mut self, key: &KeyEvent) {
        // A terminal sends Esc and a key typed right after it as that key
        // with Alt (tmux does so within its escape-time, 500 ms by default):
        // no binding uses Alt, so it is read as the two keys it was.
        if key.modifiers.contains(KeyModifiers::ALT) {
            let mut plain = *key;
            plain.modifiers.remove(KeyModifiers::ALT);
            self.handle_key(&KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
            self.handle_key(&plain);
            return;
        }
        if self.popup.is_some() {
            self.handle_popup_key(key);
            return;
        }
        if let Some(action) = self.keys.action(key) {
            self.handle_action(action);
        }
    }

    pub fn handle_action(&mut self, action: Action) {
        match action {
            Action::Down
            | Action::Up
            | Action::Top
            | Action::Bottom
            | Action::PageDown
            | Action::PageUp => self.move_cursor(action),
            Action::Search
            | Action::Filter
            | Action::Relabel
            | Action::Threshold
            | Action::Comment
            | Action::Model
            | Action::Notes
            | Action::Record
            | Action::Help => self.open_popup(action),
            Action::NextMatch | Action::PrevMatch => self.next_match(action == Action::NextMatch),
            Action::Sort | Action::SortBack => self.sort(action == Action::Sort),
            Action::ReverseSort => self.reverse_sort(),
            Action::Accept => self.accept(),
            Action::RelabelNth(n) => self.relabel_by_key(n),
            Action::Keep | Action::Drop | Action::Clear => self.decide(action),
            Action::AcceptAll => self.accept_all(),
            Action::Undo => self.step_history(false),
            Action::Redo => self.step_history(true),
            Action::Refit => self.start_fit(true),
            Action::Export => {
                self.export(false);
            }
            Action::NextPane => self.next_pane(),
            Action::Quit => self.ask_quit(),
            Action::Cancel => self.cancel(),
        }
        self.refresh_detail();
    }

    /// The scroll of `pane` (detail or model) for a frame of `lines` in
    /// `height` rows; the room to scroll is kept for the next key.
    pub fn scrolled(&self, pane: Pane, lines: usize, height: u16) -> u16 {
        let k = usize::from(pane == Pane::Model);
        let room = u16::try_from(lines.saturating_sub(usize::from(height))).unwrap_or(u16::MAX);
        let mut rooms = self.pane_room.get();
        rooms[k] = room;
        self.pane_room.set(rooms);
        self.pane_scroll[k].min(room)
    }

    /// The movement keys scroll the detail or the model pane when it has
    /// the focus: neighbours and tables past its bottom are reachable.
    fn scroll_pane(&mut self, action: Action) {
        let k = usize::from(self.focus == Pane::Model);
        let room = self.pane_room.get()[k];
        let at = self.pane_scroll[k].min(room);
        self.pane_scroll[k] = match action {
            Action::Down => at.saturating_add(1),
            Action::Up => at.saturating_sub(1),
            Action::Top => 0,
            Action::Bottom => room,
            Action::PageDown => at.saturating_add(10),
            _ => at.saturating_sub(10),
        }
        .min(room);
    }

    fn move_cursor(&mut self, action: Action) {
        if self.focus != Pane::List {
            self.scroll_pane(action);
            return;
        }
        let page = (self.list_area.get().height as isize).max(1);
        match action {
            Action::Down => self.session.move_cursor(1),
            Action::Up => self.session.move_cursor(-1),
            Action::Top => self.session.cursor_top(),
            Action::Bottom => self.session.cursor_bottom(),
            Action::PageDown => self.session.move_cursor(page),
            _ => self.session.move_cursor(-page),
        }
    }

    fn open_popup(&mut self, action: Action) {
        self.popup = match action {
            Action::Search => Some(Popup::Search(SearchPrompt::default())),
            Action::Filter => Some(Popup::Filter(FilterMenu::default())),
            Action::Relabel if self.session.selected().is_some() => {
                Some(Popup::ClassPicker(ClassPicker::default()))
            }
            Action::Threshold => Some(Popup::Threshold(ThresholdPrompt::new(
                self.session.threshold(),
            ))),
            Action::Comment => self
                .session
                .selected()
                .map(|s| Popup::Comment(CommentPrompt::new(s, self.session.comment_of(s)))),
            Action::Model => Some(Popup::ModelPicker(Box::new(ModelPicker::new(
                &self.model,
                &self.options,
            )))),
            Action::Notes => Some(Popup::Notes(Notes::new(&self.popup_context()))),
            Action::Help => Some(Popup::Help(Help::default())),
            Action::Record => self
                .session
                .selected()
                .map(|s| Popup::Record(RecordView::new(s))),
            _ => None,
        };
    }

    fn next_match(&mut self, forward: bool) {
        let found = if forward {
            self.session.search_next()
        } else {
            self.session.search_prev()
        };
        if found {
            self.say_match();
        } else {
            self.info("no match");
        }
    }

    /// Searches and says how many samples hold the text, and which of the
    /// list's matches the cursor is on.
    fn search(&mut self, text: &str) {
        if self.session.search(text) {
            self.say_match();
            return;
        }
        let n = self.session.search_count();
        self.info(if n == 0 {
            format!(
                "no sample has \"{}\" in its id, labels, comment or fields",
                text.trim()
            )
        } else {
            format!(
                "\"{}\" is in {} but none is in the filtered list",
                text.trim(),
                crate::dataset::counted(n, "sample")
            )
        });
    }

    fn say_match(&mut self) {
        let Some((at, shown)) = self.session.search_rank() else {
            return;
        };
        let all = self.session.search_count();
        let q = self.session.search_query().unwrap_or_default().to_string();
        let more = if all > shown {
            format!(" ({all} in all; the filter hides the rest)")
        } else {
            String::new()
        };
        let (next, prev) = (
            self.keys.hint(Action::NextMatch),
            self.keys.hint(Action::PrevMatch),
        );
        self.info(format!(
            "\"{q}\": match {at} of {shown}{more}; {next}/{prev} next/previous"
        ));
    }

    fn reverse_sort(&mut self) {
        self.session.reverse_sort();
        self.session.cursor_top();
        let way = if self.session.sort_descending() {
            "descending"
        } else {
            "ascending"
        };
        self.info(format!("sorted by {} {way}", self.session.sort_name()));
    }

    fn sort(&mut self, forward: bool) {
        if forward {
            self.session.cycle_sort();
        } else {
            self.session.cycle_sort_back();
        }
        // A new order is asked for to see its top, not to keep following
        // the sample that happened to be selected.
        self.session.cursor_top();
        let name = self.session.sort_name();
        let next = self.keys.hint(Action::Sort);
        self.info(format!("sorted by {name} ({next} for the next order)"));
    }

    fn accept(&mut self) {
        let Some(s) = self.session.selected() else {
            return;
        };
        let shown = self.session.fit_of(s).map(|f| f.suggested[s]);
        match self.session.accept_suggestion(s) {
            Ok(Accepted::Relabelled) => {
                let to = shown.map_or("?", |c| self.session.dataset().classes[c].as_str());
                let said = self.relabelled_line(s, to);
                self.session.move_cursor(1);
                self.info(said);
            }
            Ok(Accepted::Kept) => {
                let said = format!("{}: the model agrees", self.kept_line(s));
                self.session.move_cursor(1);
                self.info(said);
            }
            Ok(Accepted::Unscored) => {
                self.info("nothing to accept: the sample has no score");
            }
            Err(e) => self.review_error(e),
        }
    }

    /// "relabelled 110: cultivar_3 → cultivar_2 (u undoes)"
    fn relabelled_line(&self, sample: usize, to: &str) -> String {
        let ds = self.session.dataset();
        format!(
            "relabelled {}: {} → {to} ({} undoes)",
            ds.ids[sample],
            ds.given_label(sample),
            self.keys.hint(Action::Undo)
        )
    }

    /// "kept 110 as cultivar_3"
    fn kept_line(&self, sample: usize) -> String {
        let ds = self.session.dataset();
        format!("kept {} as {}", ds.ids[sample], ds.given_label(sample))
    }

    /// Relabels the selected sample to its `rank`-th class by posterior
    /// (the class picker's order).
    fn relabel_to_rank(&mut self, rank: usize) {
        let Some(s) = self.session.selected() else {
            return;
        };
        if let Some(&c) = self.session.classes_by_posterior(s).get(rank) {
            self.relabel_to(s, c);
        }
    }

    /// Relabels the selected sample to the class digit key `digit` keys in
    /// the detail pane (see `Session::class_for_key`).
    fn relabel_by_key(&mut self, digit: u8) {
        let Some(s) = self.session.selected() else {
            return;
        };
        match self.session.class_for_key(s, digit) {
            Some(c) => self.relabel_to(s, c),
            None if self.session.digit_keys_name_classes() => {
                let picker = self.keys.hint(Action::Relabel);
                self.info(format!(
                    "no class is named {digit}: {picker} picks any class"
                ));
            }
            None => {}
        }
    }

    fn relabel_to(&mut self, sample: usize, class: usize) {
        let r = self.session.relabel(sample, class);
        if self.report(r).is_some() {
            let said = if class == self.session.dataset().labels[sample] {
                self.kept_line(sample)
            } else {
                let to = self.session.dataset().classes[class].clone();
                self.relabelled_line(sample, &to)
            };
            self.session.move_cursor(1);
            self.info(said);
        }
    }

    /// Keep, drop (both move on) or clear the selected sample, and say
    /// what became of it: a key that toggles must say which way it went.
    fn decide(&mut self, action: Action) {
        let Some(s) = self.session.selected() else {
            return;
        };
        let was = self.session.decision(s);
        let r = match action {
            Action::Keep => self.session.keep(s),
            Action::Drop => self.session.drop_sample(s),
            _ => self.session.clear(s),
        };
        if self.report(r).is_none() {
            return;
        }
        let id = self.session.dataset().ids[s].clone();
        let said = match (action, self.session.decision(s), was) {
            (Action::Keep, Some(_), _) => self.kept_line(s),
            (Action::Drop, Some(_), _) => {
                format!("dropped {id}: left out of the cleaned file")
            }
            (_, None, Some(_)) => format!("cleared the decision on {id}"),
            _ => format!("{id} has no decision to clear"),
        };
        if action != Action::Clear && self.session.decision(s).is_some() {
            self.session.move_cursor(1);
        }
        self.info(said);
    }

    /// Saves a comment and says what became of it.
    fn comment(&mut self, sample: usize, text: &str) {
        let r = self.session.comment(sample, text);
        if let Some(changed) = self.report(r) {
            let id = &self.session.dataset().ids[sample];
            let said = match (changed, self.session.comment_of(sample)) {
                (false, _) => format!("comment on {id} unchanged"),
                (true, Some(_)) => format!("comment on {id} saved (in the audit file at export)"),
                (true, None) => format!("comment on {id} removed"),
            };
            self.info(said);
        }
    }

    /// Asks before accepting every suggestion above the threshold, with
    /// how many and which class pairs.
    fn accept_all(&mut self) {
        let threshold = self.session.threshold();
        let pairs = self.session.accept_all_preview(threshold);
        if pairs.is_empty() {
            self.info(format!(
                "no undecided sample at p_mislabel >= {threshold:.2} has another suggestion"
            ));
            return;
        }
        self.popup = Some(Popup::ConfirmAcceptAll(super::popup::confirm::AcceptAll {
            threshold,
            pairs,
        }));
    }

    fn accept_all_confirmed(&mut self, t: f64) {
        let r = self.session.accept_all_above(t);
        if let Some(n) = self.report(r) {
            let undo = self.keys.hint(Action::Undo);
            self.info(format!(
                "accepted {n} suggestions at p_mislabel >= {t:.2} ({undo} undoes them together)"
            ));
        }
    }

    /// Undo (or redo) and show the sample it changed.
    fn step_history(&mut self, redo: bool) {
        let (target, verb, done) = if redo {
            (self.session.redo_target(), "redo", "redone")
        } else {
            (self.session.undo_target(), "undo", "undone")
        };
        let result = target.map(|t| {
            let r = if redo {
                self.session.redo()
            } else {
                self.session.undo()
            };
            (t, r)
        });
        match result {
            Some((target, Ok(true))) => {
                self.session.select_sample(target);
                self.info(done);
            }
            Some((_, Err(e))) => self.error(e.to_string()),
            _ => self.info(format!("nothing to {verb}")),
        }
    }

    fn next_pane(&mut self) {
        self.focus = match self.focus {
            Pane::List => Pane::Detail,
            Pane::Detail => Pane::Model,
            Pane::Model => Pane::List,
        }
    }

    fn ask_quit(&mut self) {
        if self.session.has_unexported() {
            self.popup = Some(Popup::ConfirmQuit);
        } else {
            self.quit = true;
        }
    }

    fn cancel(&mut self) {
        if let Some(job) = &self.job {
            job.cancel();
            self.info("cancelling the fit...");
        } else {
            self.message = None;
        }
    }

    /// Recomputes the detail of the selected sample when it changed.
    pub fn refresh_detail(&mut self) {
        if let Some(s) = self.session.selected() {
            if self.detail.current.as_ref().is_some_and(|d| d.sample != s) {
                // Another sample's detail starts at its top.
                self.pane_scroll[0] = 0;
            }
            self.detail.select(self.session.dataset(), s);
        }
    }

    /// Exports; whether the files were written.
    pub fn export(&mut self, overwrite: bool) -> bool {
        let mut opts = ExportOptions {
            overwrite,
            model: self.session.model_name().unwrap_or(&self.model).to_string(),
            ..ExportOptions::default()
        };
        if let Some(dir) = &self.export_dir {
            let (cleaned, _) = crate::review::export::default_paths_for(self.session.dataset());
            if let Some(name) = cleaned.file_name() {
                opts.out = Some(dir.join(name));
            }
        }
        match self.session.export(&opts) {
            Ok(s) => {
                self.lasting_info(format!(
                    "exported {} ({} relabelled, {} dropped{}) and {}",
                    s.cleaned.display(),
                    s.relabelled,
                    s.dropped,
                    s.commented_part(),
                    s.audit.display()
                ));
                true
            }
            Err(ReviewError::Exists(p)) => {
                self.popup = Some(Popup::ConfirmOverwrite);
                self.info(format!("{} exists", p.display()));
                false
            }
            Err(e) => {
                self.review_error(e);
                false
            }
        }
    }

    // ----- popups -----

    /// Hands the key to the open popup and does what it asks.
    fn handle_popup_key(&mut self, key: &KeyEvent) {
        let Some(mut popup) = self.popup.take() else {
            return;
        };
        match popup.handle_key(key, &self.popup_context()) {
            PopupOutcome::Stay => self.popup = Some(popup),
            PopupOutcome::Invalid(e) => {
                self.error(e);
                self.popup = Some(popup);
            }
            PopupOutcome::Close => {}
            PopupOutcome::Then(command) => self.run(command),
        }
        self.refresh_detail();
    }

    /// Carries out what a closing popup asked for.
    fn run(&mut self, command: Command) {
        match command {
            Command::ApplyFilter(f) => {
                self.session.set_filter(f);
                self.session.cursor_top();
                let s = &self.session;
                let said = if s.filter().is_empty() {
                    format!("showing all {}", s.view().len())
                } else {
                    format!(
                        "filter {}: {} shown ({} for the menu)",
                        s.filter().describe(&s.dataset().classes),
                        s.view().len(),
                        self.keys.hint(Action::Filter)
                    )
                };
                self.info(said);
            }
            Command::RelabelToRank(rank) => self.relabel_to_rank(rank),
            Command::SetThreshold(t) => {
                let r = self.session.set_threshold(t);
                if self.report(r).is_some() {
                    let flagged = self.session.counts().flagged;
                    self.info(format!(
                        "threshold {t:.2}: {flagged} flagged (kept with the session)"
                    ));
                }
            }
            Command::Search(text) => {
                self.search(&text);
            }
            Command::Comment { sample, text } => self.comment(sample, &text),
            Command::Quit => self.quit = true,
            Command::Export { overwrite } => {
                self.export(overwrite);
            }
            Command::ExportThenQuit => self.quit = self.export(false),
            Command::AcceptAll(t) => self.accept_all_confirmed(t),
            Command::ExportAsLoaded => {
                self.session.keep_loaded_version();
                self.export(false);
            }
            Command::KeepLoaded => {
                self.session.keep_loaded_version();
                self.info("going on with the loaded version: an export is named *.as-loaded.*");
            }
            Command::Reopen => {
                self.reopen = true;
                self.quit = true;
            }
            Command::Info(text) => self.info(text),
            // probs reads a classifier's probabilities, given only on the
            // command line: said before anything changes.
            Command::Fit { model, .. }
                if model == "probs" && self.session.dataset().options.probs.is_none() =>
            {
                let path = &self.session.dataset().raw.path;
                let name = path
                    .file_name()
                    .unwrap_or(path.as_os_str())
                    .to_string_lossy();
                self.error(format!(
                    "probs needs a classifier's probabilities: quit and run \
                     `relabel --model probs --probs PROBS.csv {name}`"
                ));
            }
            Command::Fit { model, options } => {
                let r = self.session.set_model_choice(&model, &options);
                if self.report(r).is_some() {
                    self.model = model;
                    self.options = *options;
                    self.start_fit(false);
                }
            }
        }
    }

    /// Pasted text (the terminal's bracketed paste): typed into the open
    /// text field, one line (a newline would otherwise confirm it half
    /// way). Never read as keys: pasted "drop all" would drop a sample,
    /// open the class picker and accept every suggestion.
    pub fn handle_paste(&mut self, text: &str) {
        let line = crate::review::session::tidy(text);
        if let Some(field) = self.popup.as_mut().and_then(Popup::text_field) {
            field.push_str(&line);
            return;
        }
        let comment = self.keys.hint(Action::Comment);
        let search = self.keys.hint(Action::Search);
        self.info(format!(
            "pasted text goes into a text field ({comment} comments, {search} searches); it is never read as keys"
        ));
    }

    /// Mouse: the wheel scrolls, a click on a row selects it.
    pub fn handle_mouse(&mut self, m: &MouseEvent) {
        use crossterm::event::{MouseButton, MouseEventKind};
        if self.popup.is_some() {
            return;
        }
        match m.kind {
            MouseEventKind::ScrollDown => self.session.move_cursor(3),
            MouseEventKind::ScrollUp => self.session.move_cursor(-3),
            MouseEventKind::Down(MouseButton::Left) => self.click(m.column, m.row),
            _ => {}
        }
        self.refresh_detail();
    }

    /// Selects the list row drawn at (`column`, `row`), if any.
    fn click(&mut self, column: u16, row: u16) {
        let area = self.list_area.get();
        let inside = column >= area.x
            && column < area.x + area.width
            && row >= area.y
            && row < area.y + area.height;
        if !inside {
            return;
        }
        let pos = self.list_state.borrow().offset() + usize::from(row - area.y);
        if pos < self.session.view().len() {
            self.session.cursor_to(pos);
            self.focus = Pane::List;
        }
    }
}
