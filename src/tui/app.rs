//! The application state: a review `Session` plus what the screen needs
//! (focus, popups, the fit in flight, cached projections). Every key ends in
//! a method here, and every method here ends in `Session` calls, so the whole
//! UI can be driven in tests without a terminal.

use std::cell::Cell;
use std::path::PathBuf;

use ratatui::layout::Rect;

use super::keys::{Action, KeyMap};
use crate::analysis::{DetailCache, Projection};
use crate::app::{FitJob, WorkerMsg};
use crate::models::{FitError, MODELS, ModelOptions};
use crate::review::{DecisionFilter, ExportOptions, Filter, ResumeInfo, ReviewError, Session};

/// Which pane has the focus (and, on narrow screens, is shown).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pane {
    List,
    Detail,
    Model,
}

/// A popup takes the keys until it closes.
#[derive(Clone, Debug, PartialEq)]
pub enum Popup {
    /// The first help line shown: the help scrolls on short screens.
    Help {
        scroll: usize,
    },
    /// Entries of the filter menu and the highlighted one.
    Filter {
        selected: usize,
    },
    /// Classes by posterior and the highlighted one.
    ClassPicker {
        selected: usize,
    },
    ModelPicker(Box<ModelPicker>),
    Threshold {
        input: String,
    },
    Search {
        input: String,
    },
    ConfirmQuit,
    ConfirmOverwrite,
}

/// The model picker: a model list and the options of the highlighted model.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelPicker {
    pub model: usize,
    pub options: ModelOptions,
    /// Focus on the option list instead of the model list.
    pub in_options: bool,
    pub option: usize,
    /// Text being typed for the highlighted option.
    pub editing: Option<String>,
}

/// A line at the bottom: what just happened, or what went wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    pub text: String,
    pub error: bool,
}

pub struct App {
    pub session: Session,
    pub keys: KeyMap,
    pub focus: Pane,
    pub popup: Option<Popup>,
    pub message: Option<Message>,
    pub model: String,
    pub options: ModelOptions,
    pub job: Option<FitJob>,
    pub projection: Projection,
    pub detail: DetailCache,
    pub quit: bool,
    /// First visible row of the list (scroll state, set while drawing).
    pub list_offset: Cell<usize>,
    /// Where the list's rows were drawn, for mouse clicks.
    pub list_area: Cell<Rect>,
    /// How far the help can scroll on the last frame's screen.
    pub help_scroll_max: Cell<usize>,
    /// Rows formatted in the last frame (the list is virtualised).
    pub rows_formatted: Cell<usize>,
    /// The longest id in characters: the id column's width, measured once
    /// since it reads every id.
    pub id_width: usize,
    /// Where exports go when the user did not say (tests point it elsewhere).
    pub export_dir: Option<PathBuf>,
}

/// A text field: characters append, Backspace deletes.
fn type_into(input: &mut String, code: crossterm::event::KeyCode) {
    match code {
        crossterm::event::KeyCode::Char(c) => input.push(c),
        crossterm::event::KeyCode::Backspace => {
            input.pop();
        }
        _ => {}
    }
}

/// Entries of the filter menu.
pub fn filter_entries(classes: &[String]) -> Vec<(String, Filter)> {
    let mut v = vec![("show all".to_string(), Filter::default())];
    for (c, name) in classes.iter().enumerate() {
        v.push((
            format!("given label = {name}"),
            Filter {
                class: Some(c),
                ..Filter::default()
            },
        ));
    }
    for d in DecisionFilter::ALL {
        v.push((
            d.name().to_string(),
            Filter {
                decision: Some(d),
                ..Filter::default()
            },
        ));
    }
    v
}

