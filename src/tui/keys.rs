//! Actions and the key tables. The default bindings live in
//! `assets/keymap.toml`: the main screen's actions at the top level, the
//! popups' in its `[popup]` table. A user file of the same form in the
//! config directory overrides them per action. The help popup and every
//! hint are built from these tables, so they never disagree with the keys.

use std::collections::BTreeMap;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

pub const DEFAULT_KEYMAP: &str = include_str!("../../assets/keymap.toml");

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    Down,
    Up,
    Top,
    Bottom,
    PageDown,
    PageUp,
    Search,
    NextMatch,
    PrevMatch,
    Filter,
    Sort,
    SortBack,
    ReverseSort,
    Accept,
    /// Relabel to the n-th class by posterior (1-based).
    RelabelNth(u8),
    Relabel,
    Keep,
    Drop,
    Clear,
    Comment,
    AcceptAll,
    Undo,
    Redo,
    Threshold,
    Model,
    Refit,
    Export,
    NextPane,
    Notes,
    Record,
    Help,
    Quit,
    Cancel,
}

/// What a key does inside a popup. Each popup reads the ones it needs;
/// text fields take every other key as typing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PopupAction {
    Confirm,
    Cancel,
    Close,
    Up,
    Down,
    Top,
    Bottom,
    PageUp,
    PageDown,
    SwitchFocus,
    Fit,
    Yes,
    Export,
    DeleteChar,
}

/// An action a key table can name.
pub trait Bindable: Copy + Ord {
    /// Every action in help order, with its name in the keymap file.
    fn all() -> Vec<(Self, String)>;
    fn describe(self) -> String;
}

impl Bindable for Action {
    fn all() -> Vec<(Action, String)> {
        Action::all()
    }
    fn describe(self) -> String {
        Action::describe(self)
    }
}

impl PopupAction {
    pub fn all() -> Vec<(PopupAction, String)> {
        use PopupAction as P;
        [
            (P::Confirm, "confirm"),
            (P::Cancel, "cancel"),
            (P::Close, "close"),
            (P::Up, "up"),
            (P::Down, "down"),
            (P::Top, "top"),
            (P::Bottom, "bottom"),
            (P::PageUp, "page_up"),
            (P::PageDown, "page_down"),
            (P::SwitchFocus, "switch_focus"),
            (P::Fit, "fit"),
            (P::Yes, "yes"),
            (P::Export, "export"),
            (P::DeleteChar, "delete_char"),
        ]
        .into_iter()
        .map(|(a, n)| (a, n.to_string()))
        .collect()
    }

    pub fn describe(self) -> String {
        match self {
            PopupAction::Confirm => "apply / choose (model picker: edit the option)",
            PopupAction::Cancel => "close without changing anything",
            PopupAction::Close => "close a menu or the help",
            PopupAction::Up => "previous entry",
            PopupAction::Down => "next entry",
            PopupAction::Top => "first entry",
            PopupAction::Bottom => "last entry",
            PopupAction::PageUp => "page up",
            PopupAction::PageDown => "page down",
            PopupAction::SwitchFocus => "model picker: models <-> options",
            PopupAction::Fit => "model picker: fit the highlighted model",
            PopupAction::Yes => "quit / replace when asked",
            PopupAction::Export => "export first when asked to quit",
            PopupAction::DeleteChar => "delete a typed character",
        }
        .to_string()
    }
}

impl Bindable for PopupAction {
    fn all() -> Vec<(PopupAction, String)> {
        PopupAction::all()
    }
    fn describe(self) -> String {
        PopupAction::describe(self)
    }
}

/// The digits of the relabel actions (`relabel_1` .. `relabel_9`, then
/// `relabel_0`: 0 after 9, as on the keyboard).
pub const RELABEL_DIGITS: [u8; 10] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 0];

/// The keys of `RelabelNth(d)` for `digits` in one hint: "1-9" or "0-9"
/// when each is its own digit (the default), else the keys one by one.
pub fn digit_range(digits: &[u8], keys: &[String]) -> String {
    let own =
        digits.len() == keys.len() && digits.iter().zip(keys).all(|(d, k)| *k == d.to_string());
    match (own, digits.iter().min(), digits.iter().max()) {
        (true, Some(lo), Some(hi)) => format!("{lo}-{hi}"),
        _ => keys.join(" "),
    }
}

