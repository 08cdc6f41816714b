#![allow(clippy::unwrap_used)]

use std::path::Path;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers};
use nalgebra::DMatrix;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::app::{App, Pane, Popup};
use super::keys::KeyMap;
use crate::dataset::{Dataset, LoadOptions, load, load_bytes};
use crate::models::ModelOptions;
use crate::review::{ResumeInfo, Session};

const DEMO: &str = include_str!("../../assets/demo.csv");

fn demo() -> Dataset {
    load_bytes(
        Path::new("iris_noisy.csv"),
        DEMO.as_bytes().to_vec(),
        &LoadOptions::default(),
    )
    .unwrap()
}

/// The demo with class or column names replaced (`from`, `to`).
fn renamed(names: &[(&str, &str)]) -> Dataset {
    let csv = names
        .iter()
        .fold(DEMO.to_string(), |csv, (from, to)| csv.replace(from, to));
    load_bytes(
        Path::new("renamed.csv"),
        csv.into_bytes(),
        &LoadOptions::default(),
    )
    .unwrap()
}

fn app_with(ds: Dataset, store: Option<&Path>) -> App {
    let (session, resume) = Session::open(ds, store).unwrap();
    App::with_keys(
        session,
        &resume,
        "rnda",
        ModelOptions::default(),
        KeyMap::load(None).unwrap(),
    )
}

fn fitted(ds: Dataset) -> App {
    let mut app = app_with(ds, None);
    app.start_fit(false);
    app.wait_for_fit();
    app.refresh_detail();
    app
}

fn key(c: char) -> KeyEvent {
    let modifiers = if c.is_ascii_uppercase() {
        KeyModifiers::SHIFT
    } else {
        KeyModifiers::NONE
    };
    KeyEvent {
        code: KeyCode::Char(c),
        modifiers,
        kind: KeyEventKind::Press,
        state: KeyEventState::NONE,
    }
}

fn code(c: KeyCode) -> KeyEvent {
    KeyEvent {
        code: c,
        modifiers: KeyModifiers::NONE,
        kind: KeyEventKind::Press,
        state: KeyEventState::NONE,
    }
}

fn press(app: &mut App, keys: &str) {
    for c in keys.chars() {
        app.handle_key(&key(c));
    }
}

fn render(app: &App, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| f.render_widget(app, f.area())).unwrap();
    t
}