impl App {
    /// The app with the user's key table from the config directory.
    pub fn new(session: Session, resume: &ResumeInfo, model: &str, options: ModelOptions) -> App {
        let (keys, key_error) = KeyMap::from_config_dir();
        let mut app = App::with_keys(session, resume, model, options, keys);
        if let Some(e) = key_error {
            app.error(e);
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
            .map(|i| i.chars().count())
            .max()
            .unwrap_or(0);
        let (model, options) = match session.model_choice() {
            Some((m, o)) => (m, o),
            None => (model.to_string(), options),
        };
        let message = match resume {
            ResumeInfo::Resumed { decisions } => Some(Message {
                text: format!("resumed the earlier session: {decisions} decisions restored"),
                error: false,
            }),
            ResumeInfo::InputChanged => Some(Message {
                text: "the file changed since the last session: starting a new one".into(),
                error: false,
            }),
            ResumeInfo::New => None,
        };
        App {
            session,
            keys,
            focus: Pane::List,
            popup: None,
            message,
            model,
            options,
            job: None,
            projection,
            detail,
            quit: false,
            list_offset: Cell::new(0),
            list_area: Cell::new(Rect::default()),
            help_scroll_max: Cell::new(0),
            rows_formatted: Cell::new(0),
            export_dir: None,
            id_width,
        }
    }

    fn info(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            text: text.into(),
            error: false,
        });
    }

    fn error(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            text: text.into(),
            error: true,
        });
    }

    fn report<T>(&mut self, r: Result<T, ReviewError>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                self.error(e.to_string());
                None
            }
        }
    }

    // ----- fitting -----

    /// Starts a fit of the current model on all samples (`refit`: on the
    /// samples not dropped, with relabels applied).
    pub fn start_fit(&mut self, refit: bool) {
        if let Some(job) = &self.job {
            job.cancel();
        }
        let ds = self.session.dataset();
        let (samples, labels) = if refit {
            self.session.refit_labels()
        } else {
            ((0..ds.n_samples()).collect(), ds.labels.clone())
        };
        match FitJob::on_table(ds, &self.model, &self.options, samples, labels) {
            Ok(job) => {
                let verb = if refit { "refitting" } else { "fitting" };
                let why = job.note.as_ref().map(|n| format!(" ({n})"));
                self.info(format!("{verb} {}{}", job.model, why.unwrap_or_default()));
                self.job = Some(job);
            }
            Err(e) => self.error(format!("cannot fit {}: {e}", self.model)),
        }
    }

    /// Takes in what the worker sent; call once per loop turn.
    pub fn poll_worker(&mut self) {
        let Some(job) = self.job.as_mut() else { return };
        if let Some(msg) = job.poll() {
            self.finish_fit(msg);
        }
    }

    /// Waits for the running fit to end (tests).
    pub fn wait_for_fit(&mut self) {
        if let Some(job) = self.job.as_mut() {
            let msg = job.wait();
            self.finish_fit(msg);
        }
    }

    fn finish_fit(&mut self, msg: WorkerMsg) {
        let Some(job) = self.job.take() else { return };
        let msg = match msg {
            WorkerMsg::Done(r) => Ok(*r),
            other => Err(other),
        };
        match msg {
            Ok(Ok(fit)) => {
                let n = self.session.dataset().n_samples();
                let status = format!(
                    "{} {} after {} iterations",
                    job.model,
                    if fit.converged {
                        "converged"
                    } else {
                        "did NOT converge"
                    },
                    fit.iterations
                );
                let notes = fit.extra.notes.join("; ");
                if job.samples.len() == n {
                    self.session.set_fit(&job.model, fit);
                } else {
                    self.session.set_fit_subset(&job.model, fit, &job.samples);
                }
                self.detail.invalidate();
                self.session.cursor_top();
                if notes.is_empty() {
                    self.info(status);
                } else {
                    self.info(format!("{status}; {notes}"));
                }
            }
            Ok(Err(FitError::Cancelled)) => self.info("fit cancelled"),
            Ok(Err(e)) => self.error(format!("{} failed: {e}", job.model)),
            Err(WorkerMsg::Panicked(p)) => self.error(format!(
                "{} crashed ({p}); the session is intact",
                job.model
            )),
            Err(_) => self.job = Some(job),
        }
        self.refresh_detail();
    }

    pub fn fitting(&self) -> bool {
        self.job.is_some()
    }

    // ----- keys -----

    pub fn handle_key(&mut self, key: &crossterm::event::KeyEvent) {
        if self.popup.is_some() {
            self.handle_popup_key(key);
            return;
        }
        if let Some(action) = self.keys.action(key) {
            self.handle_action(action);
        }
    }

    pub fn handle_action(&mut self, action: Action) {
        let page = (self.list_area.get().height as isize).max(1);
        let selected = self.session.selected();
        match action {
            Action::Down => self.session.move_cursor(1),
            Action::Up => self.session.move_cursor(-1),
            Action::Top => self.session.cursor_top(),
            Action::Bottom => self.session.cursor_bottom(),
            Action::PageDown => self.session.move_cursor(page),
            Action::PageUp => self.session.move_cursor(-page),
            Action::Search => {
                self.popup = Some(Popup::Search {
                    input: String::new(),
                })
            }
            Action::NextMatch => {
                if !self.session.search_next() {
                    self.info("no match");
                }
            }
            Action::PrevMatch => {
                if !self.session.search_prev() {
                    self.info("no match");
                }
            }
            Action::Filter => self.popup = Some(Popup::Filter { selected: 0 }),
            Action::Sort | Action::SortBack => {
                if action == Action::Sort {
                    self.session.cycle_sort();
                } else {
                    self.session.cycle_sort_back();
                }
                // A new order is asked for to see its top, not to keep
                // following the sample that happened to be selected.
                self.session.cursor_top();
                let name = self.session.sort_key().name();
                let next = self.keys.keys_of(Action::Sort);
                self.info(format!("sorted by {name} ({next} for the next order)"));
            }
            Action::Accept => {
                if let Some(s) = selected {
                    match self.session.accept_suggestion(s) {
                        Ok(true) => {
                            self.session.move_cursor(1);
                            self.info("accepted");
                        }
                        Ok(false) => self.info(
                            "nothing to accept: the model agrees with the label, or has no score",
                        ),
                        Err(e) => self.error(e.to_string()),
                    }
                }
            }
            Action::RelabelNth(n) => {
                if let Some(s) = selected {
                    let order = self.session.classes_by_posterior(s);
                    if let Some(&c) = order.get(usize::from(n) - 1) {
                        let r = self.session.relabel(s, c);
                        if self.report(r).is_some() {
                            self.session.move_cursor(1);
                        }
                    }
                }
            }
            Action::Relabel => {
                if selected.is_some() {
                    self.popup = Some(Popup::ClassPicker { selected: 0 });
                }
            }
            Action::Keep => {
                if let Some(s) = selected {
                    let r = self.session.keep(s);
                    if self.report(r).is_some() {
                        self.session.move_cursor(1);
                    }
                }
            }
            Action::Drop => {
                if let Some(s) = selected {
                    let r = self.session.drop_sample(s);
                    if self.report(r).is_some() {
                        self.session.move_cursor(1);
                    }
                }
            }
            Action::Clear => {
                if let Some(s) = selected {
                    let r = self.session.clear(s);
                    self.report(r);
                }
            }
            Action::AcceptAll => {
                let t = self.session.threshold();
                let r = self.session.accept_all_above(t);
                if let Some(n) = self.report(r) {
                    self.info(format!(
                        "accepted {n} suggestions at p_mislabel >= {t:.2} (u undoes them together)"
                    ));
                }
            }
            Action::Undo => match self.session.undo_target().map(|t| (t, self.session.undo())) {
                Some((target, Ok(true))) => {
                    self.session.select_sample(target);
                    self.info("undone");
                }
                Some((_, Err(e))) => self.error(e.to_string()),
                _ => self.info("nothing to undo"),
            },
            Action::Redo => match self.session.redo_target().map(|t| (t, self.session.redo())) {
                Some((target, Ok(true))) => {
                    self.session.select_sample(target);
                    self.info("redone");
                }
                Some((_, Err(e))) => self.error(e.to_string()),
                _ => self.info("nothing to redo"),
            },
            Action::Threshold => {
                self.popup = Some(Popup::Threshold {
                    input: format!("{:.2}", self.session.threshold()),
                })
            }
            Action::Model => {
                let model = MODELS
                    .iter()
                    .position(|m| m.name == self.model)
                    .unwrap_or(0);
                self.popup = Some(Popup::ModelPicker(Box::new(ModelPicker {
                    model,
                    options: self.options.clone(),
                    in_options: false,
                    option: 0,
                    editing: None,
                })));
            }
            Action::Refit => self.start_fit(true),
            Action::Export => self.export(false),
            Action::NextPane => {
                self.focus = match self.focus {
                    Pane::List => Pane::Detail,
                    Pane::Detail => Pane::Model,
                    Pane::Model => Pane::List,
                }
            }
            Action::Help => self.popup = Some(Popup::Help { scroll: 0 }),
            Action::Quit => {
                if self.session.has_unexported() {
                    self.popup = Some(Popup::ConfirmQuit);
                } else {
                    self.quit = true;
                }
            }
            Action::Cancel => {
                if let Some(job) = &self.job {
                    job.cancel();
                    self.info("cancelling the fit...");
                } else {
                    self.message = None;
                }
            }
        }
        self.refresh_detail();
    }

    /// Recomputes the detail of the selected sample when it changed.
    pub fn refresh_detail(&mut self) {
        if let Some(s) = self.session.selected() {
            self.detail.select(self.session.dataset(), s);
        }
    }

    pub fn export(&mut self, overwrite: bool) {
        let mut opts = ExportOptions {
            overwrite,
            model: self.session.model_name().unwrap_or(&self.model).to_string(),
            ..ExportOptions::default()
        };
        if let Some(dir) = &self.export_dir {
            let (cleaned, _) =
                crate::review::export::default_paths(&self.session.dataset().raw.path);
            if let Some(name) = cleaned.file_name() {
                opts.out = Some(dir.join(name));
            }
        }
        match self.session.export(&opts) {
            Ok(s) => self.info(format!(
                "exported {} ({} relabelled, {} dropped) and {}",
                s.cleaned.display(),
                s.relabelled,
                s.dropped,
                s.audit.display()
            )),
            Err(ReviewError::Exists(p)) => {
                self.popup = Some(Popup::ConfirmOverwrite);
                self.info(format!("{} exists", p.display()));
            }
            Err(e) => self.error(e.to_string()),
        }
    }

    // ----- popups -----

    fn handle_popup_key(&mut self, key: &crossterm::event::KeyEvent) {
        use crossterm::event::KeyCode;
        let Some(popup) = self.popup.take() else {
            return;
        };
        let code = key.code;
        let up = matches!(code, KeyCode::Up | KeyCode::Char('k'));
        let down = matches!(code, KeyCode::Down | KeyCode::Char('j'));
        let step = |i: usize, n: usize| -> usize {
            if up {
                i.saturating_sub(1)
            } else if down {
                (i + 1).min(n.saturating_sub(1))
            } else {
                i
            }
        };
        let classes = self.session.dataset().classes.clone();
        self.popup = match popup {
            Popup::Help { scroll } => {
                let max = self.help_scroll_max.get();
                let scroll = match code {
                    KeyCode::Esc | KeyCode::Char('?') | KeyCode::Char('q') | KeyCode::Enter => None,
                    KeyCode::PageDown | KeyCode::Char(' ') => Some(scroll + 10),
                    KeyCode::PageUp => Some(scroll.saturating_sub(10)),
                    KeyCode::Home | KeyCode::Char('g') => Some(0),
                    KeyCode::End | KeyCode::Char('G') => Some(max),
                    _ => Some(step(scroll, max + 1)),
                };
                scroll.map(|s| Popup::Help { scroll: s.min(max) })
            }
            Popup::Filter { selected } => {
                let entries = filter_entries(&classes);
                let n = entries.len() + 1;
                match code {
                    KeyCode::Esc => None,
                    KeyCode::Enter => {
                        if selected < entries.len() {
                            self.session.set_filter(entries[selected].1.clone());
                        } else {
                            let t = self.session.threshold();
                            self.session.set_filter(Filter {
                                min_p_mislabel: Some(t),
                                ..Filter::default()
                            });
                        }
                        self.session.cursor_top();
                        None
                    }
                    _ => Some(Popup::Filter {
                        selected: step(selected, n),
                    }),
                }
            }
            Popup::ClassPicker { selected } => match (code, self.session.selected()) {
                (KeyCode::Esc, _) | (_, None) => None,
                (KeyCode::Enter, Some(s)) => {
                    let order = self.session.classes_by_posterior(s);
                    if let Some(&c) = order.get(selected) {
                        let r = self.session.relabel(s, c);
                        if self.report(r).is_some() {
                            self.session.move_cursor(1);
                        }
                    }
                    None
                }
                _ => Some(Popup::ClassPicker {
                    selected: step(selected, classes.len()),
                }),
            },
            Popup::Threshold { mut input } => match code {
                KeyCode::Esc => None,
                KeyCode::Enter => match input.trim().parse::<f64>() {
                    Ok(t) if (0.0..=1.0).contains(&t) => {
                        self.session.set_threshold(t);
                        self.info(format!("threshold {t:.2}"));
                        None
                    }
                    _ => {
                        self.error(format!("\"{input}\" is not a number between 0 and 1"));
                        Some(Popup::Threshold { input })
                    }
                },
                _ => {
                    type_into(&mut input, code);
                    Some(Popup::Threshold { input })
                }
            },
            Popup::Search { mut input } => match code {
                KeyCode::Esc => None,
                KeyCode::Enter => {
                    if !self.session.search(&input) {
                        self.info(format!("no id contains \"{input}\""));
                    }
                    None
                }
                _ => {
                    type_into(&mut input, code);
                    Some(Popup::Search { input })
                }
            },
            Popup::ConfirmQuit => match code {
                KeyCode::Char('y') => {
                    self.quit = true;
                    None
                }
                KeyCode::Char('e') => {
                    self.export(false);
                    self.popup.take()
                }
                _ => None,
            },
            Popup::ConfirmOverwrite => match code {
                KeyCode::Char('y') => {
                    self.export(true);
                    None
                }
                _ => {
                    self.info("export cancelled");
                    None
                }
            },
            Popup::ModelPicker(picker) => self.model_picker_key(picker, key),
        };
        self.refresh_detail();
    }

    fn model_picker_key(
        &mut self,
        mut p: Box<ModelPicker>,
        key: &crossterm::event::KeyEvent,
    ) -> Option<Popup> {
        use crossterm::event::KeyCode;
        let fields = MODELS[p.model].options;
        if let Some(mut text) = p.editing.take() {
            match key.code {
                KeyCode::Esc => {}
                KeyCode::Enter => {
                    if let Some(field) = fields.get(p.option)
                        && let Err(e) = p.options.set(field, &text)
                    {
                        self.error(e.to_string());
                        p.editing = Some(text);
                    }
                }
                other => {
                    type_into(&mut text, other);
                    p.editing = Some(text);
                }
            }
            return Some(Popup::ModelPicker(p));
        }
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') => return None,
            KeyCode::Tab
            | KeyCode::Right
            | KeyCode::Left
            | KeyCode::Char('l')
            | KeyCode::Char('h') => {
                p.in_options = !p.in_options && !fields.is_empty();
            }
            KeyCode::Up | KeyCode::Char('k') => {
                if p.in_options {
                    p.option = p.option.saturating_sub(1);
                } else {
                    p.model = p.model.saturating_sub(1);
                    p.option = 0;
                }
            }
            KeyCode::Down | KeyCode::Char('j') => {
                if p.in_options {
                    p.option = (p.option + 1).min(fields.len().saturating_sub(1));
                } else {
                    p.model = (p.model + 1).min(MODELS.len() - 1);
                    p.option = 0;
                }
            }
            KeyCode::Enter if p.in_options => {
                let current = fields
                    .get(p.option)
                    .and_then(|f| p.options.get(f))
                    .unwrap_or_default();
                p.editing = Some(current);
            }
            KeyCode::Enter | KeyCode::Char('f') => {
                let name = MODELS[p.model].name.to_string();
                let r = self.session.set_model_choice(&name, &p.options);
                if self.report(r).is_some() {
                    self.model = name;
                    self.options = p.options.clone();
                    self.start_fit(false);
                }
                return None;
            }
            _ => {}
        }
        Some(Popup::ModelPicker(p))
    }

    /// Mouse: the wheel scrolls, a click on a row selects it.
    pub fn handle_mouse(&mut self, m: &crossterm::event::MouseEvent) {
        use crossterm::event::{MouseButton, MouseEventKind};
        if self.popup.is_some() {
            return;
        }
        match m.kind {
            MouseEventKind::ScrollDown => self.session.move_cursor(3),
            MouseEventKind::ScrollUp => self.session.move_cursor(-3),
            MouseEventKind::Down(MouseButton::Left) => {
                let area = self.list_area.get();
                if m.column >= area.x
                    && m.column < area.x + area.width
                    && m.row >= area.y
                    && m.row < area.y + area.height
                {
                    let pos = self.list_offset.get() + usize::from(m.row - area.y);
                    if pos < self.session.view().len() {
                        self.session.cursor_to(pos);
                        self.focus = Pane::List;
                    }
                }
            }
            _ => {}
        }
        self.refresh_detail();
    }
}
