//! Actions and the key table. The default bindings live in
//! `assets/keymap.toml`; a user file of the same form in the config
//! directory overrides them per action. The help popup is built from this
//! same table, so it can never disagree with what the keys do.

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
    Accept,
    /// Relabel to the n-th class by posterior (1-based).
    RelabelNth(u8),
    Relabel,
    Keep,
    Drop,
    Clear,
    AcceptAll,
    Undo,
    Redo,
    Threshold,
    Model,
    Refit,
    Export,
    NextPane,
    Help,
    Quit,
    Cancel,
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
            (Action::Accept, "accept".into()),
        ];
        v.extend((1..=9).map(|n| (Action::RelabelNth(n), format!("relabel_{n}"))));
        v.extend([
            (Action::Relabel, "relabel".to_string()),
            (Action::Keep, "keep".into()),
            (Action::Drop, "drop".into()),
            (Action::Clear, "clear".into()),
            (Action::AcceptAll, "accept_all".into()),
            (Action::Undo, "undo".into()),
            (Action::Redo, "redo".into()),
            (Action::Threshold, "threshold".into()),
            (Action::Model, "model".into()),
            (Action::Refit, "refit".into()),
            (Action::Export, "export".into()),
            (Action::NextPane, "next_pane".into()),
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
            Action::Search => "search ids".into(),
            Action::NextMatch => "next match".into(),
            Action::PrevMatch => "previous match".into(),
            Action::Filter => "filter the list".into(),
            Action::Sort => "next sort order (p_mislabel, disagreement, …)".into(),
            Action::SortBack => "previous sort order".into(),
            Action::Accept => "accept the suggested label".into(),
            Action::RelabelNth(n) => format!("relabel to class #{n} of the detail pane"),
            Action::Relabel => "relabel through a class picker".into(),
            Action::Keep => "keep the given label (again: clear)".into(),
            Action::Drop => "drop the sample (again: clear)".into(),
            Action::Clear => "clear the decision".into(),
            Action::AcceptAll => "accept all suggestions above the threshold".into(),
            Action::Undo => "undo".into(),
            Action::Redo => "redo".into(),
            Action::Threshold => "set the flag threshold".into(),
            Action::Model => "choose the model and its options".into(),
            Action::Refit => "refit with the current decisions".into(),
            Action::Export => "export the cleaned file and audit".into(),
            Action::NextPane => "next pane".into(),
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

/// Key -> action, and action -> keys for the help.
#[derive(Clone, Debug)]
pub struct KeyMap {
    by_key: BTreeMap<Key, Action>,
    by_action: BTreeMap<Action, Vec<Key>>,
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

fn parse_table(text: &str) -> Result<BTreeMap<String, Vec<String>>, KeyMapError> {
    toml::from_str(text).map_err(|e| KeyMapError::Syntax(e.to_string()))
}

impl KeyMap {
    /// The default table, with `user` (a keymap file's text) overriding the
    /// actions it names.
    pub fn load(user: Option<&str>) -> Result<KeyMap, KeyMapError> {
        let names: BTreeMap<String, Action> =
            Action::all().into_iter().map(|(a, n)| (n, a)).collect();
        let read = |text: &str| -> Result<Vec<(Action, Vec<Key>)>, KeyMapError> {
            parse_table(text)?
                .into_iter()
                .map(|(name, keys)| {
                    let action = *names
                        .get(&name)
                        .ok_or_else(|| KeyMapError::UnknownAction(name.clone()))?;
                    let keys = keys
                        .iter()
                        .map(|k| Key::parse(k).ok_or_else(|| KeyMapError::UnknownKey(k.clone())))
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok((action, keys))
                })
                .collect()
        };
        let defaults = read(DEFAULT_KEYMAP)?;
        let user = match user {
            Some(u) => read(u)?,
            None => Vec::new(),
        };
        let overridden: Vec<Action> = user.iter().map(|(a, _)| *a).collect();
        // Defaults for the actions the user left alone, then the user's
        // bindings, which win a key both claim.
        let mut by_key = BTreeMap::new();
        for (action, keys) in defaults
            .iter()
            .filter(|(a, _)| !overridden.contains(a))
            .chain(&user)
        {
            for k in keys {
                by_key.insert(*k, *action);
            }
        }
        let mut by_action: BTreeMap<Action, Vec<Key>> = BTreeMap::new();
        for (k, a) in &by_key {
            by_action.entry(*a).or_default().push(*k);
        }
        Ok(KeyMap { by_key, by_action })
    }

    /// The default table plus the user's file in the config directory, if
    /// any. A broken user file is reported and the defaults used.
    pub fn from_config_dir() -> (KeyMap, Option<String>) {
        let user = directories::ProjectDirs::from("", "", "relabel")
            .map(|d| d.config_dir().join("keymap.toml"))
            .and_then(|p| std::fs::read_to_string(p).ok());
        match KeyMap::load(user.as_deref()) {
            Ok(k) => (k, None),
            Err(e) => (
                KeyMap::load(None).unwrap_or_else(|_| KeyMap::empty()),
                Some(e.to_string()),
            ),
        }
    }

    fn empty() -> KeyMap {
        KeyMap {
            by_key: BTreeMap::new(),
            by_action: BTreeMap::new(),
        }
    }

    pub fn action(&self, e: &KeyEvent) -> Option<Action> {
        let key = Key::from_event(e)?;
        self.by_key.get(&key).copied()
    }

    /// The keys of an action, for help and hints (e.g. "j Down").
    pub fn keys_of(&self, a: Action) -> String {
        self.by_action
            .get(&a)
            .map(|ks| ks.iter().map(Key::label).collect::<Vec<_>>().join(" "))
            .unwrap_or_default()
    }

    /// (keys, description) for every bound action, in help order; the nine
    /// relabel-to-class-n actions share one line.
    pub fn help_lines(&self) -> Vec<(String, String)> {
        let mut lines = Vec::new();
        let mut nth_keys = Vec::new();
        for (a, _) in Action::all() {
            if !self.by_action.contains_key(&a) {
                continue;
            }
            if let Action::RelabelNth(_) = a {
                nth_keys.push(self.keys_of(a));
                if nth_keys.len() == 9 {
                    lines.push((
                        nth_keys.join(" "),
                        "relabel to that class of the detail pane".to_string(),
                    ));
                }
                continue;
            }
            lines.push((self.keys_of(a), a.describe()));
        }
        if !nth_keys.is_empty() && nth_keys.len() < 9 {
            lines.push((
                nth_keys.join(" "),
                "relabel to that class of the detail pane".into(),
            ));
        }
        lines
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
}