fn screen(app: &App, w: u16, h: u16) -> String {
    let t = render(app, w, h);
    let buf = t.backend().buffer().clone();
    (0..h)
        .map(|y| {
            (0..w)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn main_screen_wide_and_narrow() {
    let app = fitted(demo());
    insta::assert_snapshot!("main_160x48", screen(&app, 160, 48));
    insta::assert_snapshot!("main_80x24", screen(&app, 80, 24));
}

#[test]
fn detail_and_model_panes_on_a_narrow_screen() {
    let mut app = fitted(demo());
    app.handle_key(&code(KeyCode::Tab));
    assert_eq!(app.focus, Pane::Detail);
    insta::assert_snapshot!("detail_80x24", screen(&app, 80, 24));
    app.handle_key(&code(KeyCode::Tab));
    assert_eq!(app.focus, Pane::Model);
    insta::assert_snapshot!("model_80x24", screen(&app, 80, 24));
    insta::assert_snapshot!("model_160x48", screen(&app, 160, 48));
    let wide = screen(&app, 160, 48);
    assert!(
        wide.contains("gamma P(given | true)") && wide.contains("rows: true class, cols: given"),
        "{wide}"
    );
}

#[test]
fn every_popup_renders() {
    let mut app = fitted(demo());
    for (keys, name) in [
        ("?", "help"),
        ("i", "notes"),
        ("f", "filter"),
        ("r", "class_picker"),
        ("m", "model_picker"),
        ("t", "threshold"),
        ("/", "search"),
        ("c", "comment"),
    ] {
        press(&mut app, keys);
        assert!(app.popup.is_some(), "{keys} opened nothing");
        insta::assert_snapshot!(format!("popup_{name}_80x24"), screen(&app, 80, 24));
        insta::assert_snapshot!(format!("popup_{name}_160x48"), screen(&app, 160, 48));
        app.handle_key(&code(KeyCode::Esc));
        assert_eq!(app.popup, None, "{name} did not close");
    }
    press(&mut app, "a");
    press(&mut app, "q");
    assert_eq!(app.popup, Some(Popup::ConfirmQuit));
    insta::assert_snapshot!("popup_confirm_quit_80x24", screen(&app, 80, 24));
    insta::assert_snapshot!("popup_confirm_quit_160x48", screen(&app, 160, 48));
    app.handle_key(&code(KeyCode::Esc));
    assert!(!app.quit);
}

#[test]
fn the_opening_line_is_plain_and_the_notes_say_the_rest() {
    // A constant column (left out, with a note) and a label written two ways.
    let mut csv = String::from("id,a,c,label\n");
    for i in 0..40 {
        let (label, a) = if i % 2 == 0 { ("x", i) } else { ("y", i + 40) };
        let label = if i == 5 { "Y" } else { label };
        csv.push_str(&format!("s{i},{a},5,{label}\n"));
    }
    let ds = load_bytes(
        Path::new("notes.csv"),
        csv.into_bytes(),
        &LoadOptions::default(),
    )
    .unwrap();
    let mut app = fitted(ds);
    // One plain line, the details behind the notes key.
    let first = screen(&app, 120, 40);
    assert!(
        first.contains("rnda found about")
            && first.contains("i for how (and 3 notes on the table)"),
        "{first}"
    );
    assert!(!first.contains("column c holds one value"), "{first}");
    press(&mut app, "i");
    let notes = screen(&app, 120, 40);
    for told in [
        "the table",
        "column c holds one value",
        "\"y\" (19) and \"Y\" (1)",
        "the fit: rnda",
        "converged after",
    ] {
        assert!(notes.contains(told), "notes lack {told}:\n{notes}");
    }
    // On a short screen they scroll, and the title says which lines show.
    let short = screen(&app, 120, 12);
    assert!(short.contains("notes 1-10 of"), "{short}");
    press(&mut app, "j");
    let short = screen(&app, 120, 12);
    assert!(short.contains("notes 2-11 of"), "{short}");
    // The key that opened them closes them.
    press(&mut app, "i");
    assert_eq!(app.popup, None);
}

#[test]
fn a_comment_is_typed_saved_shown_and_journaled() {
    let store = tempfile::tempdir().unwrap();
    let mut app = app_with(demo(), Some(store.path()));
    app.start_fit(false);
    app.wait_for_fit();
    app.refresh_detail();
    let sample = app.session.selected().unwrap();
    let id = app.session.dataset().ids[sample].clone();
    press(&mut app, "c");
    // Keys that act on the list (q quits, j moves, d drops) are typing here.
    press(&mut app, "ask the lab, do not drop yet");
    let typing = screen(&app, 100, 30);
    assert!(typing.contains(&format!("comment on {id}")), "{typing}");
    assert!(typing.contains("ask the lab, do not drop yet▏"), "{typing}");
    app.handle_key(&code(KeyCode::Enter));
    assert_eq!(app.popup, None);
    assert!(!app.quit);
    assert_eq!(app.session.decision(sample), None, "nothing decided");
    assert_eq!(
        app.session.comment_of(sample),
        Some("ask the lab, do not drop yet")
    );
    let saved = screen(&app, 160, 48);
    assert!(saved.contains(&format!("comment on {id} saved")), "{saved}");
    assert!(
        saved.contains("✎ ask the lab, do not drop yet"),
        "detail:\n{saved}"
    );
    let row = saved.lines().find(|l| l.starts_with("│1 ")).unwrap();
    assert!(row.contains('✎'), "the list marks it: {row}");
    assert!(
        saved.contains("[+]"),
        "a comment is unexported work: {saved}"
    );
    // A long comment: two lines in the detail pane, whole in the prompt.
    let long = "word ".repeat(60);
    press(&mut app, "c");
    app.handle_paste(&long);
    let prompt = screen(&app, 100, 30);
    assert_eq!(prompt.matches("word").count(), 60, "{prompt}");
    app.handle_key(&code(KeyCode::Esc));
    assert_eq!(
        app.session.comment_of(sample),
        Some("ask the lab, do not drop yet"),
        "Esc keeps the comment as it was"
    );
    app.session.comment(sample, &long).unwrap();
    app.refresh_detail();
    let detail = screen(&app, 160, 48);
    let shown: Vec<&str> = detail.lines().filter(|l| l.contains("word word")).collect();
    assert_eq!(shown.len(), 2, "{detail}");
    assert!(shown[1].contains('…'), "{detail}");
    // Reopened, the comment is back (it was journaled), and the prompt
    // starts from it; emptying it removes it.
    drop(app);
    let mut app = app_with(demo(), Some(store.path()));
    assert_eq!(app.session.comment_of(sample), Some(long.trim()));
    while app.session.selected() != Some(sample) {
        press(&mut app, "j");
    }
    press(&mut app, "c");
    for _ in 0..long.trim().len() {
        app.handle_key(&code(KeyCode::Backspace));
    }
    let emptied = screen(&app, 100, 30);
    assert!(emptied.contains(&format!("comment on {id}")), "{emptied}");
    assert!(!emptied.contains("word"), "{emptied}");
    app.handle_key(&code(KeyCode::Enter));
    assert_eq!(app.session.comment_of(sample), None);
    assert!(screen(&app, 160, 48).contains(&format!("comment on {id} removed")));
}

#[test]
fn pasted_text_is_typed_into_a_field_and_never_read_as_keys() {
    let mut app = fitted(demo());
    let sample = app.session.selected().unwrap();
    // On the list, a paste would be a string of commands: d drops, A
    // accepts every suggestion. It is refused, and said.
    app.handle_paste("dA\nq");
    assert_eq!(app.session.counts().decided, 0);
    assert!(!app.quit);
    let said = screen(&app, 120, 30);
    assert!(
        said.contains("pasted text goes into a text field"),
        "{said}"
    );
    // In the comment field it is one line of text; Enter then saves it.
    press(&mut app, "c");
    app.handle_paste("from the lab sheet:\r\nswapped at intake\n");
    assert!(app.popup.is_some(), "a pasted newline does not confirm");
    app.handle_key(&code(KeyCode::Enter));
    assert_eq!(
        app.session.comment_of(sample),
        Some("from the lab sheet: swapped at intake")
    );
    // And in the search.
    press(&mut app, "/");
    app.handle_paste("13");
    app.handle_key(&code(KeyCode::Enter));
    let found = app.session.selected().unwrap();
    assert!(app.session.dataset().ids[found].contains("13"));
}

#[test]
fn the_help_lists_what_the_key_table_binds() {
    let mut app = fitted(demo());
    press(&mut app, "?");
    // Tall enough for every line (the scrolling is tested with the notes).
    let s = screen(&app, 100, app.keys.help_lines().len() as u16 + 4);
    for (keys, description) in app.keys.help_lines() {
        assert!(s.contains(&description), "help lacks {description}");
        assert!(s.contains(&keys), "help lacks {keys}");
    }
}

#[test]
fn the_flip_table_tells_classes_with_a_common_start_apart() {
    // Wine's classes: cut from the right, all three headers read "cultiva".
    let app = fitted(renamed(&[
        ("setosa", "cultivar_1"),
        ("versicolor", "cultivar_2"),
        ("virginica", "cultivar_3"),
    ]));
    let wide = screen(&app, 160, 48);
    let header = wide
        .lines()
        .skip_while(|l| !l.contains("rows: true class, cols: given"))
        .nth(1)
        .unwrap();
    for end in ["…1", "…2", "…3"] {
        assert!(header.contains(end), "{header}");
    }
    for name in ["cultivar_1 ", "cultivar_2 ", "cultivar_3 "] {
        assert!(wide.contains(&format!("│{name}")), "{wide}");
    }
}

#[test]
fn long_class_names_are_whole_where_the_screen_has_room() {
    let long = [
        "Barolo (Piedmont) one",
        "Grignolino (Piedmont) two",
        "Barbera (Piedmont) three",
    ];
    let feature = "sepal_width_in_centimetres_as_measured";
    let app = fitted(renamed(&[
        ("setosa", long[0]),
        ("versicolor", long[1]),
        ("virginica", long[2]),
        ("sepal_width_cm", feature),
    ]));
    let wide = screen(&app, 220, 48);
    // The list's first row shows its given and suggested names whole, and
    // so does the detail pane's posterior.
    let row = wide.lines().nth(2).unwrap();
    assert_eq!(long.iter().filter(|n| row.contains(*n)).count(), 2, "{row}");
    let posterior = wide
        .lines()
        .skip_while(|l| !l.contains("posterior (keys"))
        .nth(1)
        .unwrap();
    assert!(long.iter().any(|n| posterior.contains(n)), "{posterior}");
    // And the unusual features, the sepal width among them.
    assert!(wide.contains(feature), "{wide}");
    // At 80 columns they are cut, and the table still fits.
    let narrow = screen(&app, 80, 24);
    assert!(narrow.lines().nth(2).unwrap().contains('…'), "{narrow}");
}

#[test]
fn tiny_terminals_render_without_panic() {
    let mut app = fitted(demo());
    for (w, h) in [(40, 12), (10, 4), (1, 1)] {
        let _ = screen(&app, w, h);
    }
    press(&mut app, "m");
    let _ = screen(&app, 40, 12);
}

#[test]
fn the_flipped_rows_are_on_top_after_the_fit() {
    let app = fitted(demo());
    let truth: Vec<usize> = DEMO_TRUTH
        .lines()
        .skip(1)
        .filter(|l| l.ends_with(",1"))
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect();
    let top: Vec<usize> = app.session.view()[..truth.len()].to_vec();
    let hits = top.iter().filter(|r| truth.contains(r)).count();
    assert!(hits >= 27, "{hits} of the top {} were flipped", truth.len());
}

const DEMO_TRUTH: &str = include_str!("../../sample_data/iris_noisy.truth.csv");

/// Open a sample, fit, accept the top 3, undo one, export: the cleaned file
/// equals the input except the two accepted labels.
#[test]
fn accept_three_undo_one_export() {
    let dir = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let input = dir.path().join("iris_noisy.csv");
    std::fs::write(&input, DEMO).unwrap();
    let ds = load(&input, &LoadOptions::default()).unwrap();
    let mut app = app_with(ds, Some(store.path()));
    app.start_fit(false);
    app.wait_for_fit();
    let top: Vec<usize> = app.session.view()[..3].to_vec();
    let suggested: Vec<usize> = top
        .iter()
        .map(|&i| app.session.fit().unwrap().suggested[i])
        .collect();
    press(&mut app, "aaau");
    press(&mut app, "e");
    let cleaned = dir.path().join("iris_noisy.cleaned.csv");
    let out = std::fs::read_to_string(&cleaned).unwrap();
    let ds = app.session.dataset();
    let mut expected: Vec<String> = DEMO.lines().map(String::from).collect();
    for (&i, &c) in top.iter().zip(&suggested).take(2) {
        let line = &mut expected[ds.rows[i] + 1];
        let mut fields: Vec<String> = line.split(',').map(String::from).collect();
        fields[1] = ds.classes[c].clone();
        *line = fields.join(",");
    }
    let expected = expected.join("\n") + "\n";
    assert_eq!(out, expected);
    let changed = DEMO
        .lines()
        .zip(out.lines())
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(changed, 2);
    assert!(!app.session.has_unexported());
    // A second export asks before replacing.
    press(&mut app, "e");
    assert_eq!(app.popup, Some(Popup::ConfirmOverwrite));
    press(&mut app, "y");
    assert_eq!(app.popup, None);

    // Reopening the same file shows the same decisions.
    let ds = load(&input, &LoadOptions::default()).unwrap();
    let (session, info) = Session::open(ds, Some(store.path())).unwrap();
    assert_eq!(info, ResumeInfo::Resumed { decisions: 2 });
    for (&i, &c) in top.iter().zip(&suggested).take(2) {
        assert_eq!(
            session.decision(i),
            Some(crate::review::Decision::Relabel(c))
        );
    }
    assert_eq!(session.decision(top[2]), None);
}

#[test]
fn keys_drive_the_session() {
    let mut app = fitted(demo());
    let first = app.session.selected().unwrap();
    press(&mut app, " ");
    assert_eq!(
        app.session.decision(first),
        Some(crate::review::Decision::Keep)
    );
    assert_eq!(app.session.cursor(), 1);
    press(&mut app, "d");
    let second = app.session.view()[1];
    assert_eq!(
        app.session.decision(second),
        Some(crate::review::Decision::Drop)
    );
    press(&mut app, "uu");
    assert_eq!(app.session.counts().decided, 0);
    app.handle_key(&KeyEvent {
        code: KeyCode::Char('r'),
        modifiers: KeyModifiers::CONTROL,
        kind: KeyEventKind::Press,
        state: KeyEventState::NONE,
    });
    assert_eq!(app.session.counts().decided, 1);
    press(&mut app, "gA");
    // Asked first, with how many and which classes.
    assert!(matches!(app.popup, Some(Popup::ConfirmAcceptAll(_))));
    let asked = screen(&app, 100, 30);
    assert!(
        asked.contains("accept all?") && asked.contains(" → "),
        "{asked}"
    );
    press(&mut app, "y");
    let flagged = app.session.counts().flagged;
    assert!(app.session.counts().relabelled > 0 && app.session.counts().relabelled <= flagged);
    press(&mut app, "u");
    assert_eq!(app.session.counts().relabelled, 0);
    // 2 relabels to the second most likely class.
    press(&mut app, "g");
    let s = app.session.selected().unwrap();
    let second_class = app.session.classes_by_posterior(s)[1];
    press(&mut app, "2");
    assert_eq!(
        app.session.decision(s),
        Some(crate::review::Decision::Relabel(second_class))
            .filter(|_| second_class != app.session.dataset().labels[s])
            .or(Some(crate::review::Decision::Keep))
    );
    // Threshold and search through their popups.
    press(&mut app, "t");
    for _ in 0..4 {
        app.handle_key(&code(KeyCode::Backspace));
    }
    press(&mut app, "0.9");
    app.handle_key(&code(KeyCode::Enter));
    assert_eq!(app.session.threshold(), 0.9);
    press(&mut app, "/");
    press(&mut app, "150");
    app.handle_key(&code(KeyCode::Enter));
    let sel = app.session.selected().unwrap();
    assert_eq!(app.session.dataset().ids[sel], "150");
    press(&mut app, "s");
    assert_eq!(app.session.sort_key().name(), "gamma");
}

#[test]
fn the_model_picker_edits_options_and_refits() {
    let mut app = fitted(demo());
    press(&mut app, "m");
    // nda is the second model.
    press(&mut app, "j");
    app.handle_key(&code(KeyCode::Tab));
    app.handle_key(&code(KeyCode::Enter));
    press(&mut app, "diag");
    app.handle_key(&code(KeyCode::Enter));
    app.handle_key(&code(KeyCode::Tab));
    app.handle_key(&code(KeyCode::Enter));
    assert_eq!(app.popup, None);
    assert!(app.fitting());
    app.wait_for_fit();
    assert_eq!(app.session.model_name(), Some("nda"));
    assert_eq!(
        app.options.covariance,
        crate::models::CovarianceFamily::Diag
    );
    assert_eq!(app.session.model_choice().unwrap().0, "nda");
}

#[test]
fn the_model_picker_goes_back_to_auto() {
    // Fitted with rnda by name: the picker opens on rnda, auto is above it.
    let mut app = fitted(demo());
    press(&mut app, "m");
    let s = screen(&app, 100, 40);
    assert!(s.contains("▶ rnda"), "{s}");
    press(&mut app, "k");
    assert!(screen(&app, 100, 40).contains("▶ auto"));
    app.handle_key(&code(KeyCode::Enter));
    app.wait_for_fit();
    assert_eq!(app.session.model_choice().unwrap().0, "auto");
    assert!(app.session.fit().unwrap().extra.selection.is_some());
    // Reopened, it is on auto again.
    press(&mut app, "m");
    assert!(screen(&app, 100, 40).contains("▶ auto"));
}

#[test]
fn a_refit_leaves_dropped_samples_unscored() {
    let mut app = fitted(demo());
    let first = app.session.selected().unwrap();
    press(&mut app, "d");
    press(&mut app, "R");
    app.wait_for_fit();
    assert!(app.session.fit().unwrap().p_mislabel[first].is_nan());
    assert_eq!(*app.session.view().last().unwrap(), first);
}

#[test]
fn a_failing_fit_shows_its_error_and_keeps_the_session() {
    let mut app = fitted(demo());
    press(&mut app, " ");
    app.model = "nonsense".into();
    app.start_fit(false);
    assert!(app.message.as_ref().unwrap().error);
    assert_eq!(app.session.counts().decided, 1);
    assert!(app.session.fit().is_some());
}

#[test]
fn esc_cancels_a_running_fit() {
    let mut app = app_with(demo(), None);
    app.options.tol = 1e-300;
    app.options.max_iter = 10_000_000;
    app.start_fit(false);
    app.handle_key(&code(KeyCode::Esc));
    app.wait_for_fit();
    assert!(!app.fitting());
    assert!(
        app.message.as_ref().unwrap().text.contains("cancelled"),
        "{:?}",
        app.message
    );
}

#[test]
fn mouse_click_selects_a_row_and_the_wheel_scrolls() {
    use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    let mut app = fitted(demo());
    let _ = screen(&app, 160, 48);
    let area = app.list_area.get();
    app.handle_mouse(&MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: area.x + 2,
        row: area.y + 4,
        modifiers: KeyModifiers::NONE,
    });
    assert_eq!(app.session.cursor(), 4);
    app.handle_mouse(&MouseEvent {
        kind: MouseEventKind::ScrollDown,
        column: 0,
        row: 0,
        modifiers: KeyModifiers::NONE,
    });
    assert_eq!(app.session.cursor(), 7);
}

/// A million rows: each frame formats only the rows on screen.
#[test]
fn the_list_is_virtualised() {
    let n = 1_000_000;
    let x = DMatrix::from_fn(n, 1, |i, _| (i % 100) as f64);
    let labels: Vec<usize> = (0..n).map(|i| i % 2).collect();
    let mut ds = demo();
    ds.x = x;
    ds.labels = labels;
    ds.ids = (0..n).map(|i| i.to_string()).collect();
    ds.rows = (0..n).collect();
    ds.feature_names = vec!["f".into()];
    let (session, resume) = Session::open(ds, None).unwrap();
    let mut app = App::with_keys(
        session,
        &resume,
        "nda",
        ModelOptions::default(),
        KeyMap::load(None).unwrap(),
    );
    let _ = screen(&app, 80, 24);
    let visible = app.list_area.get().height as usize;
    assert!(
        app.rows_formatted.get() <= visible,
        "{} rows formatted",
        app.rows_formatted.get()
    );
    press(&mut app, "G");
    let s = screen(&app, 80, 24);
    assert!(app.rows_formatted.get() <= visible);
    assert!(s.contains("1000000"), "{s}");
}

#[test]
fn undo_shows_the_sample_it_changed() {
    let mut app = fitted(demo());
    let first = app.session.selected().unwrap();
    press(&mut app, "aaa");
    assert_ne!(app.session.selected(), Some(first));
    press(&mut app, "uuu");
    assert_eq!(app.session.selected(), Some(first));
    assert_eq!(app.session.counts().decided, 0);
}

/// An `all`-style fit without running five models: the rnda fit's
/// posterior, no flip table, one p_mislabel column per member and their
/// disagreement, made up but fixed.
fn ensemble_style(app: &mut App) {
    use crate::models::ensemble::{disagreement_column, member_column};
    let mut fit = app.session.fit().unwrap().clone();
    fit.gamma = None;
    fit.shifts = None;
    let p = fit.p_mislabel.clone();
    let members: Vec<(&str, Vec<f64>)> = vec![
        ("rnda", p.clone()),
        ("rlr", p.iter().map(|v| v * v).collect()),
        ("shift", p.iter().map(|v| v.sqrt()).collect()),
        (
            "rmda",
            p.iter()
                .enumerate()
                .map(|(i, v)| 0.5 * v + 0.1 * (i % 5) as f64)
                .collect(),
        ),
    ];
    let n = p.len();
    let disagreement = (0..n)
        .map(|i| {
            let mean = members.iter().map(|(_, c)| c[i]).sum::<f64>() / 4.0;
            (members
                .iter()
                .map(|(_, c)| (c[i] - mean).powi(2))
                .sum::<f64>()
                / 4.0)
                .sqrt()
        })
        .collect();
    for (name, values) in members {
        fit.extra.sample_columns.push(member_column(name, values));
    }
    fit.extra
        .sample_columns
        .push(disagreement_column(disagreement));
    app.session.set_fit("all", fit);
}

#[test]
fn model_columns_fit_the_width_and_sort_by_disagreement() {
    let mut app = fitted(demo());
    ensemble_style(&mut app);
    insta::assert_snapshot!("all_columns_120x30", screen(&app, 120, 30));
    let narrow = screen(&app, 80, 24);
    insta::assert_snapshot!("all_columns_80x24", narrow);
    let header = narrow.lines().nth(1).unwrap();
    assert!(
        header.contains("dis.") && header.contains("given"),
        "{narrow}"
    );
    assert!(narrow.contains("too narrow for shift"), "{narrow}");
    // Wide enough, nothing is hidden and the title does not say otherwise.
    let wide = screen(&app, 200, 30);
    assert!(!wide.contains("too narrow"), "{wide}");
    for h in ["rnda", "rlr", "shift", "rmda", "dis."] {
        assert!(wide.lines().nth(1).unwrap().contains(h), "{wide}");
    }

    press(&mut app, "jjjs");
    assert_eq!(app.session.sort_key().name(), "disagreement");
    assert_eq!(app.session.cursor(), 0, "a new order shows its top");
    let dis = &app
        .session
        .fit()
        .unwrap()
        .extra
        .sample_column("disagreement");
    let dis = &dis.unwrap().values;
    let top = app.session.view()[0];
    assert!(dis.iter().all(|d| *d <= dis[top]));
    insta::assert_snapshot!("all_sorted_by_disagreement_80x24", screen(&app, 80, 24));
    // Every per-model column is a sort key too; S steps back.
    press(&mut app, "s");
    assert_eq!(app.session.sort_key().name(), "p_mislabel_rnda");
    press(&mut app, "SS");
    assert_eq!(app.session.sort_key().name(), "p_mislabel");
}

/// rmda has the most options: on 24 lines they scroll under the model list
/// instead of pushing the footer off the screen.
#[test]
fn the_model_picker_fits_24_lines_with_rmda() {
    let mut app = fitted(demo());
    press(&mut app, "m");
    let rmda = crate::models::MODELS
        .iter()
        .position(|m| m.name == "rmda")
        .unwrap();
    for _ in 0..rmda {
        press(&mut app, "j");
    }
    let s = screen(&app, 80, 24);
    insta::assert_snapshot!("popup_model_picker_rmda_80x24", s);
    assert!(s.contains("Enter on a model fits it"), "{s}");
    assert!(s.contains("(Bouveyron & Girard 2009)"), "{s}");
    app.handle_key(&code(KeyCode::Tab));
    for _ in 0..10 {
        press(&mut app, "j");
    }
    let s = screen(&app, 80, 24);
    insta::assert_snapshot!("popup_model_picker_rmda_last_option_80x24", s);
    assert!(s.contains("seed") && s.contains("of 11"), "{s}");
    assert!(s.contains("Enter on a model fits it"), "{s}");
    // Tall enough, every option shows and nothing says it scrolls.
    let tall = screen(&app, 80, 40);
    assert!(
        tall.contains("covariance") && !tall.contains("of 11"),
        "{tall}"
    );
}

/// Resuming keeps the session's model unless `--model` names another.
#[test]
fn a_named_model_replaces_the_resumed_one() {
    let dir = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let input = dir.path().join("iris_noisy.csv");
    std::fs::write(&input, DEMO).unwrap();
    let open = || {
        let ds = load(&input, &LoadOptions::default()).unwrap();
        Session::open(ds, Some(store.path())).unwrap().0
    };
    let mut first = open();
    first
        .set_model_choice("rmda", &ModelOptions::default())
        .unwrap();
    drop(first);
    // Not named: the saved model stays.
    let mut s = open();
    super::prefer_named_model(&mut s, "auto", &ModelOptions::default(), false).unwrap();
    assert_eq!(s.model_choice().unwrap().0, "rmda");
    // Named: it replaces the saved one, and the journal remembers it.
    super::prefer_named_model(&mut s, "shift", &ModelOptions::default(), true).unwrap();
    assert_eq!(s.model_choice().unwrap().0, "shift");
    drop(s);
    assert_eq!(open().model_choice().unwrap().0, "shift");
}

fn app_with_keymap(user: &str) -> App {
    let (session, resume) = Session::open(demo(), None).unwrap();
    let mut app = App::with_keys(
        session,
        &resume,
        "rnda",
        ModelOptions::default(),
        KeyMap::load(Some(user)).unwrap(),
    );
    app.start_fit(false);
    app.wait_for_fit();
    app.refresh_detail();
    app
}

/// A user's `[popup]` table rebinds popup keys: the new key works and the
/// one it replaced does nothing any more.
#[test]
fn a_remapped_popup_key_drives_the_popup() {
    let mut app = app_with_keymap("[popup]\ndown = [\"J\"]\ncancel = [\"x\"]\n");
    press(&mut app, "f");
    press(&mut app, "J");
    assert_eq!(
        app.popup,
        Some(Popup::Filter(super::popup::FilterMenu { selected: 1 }))
    );
    press(&mut app, "j");
    assert_eq!(
        app.popup,
        Some(Popup::Filter(super::popup::FilterMenu { selected: 1 })),
        "j was replaced by J"
    );
    app.handle_key(&code(KeyCode::Esc));
    assert!(app.popup.is_some(), "Esc was replaced by x");
    press(&mut app, "x");
    assert_eq!(app.popup, None);
    // Unchanged popup keys keep their defaults: Enter applies entry 1.
    press(&mut app, "fJ");
    app.handle_key(&code(KeyCode::Enter));
    assert_eq!(app.popup, None);
    assert_eq!(app.session.filter().class, Some(0));
}

/// Hints name the keys the keymap binds, not the defaults.
#[test]
fn hints_show_the_remapped_keys() {
    let mut app = app_with_keymap(
        "filter = [\"F\"]\nmodel = [\"M\"]\n[popup]\nconfirm = [\"o\"]\ncancel = [\"x\"]\nyes = [\"Y\"]\nswitch_focus = [\"Right\"]\n",
    );
    press(&mut app, "F");
    let s = screen(&app, 80, 24);
    assert!(s.contains("filter (o applies)"), "{s}");
    press(&mut app, "x?");
    let s = screen(&app, 100, 24);
    assert!(s.contains("x closes") && !s.contains("Esc closes"), "{s}");
    press(&mut app, "xM");
    let s = screen(&app, 80, 24);
    assert!(s.contains("o on a model fits it; x closes"), "{s}");
    assert!(s.contains("(Right to edit, o to change)"), "{s}");
    press(&mut app, "x");
    press(&mut app, " q");
    assert_eq!(app.popup, Some(Popup::ConfirmQuit));
    let s = screen(&app, 80, 24);
    assert!(s.contains("Y quit"), "{s}");
    press(&mut app, "Y");
    assert!(app.quit);
}

/// Wide characters (CJK class names, emoji ids) take two cells: columns
/// after them still line up, in the list and in the detail pane.
#[test]
fn wide_characters_keep_the_columns_in_line() {
    let mut ds = demo();
    ds.classes[0] = "日本語クラス".into();
    ds.ids[0] = "🐱猫".into();
    ds.ids[1] = "x".into();
    let mut app = fitted(ds);
    // The emoji id near the top, next to narrow ones.
    press(&mut app, "s");
    while app.session.sort_key().name() != "id" {
        press(&mut app, "s");
    }
    let t = render(&app, 160, 40);
    let buf = t.backend().buffer();
    let row_text = |y: u16, from: u16, to: u16| -> String {
        (from..to)
            .map(|x| buf[(x, y)].symbol().to_string())
            .collect()
    };
    let header = 1;
    let p_x = (0..150)
        .find(|&x| row_text(header, x, x + 10) == "p_mislabel")
        .expect("a p_mislabel header");
    let mut rows_with_wide = 0;
    for y in header + 1..36 {
        let cell = row_text(y, p_x, p_x + 2);
        assert!(
            cell.chars().next().unwrap().is_ascii_digit() && cell.ends_with('.'),
            "row {y}: {:?}",
            row_text(y, 0, 80)
        );
        let line = row_text(y, 0, p_x);
        if line.contains('🐱') || line.contains('日') {
            rows_with_wide += 1;
        }
    }
    assert!(rows_with_wide > 0, "no wide text on screen");
    // Detail pane: the posterior numbers start at one x for every class.
    let detail_x = (0..160)
        .find(|&x| row_text(2, x, x + 9) == "posterior")
        .expect("a posterior heading");
    let number_x: Vec<u16> = (3..6)
        .map(|y| {
            (detail_x..160)
                .find(|&x| row_text(y, x, x + 2) == "0." || row_text(y, x, x + 2) == "1.")
                .unwrap()
        })
        .collect();
    assert!(number_x.windows(2).all(|w| w[0] == w[1]), "{number_x:?}");
}

/// A session on the demo in `dir` with two decisions journalled in `store`.
fn resumable(dir: &Path, store: &Path) -> std::path::PathBuf {
    let input = dir.join("iris_noisy.csv");
    std::fs::write(&input, DEMO).unwrap();
    let (mut s, _) =
        Session::open(load(&input, &LoadOptions::default()).unwrap(), Some(store)).unwrap();
    s.keep(0).unwrap();
    s.drop_sample(1).unwrap();
    input
}

#[test]
fn the_resume_message_counts_in_words() {
    let said = |decisions, comments| {
        let mut session = Session::open(demo(), None).unwrap().0;
        for s in 0..comments {
            session.comment(s, "seen").unwrap();
        }
        let app = App::with_keys(
            session,
            &ResumeInfo::Resumed { decisions },
            "rnda",
            ModelOptions::default(),
            KeyMap::load(None).unwrap(),
        );
        screen(&app, 100, 30)
    };
    let resumed = |decisions, comments| {
        let text = said(decisions, comments);
        text.lines()
            .find(|l| l.contains("resumed"))
            .unwrap_or_default()
            .trim()
            .to_string()
    };
    assert_eq!(
        resumed(0, 0),
        "resumed the earlier session (no decisions in it yet)"
    );
    assert_eq!(
        resumed(1, 0),
        "resumed the earlier session: 1 decision restored"
    );
    assert_eq!(
        resumed(3, 0),
        "resumed the earlier session: 3 decisions restored"
    );
    assert_eq!(
        resumed(0, 1),
        "resumed the earlier session: 1 comment restored"
    );
    assert_eq!(
        resumed(3, 2),
        "resumed the earlier session: 3 decisions and 2 comments restored"
    );
}

/// Issue 12 item 6: the fit that starts at once used to replace the resume
/// message before the first frame.
#[test]
fn the_resume_message_survives_the_first_fit() {
    let dir = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let input = resumable(dir.path(), store.path());
    let mut app = app_with(
        load(&input, &LoadOptions::default()).unwrap(),
        Some(store.path()),
    );
    app.start_fit(false);
    let text = screen(&app, 100, 30);
    assert!(
        text.contains("resumed the earlier session: 2 decisions restored"),
        "{text}"
    );
    assert!(text.contains("fitting rnda"), "{text}");
    app.wait_for_fit();
    let text = screen(&app, 100, 30);
    assert!(
        text.contains("resumed the earlier session: 2 decisions restored; rnda found about"),
        "the fit's outcome beside it: {text}"
    );
    // The keys stay on the last line all along.
    assert!(text.lines().last().unwrap().starts_with("? help"), "{text}");
}

#[test]
fn a_changed_file_is_said_on_the_first_frame() {
    let dir = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let input = resumable(dir.path(), store.path());
    std::fs::write(&input, DEMO.replacen("5.1", "5.2", 1)).unwrap();
    let mut app = app_with(
        load(&input, &LoadOptions::default()).unwrap(),
        Some(store.path()),
    );
    app.start_fit(false);
    let text = screen(&app, 100, 30);
    assert!(
        text.contains("the file changed since the last session"),
        "{text}"
    );
}

#[test]
fn journal_recovery_and_read_only_are_said_on_the_first_frame() {
    let dir = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let input = resumable(dir.path(), store.path());
    let ds = || load(&input, &LoadOptions::default()).unwrap();
    let journal = {
        let (s, _) = Session::open(ds(), Some(store.path())).unwrap();
        s.journal_path().unwrap().to_path_buf()
    };
    let mut bytes = std::fs::read(&journal).unwrap();
    bytes.extend_from_slice(b"\0\0\0 not an entry\n");
    std::fs::write(&journal, &bytes).unwrap();
    let mut app = app_with(ds(), Some(store.path()));
    app.start_fit(false);
    // 80 columns: what happened first, the paths behind the notes key.
    let text = screen(&app, 80, 30);
    assert!(text.contains("skipped 1 unreadable line (4)"), "{text}");
    assert!(text.contains("(i: all of it)"), "{text}");
    assert!(
        text.contains("rnda: starting"),
        "the fit in the status bar: {text}"
    );
    app.wait_for_fit();
    // An error outlives the fit's line.
    assert!(screen(&app, 80, 30).contains("skipped 1 unreadable line (4)"));
    press(&mut app, "i");
    let text = screen(&app, 80, 30);
    assert!(text.contains(".bak"), "{text}");
    press(&mut app, "i");

    // A second screen on the same file while this one is open.
    let mut second = app_with(ds(), Some(store.path()));
    second.start_fit(false);
    let text = screen(&second, 120, 30);
    assert!(text.contains("read-only: another relabel, pid"), "{text}");
    assert!(text.contains("[read-only]"), "{text}");
    second.wait_for_fit();
    press(&mut second, " ");
    let message = second.message.clone().unwrap();
    assert!(
        message.error && message.text.contains("read-only"),
        "{message:?}"
    );
}

#[test]
fn decisions_start_a_learning_refit_after_a_pause_and_keep_the_cursor() {
    use std::time::{Duration, Instant};

    use super::fit::LEARN_AFTER;

    let mut app = fitted(demo());
    let t0 = Instant::now();
    app.tick(t0);
    assert!(!app.fitting(), "no decision, no refit");
    press(&mut app, "j");
    let chosen = app.session.selected().unwrap();
    press(&mut app, "k");
    press(&mut app, " ");
    app.tick(t0 + Duration::from_millis(10));
    assert!(!app.fitting(), "waits for the curator to pause");
    app.tick(t0 + Duration::from_millis(10) + LEARN_AFTER);
    assert!(app.fitting(), "learns from the decision");
    // Select another sample while the refit runs: the refit keeps it.
    assert!(app.session.select_sample(chosen));
    app.wait_for_fit();
    assert_eq!(app.session.selected(), Some(chosen));
    assert_eq!(app.fitted_version, app.session.decisions_version());
    app.tick(t0 + 10 * LEARN_AFTER);
    assert!(!app.fitting(), "nothing new to learn");
    let status = screen(&app, 140, 30);
    assert!(status.contains("wrong left"), "{status}");
    // An export while a learning refit runs: its message outlives the
    // refit, which finished by itself (the first fit's summary was shown).
    let dir = tempfile::tempdir().unwrap();
    app.export_dir = Some(dir.path().to_path_buf());
    press(&mut app, "d");
    app.tick(t0 + 20 * LEARN_AFTER);
    app.tick(t0 + 21 * LEARN_AFTER);
    assert!(app.fitting());
    press(&mut app, "e");
    app.wait_for_fit();
    let said = app.message.as_ref().map(|m| m.text.clone()).unwrap();
    assert!(said.starts_with("exported "), "{said}");
    // With nothing said since, a refit says how it went.
    press(&mut app, "u");
    app.tick(t0 + 30 * LEARN_AFTER);
    app.tick(t0 + 31 * LEARN_AFTER);
    assert!(app.fitting());
    app.wait_for_fit();
    let said = app.message.as_ref().map(|m| m.text.clone()).unwrap();
    assert!(said.starts_with("re-ranked: "), "{said}");
    // An export in the pause before the learning refit: the refit starts
    // and ends without covering what the export wrote.
    press(&mut app, "d");
    app.tick(t0 + 40 * LEARN_AFTER);
    press(&mut app, "e");
    press(&mut app, "y");
    app.tick(t0 + 41 * LEARN_AFTER);
    assert!(app.fitting());
    for _ in 0..2 {
        let said = app.message.as_ref().map(|m| m.text.clone()).unwrap();
        assert!(said.starts_with("exported "), "{said}");
        app.wait_for_fit();
    }
}

#[test]
fn auto_says_which_model_it_chose_and_refits_keep_it() {
    let (session, resume) = Session::open(demo(), None).unwrap();
    let mut app = App::with_keys(
        session,
        &resume,
        "auto",
        ModelOptions::default(),
        KeyMap::load(None).unwrap(),
    );
    app.start_fit(false);
    app.wait_for_fit();
    let chosen = app.session.model_name().unwrap().to_string();
    assert_ne!(chosen, "auto");
    let text = screen(&app, 160, 40);
    assert!(text.contains("found about"), "{text}");
    press(&mut app, "i");
    let text = screen(&app, 160, 40);
    assert!(
        text.contains(&format!("{chosen} converged")) || text.contains("converged"),
        "{text}"
    );
    assert!(
        text.contains(&format!("auto chose {chosen} by"))
            || text.contains(&format!("auto combined {chosen} by")),
        "{text}"
    );
    press(&mut app, "i");
    press(&mut app, "R");
    assert_eq!(
        app.job.as_ref().unwrap().model,
        chosen,
        "a refit does not choose again"
    );
    app.wait_for_fit();
    assert_eq!(app.session.model_name(), Some(chosen.as_str()));
}

/// auto's choice reports fits done, not an objective: the status bar says
/// "3/15" as the headless progress does, never "obj NaN"; a stage with an
/// objective keeps it.
#[test]
fn a_fit_without_an_objective_shows_its_count() {
    let mut app = app_with(demo(), None);
    app.start_fit(false);
    let job = app.job.as_mut().unwrap();
    job.last = Some(crate::models::Progress {
        stage: "choosing a model",
        iteration: 3,
        max_iterations: 15,
        objective: f64::NAN,
        fraction: 0.2,
    });
    let text = screen(&app, 160, 30);
    assert!(text.contains("choosing a model 3/15"), "{text}");
    assert!(!text.contains("NaN"), "{text}");
    app.job.as_mut().unwrap().last = Some(crate::models::Progress {
        stage: "EM",
        iteration: 4,
        max_iterations: 500,
        objective: -12.5,
        fraction: 0.01,
    });
    let text = screen(&app, 160, 30);
    assert!(text.contains("EM it 4 obj -12.5000"), "{text}");
    app.wait_for_fit();
}

/// Five classes at 120 x 32, where the model pane stacks its tables over
/// its charts: half the pane cut the flip table's last row, unsaid.
#[test]
fn the_stacked_model_pane_shows_every_row_of_the_flip_table() {
    let mut csv = String::from("id,a,b,label\n");
    for c in 0..5 {
        for i in 0..12 {
            let given = if i == 0 { (c + 1) % 5 } else { c };
            let (a, b) = (10 * c + i % 4, 3 * (i % 3) + 20 * (c % 2));
            csv.push_str(&format!("s{c}_{i},{a},{b},class{given}\n"));
        }
    }
    let ds = load_bytes(
        Path::new("five.csv"),
        csv.into_bytes(),
        &LoadOptions::default(),
    )
    .unwrap();
    let app = fitted(ds);
    assert!(app.session.fit().is_some_and(|f| f.gamma.is_some()));
    let text = screen(&app, 120, 32);
    let grid: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.contains("rows: true class, cols: given"))
        .take(7)
        .collect();
    for c in 0..5 {
        assert!(
            grid.iter().any(|l| l.contains(&format!("│class{c} "))),
            "class{c}: {text}"
        );
    }
    assert!(!text.contains("more rows"), "{text}");
}

/// What the ranking cannot show is said on opening: a label typed two ways
/// is two classes to every model, one of them a class of a single sample.
#[test]
fn a_label_written_two_ways_is_said_on_opening() {
    // Ten of each class: a design large enough to rank.
    let table: String = std::iter::once("a,label\n".to_string())
        .chain((0..20).map(|i| format!("{i},{}\n", ["x", "y"][i / 10])))
        .chain(std::iter::once("4,X\n".to_string()))
        .collect();
    let ds = load_bytes(
        Path::new("t.csv"),
        table.into_bytes(),
        &LoadOptions::default(),
    )
    .unwrap();
    let mut app = app_with(ds, None);
    let text = screen(&app, 120, 30);
    assert!(
        text.contains("2 notes on the table: i shows them"),
        "{text}"
    );
    press(&mut app, "i");
    let text = screen(&app, 120, 30);
    assert!(
        text.contains("the labels \"x\" (10) and \"X\" (1) differ only in how"),
        "{text}"
    );
    assert!(text.contains("class \"X\" (1 sample) has fewer"), "{text}");
}

/// Classes named by digits: the digit key is the class of that name, not
/// the class in that place by posterior, and the pane keys each class by
/// its own name.
#[test]
fn digit_named_classes_are_keyed_by_their_names() {
    let mut app = fitted(renamed(&[
        ("setosa", "1"),
        ("versicolor", "2"),
        ("virginica", "3"),
    ]));
    let classes = app.session.dataset().classes.clone();
    // A sample and a class other than its given one whose name is not its
    // place by posterior: there the two readings of the key differ.
    let (row, s, target) = (0..app.session.view().len())
        .find_map(|row| {
            let s = app.session.view()[row];
            let given = app.session.dataset().labels[s];
            let order = app.session.classes_by_posterior(s);
            order
                .iter()
                .enumerate()
                .find(|&(rank, &c)| c != given && classes[c] != (rank + 1).to_string())
                .map(|(_, &c)| (row, s, c))
        })
        .unwrap();
    app.session.move_cursor(row as isize);
    assert_eq!(app.session.selected(), Some(s));
    let order = app.session.classes_by_posterior(s);
    let wide = screen(&app, 160, 48);
    assert!(
        wide.contains("digit keys relabel to the class of that name"),
        "{wide}"
    );
    for c in &order {
        assert!(
            wide.contains(&format!(" {} {}", classes[*c], classes[*c])),
            "{wide}"
        );
    }
    press(&mut app, &classes[target]);
    assert_eq!(
        app.session.decision(s),
        Some(crate::review::Decision::Relabel(target))
    );
    // A digit no class is named: nothing decided, and the message says so.
    let next = app.session.selected().unwrap();
    press(&mut app, "7");
    assert_eq!(app.session.decision(next), None);
    assert!(screen(&app, 160, 48).contains("no class is named 7"));
}

/// A fit that ranks by the given label alone (rlr whose classifier kept no
/// feature) says so in the status bar for as long as it is shown, in place
/// of a count of wrong labels that its unidentified flip table set.
#[test]
fn the_status_bar_says_when_the_ranking_is_by_label_alone() {
    let mut app = app_with(demo(), None);
    let labels = app.session.dataset().labels.clone();
    let k = app.session.dataset().classes.len();
    let posterior = DMatrix::from_fn(labels.len(), k, |i, j| {
        if j == labels[i] {
            0.6
        } else {
            0.4 / (k - 1) as f64
        }
    });
    let mut fit = crate::models::Fit::from_posterior(posterior, &labels);
    fit.label_only = true;
    app.session.set_fit("rlr", fit.clone());
    let status = screen(&app, 140, 30);
    assert!(status.contains("ranked by label only"), "{status}");
    assert!(!status.contains("wrong left"), "{status}");
    fit.label_only = false;
    app.session.set_fit("rlr", fit.clone());
    let status = screen(&app, 140, 30);
    assert!(
        status.contains("~60 (") && status.contains("wrong left"),
        "{status}"
    );
    // rnda named by the curator, its flip table held on the constraint.
    fit.flips_unidentified = true;
    app.session.set_fit("rnda", fit);
    let status = screen(&app, 140, 30);
    assert!(status.contains("flips not identified"), "{status}");
    assert!(!status.contains("wrong left"), "{status}");
}

/// Issue 50: the keys (help, and Tab while panes are hidden) are on the
/// last line from the first frame, whatever the message line says.
#[test]
fn the_hint_line_is_always_on_screen() {
    let mut app = app_with(demo(), None);
    app.start_fit(false);
    for (w, h) in [(80, 24), (120, 36), (60, 20)] {
        let text = screen(&app, w, h);
        let last = text.lines().last().unwrap();
        assert!(last.starts_with("? help"), "{w}x{h}: {text}");
        assert!(last.ends_with("q quit"), "{w}x{h}: {last}");
        assert_eq!(last.contains("Tab more panes"), w < 110, "{w}x{h}: {last}");
    }
    app.wait_for_fit();
    // The count left, with its interval (issue 47's count, issue 50's bar).
    let wide = screen(&app, 160, 40);
    assert!(
        wide.contains(") wrong left") && wide.contains("–"),
        "{wide}"
    );
    app.error("a long error ".repeat(20));
    let text = screen(&app, 80, 24);
    assert!(text.lines().last().unwrap().starts_with("? help"), "{text}");
}

/// Issue 50: every decision key says what it did, and a later success
/// replaces an earlier error (issue 51: a stale "cannot write").
#[test]
fn every_decision_key_says_what_it_did() {
    let mut app = fitted(demo());
    let said = |app: &App| app.message.as_ref().unwrap().text.clone();
    let id = |app: &App| app.session.dataset().ids[app.session.selected().unwrap()].clone();
    app.error("cannot write j.jsonl: No space left on device");
    let first = id(&app);
    press(&mut app, " ");
    assert!(
        said(&app).starts_with(&format!("kept {first} as ")),
        "{}",
        said(&app)
    );
    assert!(!app.message.as_ref().unwrap().error);
    let next = id(&app);
    press(&mut app, "d");
    assert_eq!(
        said(&app),
        format!("dropped {next}: left out of the cleaned file")
    );
    let third = id(&app);
    press(&mut app, "2");
    assert!(
        said(&app).starts_with(&format!("relabelled {third}: "))
            || said(&app).starts_with(&format!("kept {third}")),
        "{}",
        said(&app)
    );
    press(&mut app, "k");
    press(&mut app, "x");
    assert_eq!(said(&app), format!("cleared the decision on {third}"));
    press(&mut app, "x");
    assert_eq!(said(&app), format!("{third} has no decision to clear"));
    press(&mut app, "a");
    assert!(
        said(&app).starts_with(&format!("relabelled {third}: "))
            || said(&app).starts_with(&format!("kept {third}")),
        "{}",
        said(&app)
    );
}

/// Issue 50: a learning refit that finishes while the curator reads a row
/// leaves that row as it was on screen; what changed is announced.
#[test]
fn a_refit_leaves_the_row_on_screen_as_it_was() {
    let mut app = fitted(demo());
    press(&mut app, "  ");
    press(&mut app, "jjjj");
    let before = screen(&app, 120, 36);
    let rank = format!("│{} ", app.session.cursor() + 1);
    let row = |text: &str| {
        text.lines()
            .find(|l| l.starts_with(&rank))
            .map(|l| l[..l.find("││").unwrap_or(l.len())].to_string())
    };
    let detail = |text: &str| {
        text.lines()
            .take(6)
            .map(|l| l[l.find("││").unwrap_or(0)..].to_string())
            .collect::<Vec<_>>()
    };
    app.start_fit(true);
    app.wait_for_fit();
    let after = screen(&app, 120, 36);
    assert!(row(&before).is_some());
    assert_eq!(row(&before), row(&after), "{after}");
    assert_eq!(detail(&before), detail(&after), "{after}");
    let said = app.message.as_ref().unwrap().text.clone();
    assert!(said.starts_with("re-ranked: "), "{said}");
}

/// Issue 50: "e" in the quit question exports, then quits.
#[test]
fn export_first_in_the_quit_question_exports_then_quits() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = fitted(demo());
    app.export_dir = Some(dir.path().to_path_buf());
    press(&mut app, " q");
    assert_eq!(app.popup, Some(Popup::ConfirmQuit));
    press(&mut app, "e");
    assert!(app.quit, "{:?}", app.message);
    assert!(dir.path().join("relabel-demo.cleaned.csv").exists());
}