impl Action {
    /// Every action in help order, with its name in the keymap file.
    pub fn all() -> Vec<(Action, String)> {
        let mut v = vec![
            (Action::Down, "down".to_string()),
            (Action::Up, "up".into()),
            (Action::Top, "top".into()),
            (Action::Bottom, "bottom".into()),
            (Action::PageDown, "page_down".into()),
            (Action::PageUp, "page_up".into()),
            (Action::Search, "search".into()),
            (Action::NextMatch, "next_match".into()),
            (Action::PrevMatch, "prev_match".into()),
            (Action::Filter, "filter".into()),
            (Action::Sort, "sort".into()),
            (Action::SortBack, "sort_back".into()),
            (Action::ReverseSort, "reverse_sort".into()),
            (Action::Accept, "accept".into()),
        ];
        v.extend(
            RELABEL_DIGITS
                .iter()
                .map(|&n| (Action::RelabelNth(n), format!("relabel_{n}"))),
        );
        v.extend([
            (Action::Relabel, "relabel".to_string()),
            (Action::Keep, "keep".into()),
            (Action::Drop, "drop".into()),
            (Action::Clear, "clear".into()),
            (Action::Comment, "comment".into()),
            (Action::AcceptAll, "accept_all".into()),
            (Action::Undo, "undo".into()),
            (Action::Redo, "redo".into()),
            (Action::Threshold, "threshold".into()),
            (Action::Model, "model".into()),
            (Action::Refit, "refit".into()),
            (Action::Export, "export".into()),
            (Action::NextPane, "next_pane".into()),
            (Action::Notes, "notes".into()),
            (Action::Record, "record".into()),
            (Action::Help, "help".into()),
            (Action::Quit, "quit".into()),
            (Action::Cancel, "cancel".into()),
        ]);
        v
    }

    pub fn describe(self) -> String {
        match self {
            Action::Down => "next sample".into(),
            Action::Up => "previous sample".into(),
            Action::Top => "first sample".into(),
            Action::Bottom => "last sample".into(),
            Action::PageDown => "page down".into(),
            Action::PageUp => "page up".into(),
            Action::Search => "search ids, labels, comments and fields".into(),
            Action::NextMatch => "next match".into(),
            Action::PrevMatch => "previous match".into(),
            Action::Filter => "filter the list".into(),
            Action::Sort => "next sort order (p_mislabel, model columns…)".into(),
            Action::SortBack => "previous sort order".into(),
            Action::ReverseSort => "reverse the sort order".into(),
            Action::Accept => "accept the suggested label (keep if the same)".into(),
            Action::RelabelNth(n) => format!("relabel to the class keyed {n} in the detail pane"),
            Action::Relabel => "relabel through a class picker".into(),
            Action::Keep => "keep the given label (again: clear)".into(),
            Action::Drop => "drop the sample (again: clear)".into(),
            Action::Clear => "clear the decision".into(),
            Action::Comment => "comment on the sample (goes in the audit)".into(),
            Action::AcceptAll => "accept all suggestions above the threshold".into(),
            Action::Undo => "undo".into(),
            Action::Redo => "redo".into(),
            Action::Threshold => "set the flag threshold".into(),
            Action::Model => "choose the model and its options".into(),
            Action::Refit => "refit with the current decisions".into(),
            Action::Export => "export the cleaned file and audit".into(),
            Action::NextPane => "next pane".into(),
            Action::Notes => "notes on the table and the fit, in full".into(),
            Action::Record => "every field of the sample".into(),
            Action::Help => "this help".into(),
            Action::Quit => "quit".into(),
            Action::Cancel => "cancel the fit / close".into(),
        }
    }
}

/// A key with its modifiers, as written in the keymap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    pub code: KeyCodeKey,
    pub ctrl: bool,
}

/// The key codes the keymap can name (crossterm's `KeyCode` is not `Ord`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyCodeKey {
    Char(char),
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Home,
    End,
    Tab,
    Enter,
    Esc,
    Backspace,
}

impl Key {
    pub fn parse(text: &str) -> Option<Key> {
        let (ctrl, rest) = match text
            .strip_prefix("Ctrl-")
            .or_else(|| text.strip_prefix("C-"))
        {
            Some(r) => (true, r),
            None => (false, text),
        };
        let code = match rest {
            "Up" => KeyCodeKey::Up,
            "Down" => KeyCodeKey::Down,
            "Left" => KeyCodeKey::Left,
            "Right" => KeyCodeKey::Right,
            "PageUp" => KeyCodeKey::PageUp,
            "PageDown" => KeyCodeKey::PageDown,
            "Home" => KeyCodeKey::Home,
            "End" => KeyCodeKey::End,
            "Tab" => KeyCodeKey::Tab,
            "Enter" => KeyCodeKey::Enter,
            "Esc" => KeyCodeKey::Esc,
            "Space" => KeyCodeKey::Char(' '),
            "Backspace" => KeyCodeKey::Backspace,
            s if s.chars().count() == 1 => KeyCodeKey::Char(s.chars().next()?),
            _ => return None,
        };
        Some(Key { code, ctrl })
    }

    pub fn from_event(e: &KeyEvent) -> Option<Key> {
        let code = match e.code {
            KeyCode::Char(c) => KeyCodeKey::Char(c),
            KeyCode::Up => KeyCodeKey::Up,
            KeyCode::Down => KeyCodeKey::Down,
            KeyCode::Left => KeyCodeKey::Left,
            KeyCode::Right => KeyCodeKey::Right,
            KeyCode::PageUp => KeyCodeKey::PageUp,
            KeyCode::PageDown => KeyCodeKey::PageDown,
            KeyCode::Home => KeyCodeKey::Home,
            KeyCode::End => KeyCodeKey::End,
            KeyCode::Tab => KeyCodeKey::Tab,
            KeyCode::Enter => KeyCodeKey::Enter,
            KeyCode::Esc => KeyCodeKey::Esc,
            KeyCode::Backspace => KeyCodeKey::Backspace,
            _ => return None,
        };
        Some(Key {
            code,
            ctrl: e.modifiers.contains(KeyModifiers::CONTROL),
        })
    }

    pub fn label(&self) -> String {
        let base = match self.code {
            KeyCodeKey::Char(' ') => "Space".to_string(),
            KeyCodeKey::Char(c) => c.to_string(),
            other => format!("{other:?}"),
        };
        if self.ctrl {
            format!("Ctrl-{base}")
        } else {
            base
        }
    }
}

/// Key -> action, and action -> keys for the help, for one kind of action.
#[derive(Clone, Debug)]
pub struct KeyTable<A> {
    by_key: BTreeMap<Key, A>,
    by_action: BTreeMap<A, Vec<Key>>,
    /// Each action's keys as the file lists them: hints show the first.
    declared: BTreeMap<A, Vec<Key>>,
}

impl<A: Bindable> KeyTable<A> {
    fn new() -> KeyTable<A> {
        KeyTable {
            by_key: BTreeMap::new(),
            by_action: BTreeMap::new(),
            declared: BTreeMap::new(),
        }
    }

    /// Defaults for the actions the user left alone, then the user's
    /// bindings, which win a key both claim.
    fn build(defaults: Vec<(A, Vec<Key>)>, user: Vec<(A, Vec<Key>)>) -> KeyTable<A> {
        let overridden: Vec<A> = user.iter().map(|(a, _)| *a).collect();
        let mut table = KeyTable::new();
        for (action, keys) in defaults
            .into_iter()
            .filter(|(a, _)| !overridden.contains(a))
            .chain(user)
        {
            for k in &keys {
                table.by_key.insert(*k, action);
            }
            table.declared.insert(action, keys);
        }
        for (k, a) in &table.by_key {
            table.by_action.entry(*a).or_default().push(*k);
        }
        table
    }

    fn action(&self, e: &KeyEvent) -> Option<A> {
        self.by_key.get(&Key::from_event(e)?).copied()
    }

    fn keys_of(&self, a: A) -> String {
        self.by_action
            .get(&a)
            .map(|ks| ks.iter().map(Key::label).collect::<Vec<_>>().join(" "))
            .unwrap_or_default()
    }

    /// The first key the file lists for `a` that still does `a`.
    fn hint(&self, a: A) -> String {
        self.declared
            .get(&a)
            .into_iter()
            .flatten()
            .find(|k| self.by_key.get(k) == Some(&a))
            .map(Key::label)
            .unwrap_or_else(|| "(unbound)".to_string())
    }