/// Issue 51: a decision on an input changed on disk asks what to do.
#[test]
fn a_changed_input_asks_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let input = resumable(dir.path(), store.path());
    let mut app = app_with(
        load(&input, &LoadOptions::default()).unwrap(),
        Some(store.path()),
    );
    std::fs::write(&input, DEMO.replacen("5.1", "5.2", 1)).unwrap();
    press(&mut app, "jd");
    assert_eq!(app.popup, Some(Popup::InputChanged));
    let text = screen(&app, 80, 24);
    assert!(
        text.contains("changed on disk since it was loaded"),
        "{text}"
    );
    press(&mut app, "r");
    assert!(app.quit && app.reopen);
}

/// Issue 50: the filter offers Cleanlab's confusion pairs ("given A ->
/// suggested B", with how many) and each suggested label; choosing one
/// shows exactly those samples.
#[test]
fn the_filter_offers_confusion_pairs_and_suggested_labels() {
    let mut app = fitted(demo());
    let pairs = app.session.confusion_pairs();
    assert!(!pairs.is_empty());
    let ((a, b), n) = pairs[pairs.len() - 1];
    press(&mut app, "fG");
    let menu = screen(&app, 100, 30);
    let classes = app.session.dataset().classes.clone();
    let entry = format!("given {} -> suggested {} ({n})", classes[a], classes[b]);
    assert!(menu.contains(&entry), "{menu}");
    app.handle_key(&code(KeyCode::Enter));
    let fit = app.session.fit().unwrap();
    let labels = &app.session.dataset().labels;
    assert_eq!(app.session.view().len(), n);
    assert!(
        app.session
            .view()
            .iter()
            .all(|&i| labels[i] == a && fit.suggested[i] == b)
    );
    // One suggested label: the entries after the decisions' and the flag's.
    let first_suggested = 1 + classes.len() + crate::review::DecisionFilter::ALL.len() + 2;
    press(&mut app, "fg");
    press(&mut app, &"j".repeat(first_suggested));
    app.handle_key(&code(KeyCode::Enter));
    let fit = app.session.fit().unwrap();
    let want = fit.suggested.iter().filter(|&&c| c == 0).count();
    assert_eq!(app.session.view().len(), want);
    let text = screen(&app, 100, 30);
    assert!(
        text.contains(&format!("suggested={}", classes[0])),
        "{text}"
    );
}