    fn help_lines(&self) -> Vec<(String, String)> {
        A::all()
            .into_iter()
            .filter(|(a, _)| self.by_action.contains_key(a))
            .map(|(a, _)| (self.keys_of(a), a.describe()))
            .collect()
    }
}

/// The main screen's table and the popups' table.
#[derive(Clone, Debug)]
pub struct KeyMap {
    main: KeyTable<Action>,
    popup: KeyTable<PopupAction>,
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum KeyMapError {
    #[error("keymap: {0}")]
    Syntax(String),
    #[error("keymap: unknown action \"{0}\"")]
    UnknownAction(String),
    #[error("keymap: cannot read the key \"{0}\" (use a character, a key name or Ctrl-x)")]
    UnknownKey(String),
}

/// A keymap file's two tables, as (action name, key names).
type RawTables = (Vec<(String, Vec<String>)>, Vec<(String, Vec<String>)>);

fn key_names(name: &str, value: &toml::Value) -> Result<Vec<String>, KeyMapError> {
    let bad = || {
        KeyMapError::Syntax(format!(
            "{name} must be a list of keys, e.g. [\"j\", \"Down\"]"
        ))
    };
    value
        .as_array()
        .ok_or_else(bad)?
        .iter()
        .map(|k| k.as_str().map(str::to_string).ok_or_else(bad))
        .collect()
}

fn parse_tables(text: &str) -> Result<RawTables, KeyMapError> {
    let table: toml::Table =
        toml::from_str(text).map_err(|e| KeyMapError::Syntax(e.to_string()))?;
    let (mut main, mut popup) = (Vec::new(), Vec::new());
    for (name, value) in &table {
        match (name.as_str(), value.as_table()) {
            ("popup", Some(inner)) => {
                for (name, value) in inner {
                    popup.push((name.clone(), key_names(&format!("popup.{name}"), value)?));
                }
            }
            _ => main.push((name.clone(), key_names(name, value)?)),
        }
    }
    Ok((main, popup))
}

/// Keys as a TOML list, to write a checked entry back.
fn toml_list(keys: &[String]) -> String {
    let quoted: Vec<String> = keys
        .iter()
        .map(|k| toml::Value::String(k.clone()).to_string())
        .collect();
    format!("[{}]", quoted.join(", "))
}

fn resolve<A: Bindable>(
    raw: Vec<(String, Vec<String>)>,
    prefix: &str,
) -> Result<Vec<(A, Vec<Key>)>, KeyMapError> {
    let names: BTreeMap<String, A> = A::all().into_iter().map(|(a, n)| (n, a)).collect();
    raw.into_iter()
        .map(|(name, keys)| {
            let action = *names
                .get(&name)
                .ok_or_else(|| KeyMapError::UnknownAction(format!("{prefix}{name}")))?;
            let keys = keys
                .iter()
                .map(|k| Key::parse(k).ok_or_else(|| KeyMapError::UnknownKey(k.clone())))
                .collect::<Result<Vec<_>, _>>()?;
            Ok((action, keys))
        })
        .collect()
}

impl KeyMap {
    /// The default tables, with `user` (a keymap file's text) overriding the
    /// actions it names.
    pub fn load(user: Option<&str>) -> Result<KeyMap, KeyMapError> {
        let (main, popup) = parse_tables(DEFAULT_KEYMAP)?;
        let (user_main, user_popup) = match user {
            Some(u) => parse_tables(u)?,
            None => (Vec::new(), Vec::new()),
        };
        Ok(KeyMap {
            main: KeyTable::build(resolve(main, "")?, resolve(user_main, "")?),
            popup: KeyTable::build(resolve(popup, "popup.")?, resolve(user_popup, "popup.")?),
        })
    }