/// Issue 50: the order turns around with one key, and the list sorts by
/// the given and by the suggested label.
#[test]
fn the_sort_reverses_and_goes_by_given_or_suggested_label() {
    let mut app = fitted(demo());
    let top = app.session.view()[0];
    press(&mut app, "o");
    assert!(!app.session.sort_descending());
    assert_ne!(app.session.view()[0], top);
    assert!(app.message.as_ref().unwrap().text.contains("ascending"));
    press(&mut app, "o");
    assert_eq!(app.session.view()[0], top);
    while app.session.sort_key().name() != "given" {
        press(&mut app, "s");
    }
    let ds = app.session.dataset();
    let names: Vec<&str> = app
        .session
        .view()
        .iter()
        .map(|&i| ds.classes[ds.labels[i]].as_str())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    assert!(screen(&app, 100, 30).contains("given↑"));
    press(&mut app, "s");
    assert_eq!(app.session.sort_key().name(), "suggested");
    let ds = app.session.dataset();
    let fit = app.session.fit().unwrap();
    let names: Vec<&str> = app
        .session
        .view()
        .iter()
        .map(|&i| ds.classes[fit.suggested[i]].as_str())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
}

/// Issue 50: the search reads labels and feature values as written, and
/// says how many samples hold the text.
#[test]
fn the_search_finds_labels_and_feature_values_with_a_count() {
    let mut app = fitted(demo());
    // A feature value as the file writes it, in a few samples only.
    let value = "7.7,";
    let want = DEMO.lines().skip(1).filter(|l| l.contains(value)).count();
    assert!(want > 1 && want < app.session.dataset().n_samples());
    press(&mut app, "/");
    press(&mut app, value);
    app.handle_key(&code(KeyCode::Enter));
    assert_eq!(app.session.search_count(), want);
    let said = app.message.as_ref().unwrap().text.clone();
    assert!(said.contains(&format!("of {want}")), "{said}");
    let sel = app.session.selected().unwrap();
    let line = app.session.dataset().record_bytes(sel).unwrap();
    assert!(String::from_utf8_lossy(line).contains(value));
    // A class name finds every sample given it or suggested it.
    let class = app.session.dataset().classes[1].clone();
    press(&mut app, "/");
    press(&mut app, &class.to_uppercase());
    app.handle_key(&code(KeyCode::Enter));
    let fit = app.session.fit().unwrap();
    let ds = app.session.dataset();
    let want = (0..ds.n_samples())
        .filter(|&i| ds.labels[i] == 1 || fit.suggested[i] == 1)
        .count();
    assert_eq!(app.session.search_count(), want);
    press(&mut app, "/");
    press(&mut app, "no such text");
    app.handle_key(&code(KeyCode::Enter));
    assert!(
        app.message
            .as_ref()
            .unwrap()
            .text
            .starts_with("no sample has"),
        "{:?}",
        app.message
    );
}

/// Issue 50: Enter shows every field of the sample; it scrolls where the
/// screen is short, and Enter closes it.
#[test]
fn enter_shows_the_whole_record() {
    let mut app = fitted(demo());
    let s = app.session.selected().unwrap();
    app.handle_key(&code(KeyCode::Enter));
    assert!(matches!(app.popup, Some(Popup::Record(_))));
    let text = screen(&app, 80, 24);
    let header: Vec<&str> = DEMO.lines().next().unwrap().split(',').collect();
    for name in &header {
        assert!(text.contains(name), "{name}: {text}");
    }
    assert!(text.contains(&app.session.dataset().ids[s]), "{text}");
    insta::assert_snapshot!("record_80x24", text);
    let short = screen(&app, 80, 10);
    assert!(short.contains("record 1-"), "{short}");
    app.handle_key(&code(KeyCode::Enter));
    assert!(app.popup.is_none());
}

/// Esc then q typed quickly reach relabel as one key, Alt-q (tmux sends
/// them so within its escape-time): the record view closes and the screen
/// quits, as for the two keys. Before, Alt-q was read as q alone, which
/// closed the view, and the screen stayed.
#[test]
fn esc_and_a_key_sent_as_one_alt_key_are_both_read() {
    let mut app = fitted(demo());
    app.handle_key(&code(KeyCode::Enter));
    assert!(matches!(app.popup, Some(Popup::Record(_))));
    app.handle_key(&KeyEvent::new(KeyCode::Char('q'), KeyModifiers::ALT));
    assert!(app.popup.is_none());
    assert!(app.quit, "q after Esc did not quit");
    let mut app = fitted(demo());
    app.handle_key(&KeyEvent::new(KeyCode::Char('j'), KeyModifiers::ALT));
    assert_eq!(app.session.cursor(), 1, "Alt-j: Esc, then one down");
}