    /// The default tables with every entry of `user` that reads: a broken
    /// entry is left out and reported, and the others still apply (one
    /// misspelt action does not cost a curator all their keys).
    pub fn load_leniently(user: &str) -> (KeyMap, Vec<KeyMapError>) {
        let mut errors = Vec::new();
        let (user_main, user_popup) = match parse_tables(user) {
            Ok(tables) => tables,
            Err(e) => {
                errors.push(e);
                (Vec::new(), Vec::new())
            }
        };
        let mut keep = |raw: Vec<(String, Vec<String>)>, prefix: &str, popup: bool| {
            raw.into_iter()
                .filter(|entry| {
                    let checked = if popup {
                        resolve::<PopupAction>(vec![entry.clone()], prefix).map(|_| ())
                    } else {
                        resolve::<Action>(vec![entry.clone()], prefix).map(|_| ())
                    };
                    checked.map_err(|e| errors.push(e)).is_ok()
                })
                .map(|(name, keys)| format!("{name} = {}", toml_list(&keys)))
                .collect::<Vec<_>>()
        };
        let main = keep(user_main, "", false);
        let popup = keep(user_popup, "popup.", true);
        let text = format!("{}\n[popup]\n{}\n", main.join("\n"), popup.join("\n"));
        let map = KeyMap::load(Some(&text))
            .or_else(|_| KeyMap::load(None))
            .unwrap_or_else(|_| KeyMap::empty());
        (map, errors)
    }

    /// The default table plus the user's file in the config directory, if
    /// any, and a line for each entry of it that was left out.
    pub fn from_config_dir() -> (KeyMap, Vec<String>) {
        let path = directories::ProjectDirs::from("", "", "relabel")
            .map(|d| d.config_dir().join("keymap.toml"));
        let Some((path, user)) =
            path.and_then(|p| std::fs::read_to_string(&p).ok().map(|u| (p, u)))
        else {
            return (
                KeyMap::load(None).unwrap_or_else(|_| KeyMap::empty()),
                Vec::new(),
            );
        };
        let (map, errors) = KeyMap::load_leniently(&user);
        let said = errors
            .iter()
            .map(|e| {
                format!(
                    "{}: {} (left out; the other keys apply)",
                    path.display(),
                    e.to_string().trim_start_matches("keymap: ")
                )
            })
            .collect();
        (map, said)
    }

    fn empty() -> KeyMap {
        KeyMap {
            main: KeyTable::new(),
            popup: KeyTable::new(),
        }
    }

    /// The main screen's action of a key.
    pub fn action(&self, e: &KeyEvent) -> Option<Action> {
        self.main.action(e)
    }

    /// A popup's action of a key.
    pub fn popup_action(&self, e: &KeyEvent) -> Option<PopupAction> {
        self.popup.action(e)
    }

    /// The keys of an action, for help (e.g. "j Down").
    pub fn keys_of(&self, a: Action) -> String {
        self.main.keys_of(a)
    }

    /// The key a hint names for an action: the first one bound.
    pub fn hint(&self, a: Action) -> String {
        self.main.hint(a)
    }

    /// The key a popup's hint names for a popup action.
    pub fn popup_hint(&self, a: PopupAction) -> String {
        self.popup.hint(a)
    }

    /// (keys, description) for every bound main-screen action, in help
    /// order; the ten relabel-to-a-class actions share one line.
    pub fn help_lines(&self) -> Vec<(String, String)> {
        let nth = "relabel to that class of the detail pane";
        let mut lines = Vec::new();
        let mut nth_keys = Vec::new();
        let mut nth_digits = Vec::new();
        for (a, _) in Action::all() {
            if !self.main.by_action.contains_key(&a) {
                continue;
            }
            if let Action::RelabelNth(d) = a {
                nth_keys.push(self.keys_of(a));
                nth_digits.push(d);
                if nth_keys.len() == RELABEL_DIGITS.len() {
                    lines.push((digit_range(&nth_digits, &nth_keys), nth.to_string()));
                }
                continue;
            }
            lines.push((self.keys_of(a), a.describe()));
        }
        if !nth_keys.is_empty() && nth_keys.len() < RELABEL_DIGITS.len() {
            lines.push((nth_keys.join(" "), nth.to_string()));
        }
        lines
    }

    /// (keys, description) for every bound popup action.
    pub fn popup_help_lines(&self) -> Vec<(String, String)> {
        self.popup.help_lines()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crossterm::event::KeyEventKind;

    fn ev(code: KeyCode, m: KeyModifiers) -> KeyEvent {
        KeyEvent {
            code,
            modifiers: m,
            kind: KeyEventKind::Press,
            state: crossterm::event::KeyEventState::NONE,
        }
    }

    #[test]
    fn default_table_binds_every_action() {
        let k = KeyMap::load(None).unwrap();
        for (a, name) in Action::all() {
            assert!(!k.keys_of(a).is_empty(), "{name} has no key");
        }
        assert_eq!(
            k.action(&ev(KeyCode::Char('j'), KeyModifiers::NONE)),
            Some(Action::Down)
        );
        assert_eq!(
            k.action(&ev(KeyCode::Char('r'), KeyModifiers::CONTROL)),
            Some(Action::Redo)
        );
        assert_eq!(
            k.action(&ev(KeyCode::Char('r'), KeyModifiers::NONE)),
            Some(Action::Relabel)
        );
        assert_eq!(
            k.action(&ev(KeyCode::Char('A'), KeyModifiers::SHIFT)),
            Some(Action::AcceptAll)
        );
        assert_eq!(
            k.action(&ev(KeyCode::Char('3'), KeyModifiers::NONE)),
            Some(Action::RelabelNth(3))
        );
        assert_eq!(
            k.action(&ev(KeyCode::Char('0'), KeyModifiers::NONE)),
            Some(Action::RelabelNth(0))
        );
    }

    #[test]
    fn a_user_file_rebinds_and_the_help_follows() {
        let k = KeyMap::load(Some("accept = [\"y\"]\ndown = [\"Ctrl-n\"]\n")).unwrap();
        assert_eq!(
            k.action(&ev(KeyCode::Char('y'), KeyModifiers::NONE)),
            Some(Action::Accept)
        );
        assert_eq!(k.action(&ev(KeyCode::Char('a'), KeyModifiers::NONE)), None);
        assert_eq!(k.keys_of(Action::Down), "Ctrl-n");
        let help = k.help_lines();
        assert!(
            help.iter()
                .any(|(keys, d)| keys == "y" && d.contains("accept the suggested"))
        );
    }

    #[test]
    fn bad_user_files_are_errors() {
        assert!(matches!(
            KeyMap::load(Some("nope = [\"z\"]")),
            Err(KeyMapError::UnknownAction(_))
        ));
        assert!(matches!(
            KeyMap::load(Some("down = [\"Hyper-x\"]")),
            Err(KeyMapError::UnknownKey(_))
        ));
        assert!(matches!(
            KeyMap::load(Some("down = ")),
            Err(KeyMapError::Syntax(_))
        ));
    }

    #[test]
    fn a_broken_entry_is_reported_and_the_others_apply() {
        let (k, errors) =
            KeyMap::load_leniently("bogus = [\"z\"]\naccept = [\"y\"]\nkeep = [\"Hyper-x\"]\n");
        assert_eq!(
            errors,
            [
                KeyMapError::UnknownAction("bogus".into()),
                KeyMapError::UnknownKey("Hyper-x".into())
            ]
        );
        assert_eq!(
            k.action(&ev(KeyCode::Char('y'), KeyModifiers::NONE)),
            Some(Action::Accept)
        );
        // The broken keep entry leaves the default.
        assert_eq!(k.keys_of(Action::Keep), "Space");
        let (k, errors) = KeyMap::load_leniently("down = ");
        assert_eq!(errors.len(), 1);
        assert_eq!(k.keys_of(Action::Down), "j Down");
    }

    #[test]
    fn the_popup_table_binds_every_popup_action_and_is_overridable() {
        let k = KeyMap::load(None).unwrap();
        for (a, name) in PopupAction::all() {
            assert_ne!(k.popup_hint(a), "(unbound)", "popup.{name} has no key");
        }
        let enter = ev(KeyCode::Enter, KeyModifiers::NONE);
        assert_eq!(k.popup_action(&enter), Some(PopupAction::Confirm));
        // Hints take the first key as the file lists it, not sorted.
        assert_eq!(k.popup_hint(PopupAction::SwitchFocus), "Tab");
        let k = KeyMap::load(Some("[popup]\nconfirm = [\"z\", \"Enter\"]\n")).unwrap();
        assert_eq!(k.popup_hint(PopupAction::Confirm), "z");
        assert_eq!(k.popup_action(&enter), Some(PopupAction::Confirm));
        // The main table is untouched by a popup override and vice versa.
        assert_eq!(k.action(&ev(KeyCode::Char('z'), KeyModifiers::NONE)), None);
        assert_eq!(
            KeyMap::load(Some("[popup]\nnope = [\"z\"]")).unwrap_err(),
            KeyMapError::UnknownAction("popup.nope".into())
        );
        assert!(matches!(
            KeyMap::load(Some("down = \"j\"")),
            Err(KeyMapError::Syntax(_))
        ));
    }
}