/// Issue 50: a model of shifts heads its column "shift", not "gamma".
#[test]
fn a_model_of_shifts_heads_its_column_shift() {
    let (session, resume) = Session::open(demo(), None).unwrap();
    let mut app = App::with_keys(
        session,
        &resume,
        "shift",
        ModelOptions::default(),
        KeyMap::load(None).unwrap(),
    );
    app.start_fit(false);
    app.wait_for_fit();
    let text = screen(&app, 120, 30);
    let header = text.lines().nth(1).unwrap();
    assert!(
        header.contains("shift") && !header.contains("gamma"),
        "{header}"
    );
    while app.session.sort_key().name() != "gamma" {
        press(&mut app, "s");
    }
    assert!(
        app.message
            .as_ref()
            .unwrap()
            .text
            .starts_with("sorted by shift"),
        "{:?}",
        app.message
    );
}

/// Issue 50: an option field opens empty with what it accepts and its
/// value now under it, and a refused value's reason is shown whole.
#[test]
fn the_model_picker_says_what_an_option_accepts_and_why_a_value_is_refused() {
    let mut app = fitted(demo());
    press(&mut app, "m");
    // nda's first option is the covariance.
    press(&mut app, "j");
    app.handle_key(&code(KeyCode::Tab));
    app.handle_key(&code(KeyCode::Enter));
    let Some(Popup::ModelPicker(p)) = &app.popup else {
        panic!("{:?}", app.popup)
    };
    assert_eq!(p.editing.as_deref(), Some(""));
    let text = screen(&app, 80, 24);
    assert!(
        text.contains("full, tied, diag or spherical") && text.contains("Now full"),
        "{text}"
    );
    press(&mut app, "round");
    app.handle_key(&code(KeyCode::Enter));
    let Some(Popup::ModelPicker(p)) = &app.popup else {
        panic!("{:?}", app.popup)
    };
    let why = p.refused.clone().unwrap();
    let text = screen(&app, 80, 24);
    let shown: String = text
        .lines()
        .map(|l| l.trim_matches(|c| c == '│' || c == ' '))
        .collect::<Vec<_>>()
        .join(" ");
    let last_word = why.split_whitespace().last().unwrap();
    assert!(shown.contains(last_word), "{why}\n{text}");
    // Esc keeps the value; an empty value is the default (for shrinkage,
    // chosen from the data).
    app.handle_key(&code(KeyCode::Esc));
    press(&mut app, "j");
    app.handle_key(&code(KeyCode::Enter));
    press(&mut app, "0.3");
    app.handle_key(&code(KeyCode::Enter));
    let picked = |app: &App| match &app.popup {
        Some(Popup::ModelPicker(p)) => p.options.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(picked(&app).shrinkage, Some(0.3));
    app.handle_key(&code(KeyCode::Enter));
    app.handle_key(&code(KeyCode::Enter));
    assert_eq!(picked(&app).shrinkage, None);
    assert_eq!(
        picked(&app).covariance,
        crate::models::CovarianceFamily::Full
    );
}

/// Issue 50: probs chosen in the picker without --probs says what to run,
/// and the model in use stays.
#[test]
fn probs_without_its_file_says_what_to_run() {
    let mut app = fitted(demo());
    press(&mut app, "m");
    let probs = 1 + crate::models::MODELS
        .iter()
        .position(|m| m.name == "probs")
        .unwrap();
    // The picker opens on the model in use (rnda); auto is above it.
    press(&mut app, "k");
    press(&mut app, &"j".repeat(probs));
    app.handle_key(&code(KeyCode::Enter));
    assert!(!app.fitting(), "{:?} {:?}", app.popup, app.message);
    let said = app.message.as_ref().unwrap();
    assert!(said.error && said.text.contains("--probs"), "{:?}", said);
    assert_eq!(app.session.model_name(), Some("rnda"));
}
