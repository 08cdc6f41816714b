use std::path::Path;

use nalgebra::DMatrix;

use super::*;
use crate::dataset::{LoadOptions, load, load_bytes};
use crate::models::SampleColumn;
use crate::models::ensemble::{disagreement_column, member_column};
use crate::review::{DecisionFilter, ExportOptions, ReviewError};

/// Six samples a..f in two classes; the fit says b and e are mislabelled.
const TEXT: &str = "id,x,label\r\na,1,p\r\nb,2,\"p\"\r\nc,3,q\r\nd,4,q\r\ne,5,p\r\nf,6,q\r\n";

fn dataset() -> Dataset {
    load_bytes(
        Path::new("mem.csv"),
        TEXT.as_bytes().to_vec(),
        &LoadOptions::default(),
    )
    .unwrap()
}

fn fit(ds: &Dataset) -> Fit {
    // P(true = q) per sample.
    let q = [0.1, 0.9, 0.8, 0.95, 0.7, 0.99];
    let posterior = DMatrix::from_fn(6, 2, |i, c| if c == 1 { q[i] } else { 1.0 - q[i] });
    let mut f = Fit::from_posterior(posterior, &ds.labels);
    f.extra.sample_columns.push(SampleColumn::new(
        "entry_lambda",
        vec![0.0, 5.0, 1.0, 2.0, 4.0, 3.0],
    ));
    f
}

/// A session store, and TEXT written as `in.csv` in a directory of its
/// own (both removed when dropped).
fn stored_input() -> (tempfile::TempDir, tempfile::TempDir, std::path::PathBuf) {
    let store = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    std::fs::write(&input, TEXT).unwrap();
    (store, dir, input)
}

fn session() -> Session {
    let ds = dataset();
    let f = fit(&ds);
    let (mut s, info) = Session::open(ds, None).unwrap();
    assert_eq!(info, ResumeInfo::New);
    s.set_fit("test", f);
    s
}

fn ids(s: &Session) -> Vec<String> {
    s.view()
        .iter()
        .map(|&i| s.dataset().ids[i].clone())
        .collect()
}

#[test]
fn the_view_ranks_by_p_mislabel_and_other_keys() {
    let mut s = session();
    // p_mislabel: a .1, b .9, c .2, d .05, e .7, f .01
    assert_eq!(ids(&s), ["b", "e", "c", "a", "d", "f"]);
    s.set_sort(SortKey::Id, true);
    assert_eq!(ids(&s), ["f", "e", "d", "c", "b", "a"]);
    s.set_sort(SortKey::Column("entry_lambda".into()), true);
    assert_eq!(ids(&s), ["b", "e", "f", "d", "c", "a"]);
    s.set_sort(SortKey::Row, false);
    assert_eq!(ids(&s), ["a", "b", "c", "d", "e", "f"]);
    s.cycle_sort();
    assert_eq!(s.sort_key(), &SortKey::PMislabel);
    // This fit has no flip table and no shifts, so gamma would sort nothing.
    s.cycle_sort();
    assert_eq!(s.sort_key(), &SortKey::Column("entry_lambda".into()));
    s.cycle_sort_back();
    s.cycle_sort_back();
    assert_eq!(s.sort_key(), &SortKey::Row);
    assert!(!s.sort_descending());
}

/// What `all` reports: one p_mislabel column per member and disagreement.
fn ensemble_fit(ds: &Dataset) -> Fit {
    let mut f = fit(ds);
    f.extra.sample_columns.clear();
    for (name, values) in [
        ("rnda", [0.2, 0.9, 0.1, 0.0, 0.9, 0.0]),
        ("rlr", [0.0, 0.9, 0.3, 0.1, 0.5, 0.0]),
    ] {
        f.extra
            .sample_columns
            .push(member_column(name, values.to_vec()));
    }
    f.extra.sample_columns.push(disagreement_column(vec![
        0.1,
        0.0,
        0.1,
        0.05,
        0.2,
        f64::NAN,
    ]));
    f
}

#[test]
fn disagreement_is_one_sort_key_press_from_the_default() {
    let ds = dataset();
    let f = ensemble_fit(&ds);
    let (mut s, _) = Session::open(ds, None).unwrap();
    assert!(
        s.sort_keys().contains(&SortKey::Gamma),
        "no fit yet: {:?}",
        s.sort_keys()
    );
    s.set_fit("all", f);
    let names: Vec<String> = s.sort_keys().iter().map(SortKey::name).collect();
    assert_eq!(
        names,
        [
            "p_mislabel",
            "disagreement",
            "p_mislabel_rnda",
            "p_mislabel_rlr",
            "given",
            "suggested",
            "id",
            "row"
        ]
    );
    s.cycle_sort();
    assert_eq!(s.sort_key(), &SortKey::Column("disagreement".into()));
    assert!(s.sort_descending());
    // Most disputed first; a tie follows the model's ranking (c's
    // p_mislabel .2 before a's .1); no score last.
    assert_eq!(ids(&s), ["e", "c", "a", "d", "b", "f"]);
    s.cycle_sort();
    assert_eq!(ids(&s), ["b", "e", "a", "c", "d", "f"]);
    s.cycle_sort_back();
    s.cycle_sort_back();
    assert_eq!(s.sort_key(), &SortKey::PMislabel);
}

/// The order comes from how a model asks its columns to be shown, never
/// from their names.
#[test]
fn columns_are_offered_as_their_display_asks_whatever_their_names() {
    use crate::models::ColumnDisplay;
    let ds = dataset();
    let mut f = fit(&ds);
    let column = |name: &str, display| SampleColumn::new(name, vec![0.0; 6]).with_display(display);
    f.extra.sample_columns = vec![
        column("plain", ColumnDisplay::default()),
        column(
            "unsortable",
            ColumnDisplay {
                sortable: false,
                ..ColumnDisplay::default()
            },
        ),
        column(
            "wanted_next",
            ColumnDisplay {
                sort_first: true,
                ..ColumnDisplay::default()
            },
        ),
        column(
            "first_but_unsortable",
            ColumnDisplay {
                sort_first: true,
                sortable: false,
                ..ColumnDisplay::default()
            },
        ),
    ];
    let (mut s, _) = Session::open(ds, None).unwrap();
    s.set_fit("any", f);
    let names: Vec<String> = s.sort_keys().iter().map(SortKey::name).collect();
    assert_eq!(
        names,
        [
            "p_mislabel",
            "wanted_next",
            "plain",
            "given",
            "suggested",
            "id",
            "row"
        ]
    );
}

#[test]
fn a_new_fit_without_the_sorted_column_falls_back_to_p_mislabel() {
    let ds = dataset();
    let all = ensemble_fit(&ds);
    let plain = fit(&ds);
    let (mut s, _) = Session::open(ds, None).unwrap();
    s.set_fit("all", all);
    s.set_sort(SortKey::Column("disagreement".into()), true);
    s.set_fit("test", plain);
    assert_eq!(s.sort_key(), &SortKey::PMislabel);
    assert_eq!(ids(&s), ["b", "e", "c", "a", "d", "f"]);
}

#[test]
fn filters_combine() {
    let mut s = session();
    s.set_filter(Filter {
        class: Some(0),
        min_p_mislabel: Some(0.5),
        ..Filter::default()
    });
    assert_eq!(ids(&s), ["b", "e"]);
    s.keep(s.view()[0]).unwrap();
    s.set_filter(Filter {
        decision: Some(DecisionFilter::Undecided),
        id_contains: Some("E".into()),
        ..Filter::default()
    });
    assert_eq!(ids(&s), ["e"]);
    s.set_filter(Filter::default());
    assert_eq!(s.counts().shown, 6);
}

#[test]
fn decisions_undo_and_redo_one_step_at_a_time() {
    let mut s = session();
    assert_eq!(s.accept_suggestion(1).unwrap(), Accepted::Relabelled);
    assert_eq!(s.decision(1), Some(Decision::Relabel(1)));
    s.drop_sample(3).unwrap();
    assert!(s.undo().unwrap());
    assert_eq!(s.decision(3), None);
    assert!(s.redo().unwrap());
    assert_eq!(s.decision(3), Some(Decision::Drop));
    assert!(s.undo().unwrap() && s.undo().unwrap());
    assert_eq!(s.decision(1), None);
    assert!(!s.undo().unwrap());
    // A new decision clears what could be redone.
    s.keep(0).unwrap();
    assert!(!s.redo().unwrap());
}

#[test]
fn keep_and_drop_toggle_and_relabel_to_the_given_label_is_keep() {
    let mut s = session();
    s.keep(0).unwrap();
    assert_eq!(s.decision(0), Some(Decision::Keep));
    s.keep(0).unwrap();
    assert_eq!(s.decision(0), None);
    s.drop_sample(0).unwrap();
    s.drop_sample(0).unwrap();
    assert_eq!(s.decision(0), None);
    s.relabel(0, 0).unwrap();
    assert_eq!(s.decision(0), Some(Decision::Keep));
    s.relabel(0, 1).unwrap();
    assert_eq!(s.decision(0), Some(Decision::Relabel(1)));
    s.clear(0).unwrap();
    assert_eq!(s.decision(0), None);
    assert_eq!(s.relabel(0, 9), Err(ReviewError::NoSuchClass(9)));
    assert_eq!(s.keep(99), Err(ReviewError::NoSuchSample(99)));
}

#[test]
fn accept_does_nothing_without_a_fit_and_keeps_where_the_model_agrees() {
    let (mut s, _) = Session::open(dataset(), None).unwrap();
    assert_eq!(s.accept_suggestion(1).unwrap(), Accepted::Unscored);
    assert!(!s.has_unexported());
    let mut s = session();
    assert_eq!(s.accept_suggestion(0).unwrap(), Accepted::Kept);
    assert_eq!(s.decision(0), Some(Decision::Keep));
    // Again: still kept (accept never toggles), and one undo step only.
    assert_eq!(s.accept_suggestion(0).unwrap(), Accepted::Kept);
    assert_eq!(s.decision(0), Some(Decision::Keep));
    assert!(s.undo().unwrap());
    assert_eq!(s.decision(0), None);
    assert!(!s.undo().unwrap());
}

#[test]
fn accept_all_above_is_one_undo_step_over_undecided_samples() {
    let mut s = session();
    s.keep(4).unwrap();
    assert_eq!(s.accept_all_above(0.5).unwrap(), 1);
    assert_eq!(s.decision(1), Some(Decision::Relabel(1)));
    assert_eq!(s.decision(4), Some(Decision::Keep));
    s.clear(4).unwrap();
    assert_eq!(s.accept_all_above(0.5).unwrap(), 1);
    assert_eq!(s.decision(4), Some(Decision::Relabel(1)));
    assert!(s.undo().unwrap());
    assert_eq!(s.decision(4), None);
    assert_eq!(s.decision(1), Some(Decision::Relabel(1)));
}

#[test]
fn counts_follow_decisions_and_the_threshold() {
    let mut s = session();
    s.accept_suggestion(1).unwrap();
    s.keep(0).unwrap();
    s.drop_sample(2).unwrap();
    let c = s.counts();
    assert_eq!(
        (c.total, c.decided, c.relabelled, c.kept, c.dropped),
        (6, 3, 1, 1, 1)
    );
    assert_eq!(c.flagged, 2);
    s.set_threshold(0.15).unwrap();
    assert_eq!(s.counts().flagged, 3);
    assert!(s.has_unexported());
}

#[test]
fn cursor_follows_its_sample_and_clamps_when_the_view_shrinks() {
    let mut s = session();
    s.cursor_bottom();
    assert_eq!(s.cursor(), 5);
    s.move_cursor(10);
    assert_eq!(s.cursor(), 5);
    s.move_cursor(-100);
    assert_eq!(s.selected(), Some(1));
    s.move_cursor(1);
    assert_eq!(s.selected(), Some(4));
    s.set_sort(SortKey::Row, false);
    assert_eq!(s.selected(), Some(4));
    s.cursor_bottom();
    s.set_filter(Filter {
        class: Some(0),
        ..Filter::default()
    });
    assert_eq!(s.cursor(), 2);
    assert!(s.select_sample(0));
    assert!(!s.select_sample(2));
}

#[test]
fn search_jumps_and_wraps_both_ways() {
    let text = "id,x,label\nT1,1,p\nN1,2,q\nT2,3,p\nN2,4,q\n";
    let ds = load_bytes(
        Path::new("m.csv"),
        text.as_bytes().to_vec(),
        &LoadOptions::default(),
    )
    .unwrap();
    let (mut s, _) = Session::open(ds, None).unwrap();
    assert!(s.search("t"));
    assert_eq!(s.selected(), Some(0));
    assert!(s.search_next());
    assert_eq!(s.selected(), Some(2));
    assert!(s.search_next());
    assert_eq!(s.selected(), Some(0));
    assert!(s.search_prev());
    assert_eq!(s.selected(), Some(2));
    assert!(!s.search("zzz"));
    // Comments are searched too.
    s.comment(3, "ask Dr Rao").unwrap();
    s.comment(1, "scan blurred").unwrap();
    assert!(s.search("rao"));
    assert_eq!(s.selected(), Some(3));
    assert!(s.search("BLUR"));
    assert_eq!(s.selected(), Some(1));
    assert!(s.search_next(), "the only match wraps to itself");
    assert_eq!(s.selected(), Some(1));
}

#[test]
fn classes_by_posterior_puts_the_likeliest_first() {
    let s = session();
    assert_eq!(s.classes_by_posterior(1), [1, 0]);
    assert_eq!(s.classes_by_posterior(0), [0, 1]);
}

#[test]
fn refit_labels_apply_relabels_and_leave_out_drops() {
    let mut s = session();
    s.accept_suggestion(1).unwrap();
    s.drop_sample(3).unwrap();
    let (samples, labels) = s.refit_labels();
    assert_eq!(samples, [0, 1, 2, 4, 5]);
    assert_eq!(labels, [0, 1, 1, 0, 1]);
}

#[test]
fn a_subset_fit_leaves_the_others_unscored_and_last() {
    let mut s = session();
    let ds = dataset();
    let sub = Fit::from_posterior(
        DMatrix::from_row_slice(2, 2, &[0.2, 0.8, 0.9, 0.1]),
        &[ds.labels[0], ds.labels[2]],
    );
    s.set_fit_subset("test", sub, &[0, 2]);
    assert_eq!(ids(&s)[..2], ["c", "a"]);
    assert!(s.fit().unwrap().p_mislabel[1].is_nan());
    assert_eq!(s.accept_suggestion(1).unwrap(), Accepted::Unscored);
}

#[test]
fn the_journal_restores_every_decision_after_a_crash() {
    let (store, _dir, input) = stored_input();
    let ds = load(&input, &LoadOptions::default()).unwrap();
    let f = fit(&ds);
    let (mut s, info) = Session::open(ds, Some(store.path())).unwrap();
    assert_eq!(info, ResumeInfo::New);
    s.set_fit("m", f);
    s.accept_suggestion(1).unwrap();
    s.accept_all_above(0.5).unwrap();
    s.drop_sample(3).unwrap();
    s.undo().unwrap();
    s.set_model_choice("rnda", &ModelOptions::default())
        .unwrap();
    // No export. (Dropping only closes the journal and frees its lock, as
    // a crash would: every entry was synced when it was made. Forgetting
    // it instead would hold the lock, which a dead process cannot.)
    drop(s);

    let ds = load(&input, &LoadOptions::default()).unwrap();
    let (mut s, info) = Session::open(ds, Some(store.path())).unwrap();
    assert_eq!(info, ResumeInfo::Resumed { decisions: 2 });
    assert_eq!(s.decision(1), Some(Decision::Relabel(1)));
    assert_eq!(s.decision(4), Some(Decision::Relabel(1)));
    assert_eq!(s.decision(3), None);
    assert_eq!(s.model_choice().map(|m| m.0).as_deref(), Some("rnda"));
    assert!(s.has_unexported());
    // The undo stack came back too.
    assert!(s.redo().unwrap());
    assert_eq!(s.decision(3), Some(Decision::Drop));
    assert!(s.undo().unwrap() && s.undo().unwrap());
    assert_eq!(s.decision(4), None);
}

#[test]
fn nothing_is_unexported_once_undo_is_back_at_what_was_exported() {
    let mut s = session();
    s.keep(0).unwrap();
    assert!(s.has_unexported());
    s.undo().unwrap();
    assert!(!s.has_unexported(), "no decision left, nothing to export");
    s.redo().unwrap();
    assert!(s.has_unexported());

    // With an export and a journal, live and replayed alike.
    let (store, _dir, input) = stored_input();
    let open = || {
        let ds = load(&input, &LoadOptions::default()).unwrap();
        Session::open(ds, Some(store.path())).unwrap().0
    };
    let mut s = open();
    s.keep(0).unwrap();
    s.export(&ExportOptions::default()).unwrap();
    s.keep(1).unwrap();
    assert!(s.has_unexported());
    s.undo().unwrap();
    assert!(!s.has_unexported(), "back at what the export wrote");
    s.undo().unwrap();
    assert!(s.has_unexported(), "the export wrote a keep undone since");
    drop(s);
    let mut s = open();
    assert!(s.has_unexported());
    s.redo().unwrap();
    assert!(!s.has_unexported());
}

#[test]
fn a_changed_input_starts_a_new_session_and_says_so() {
    let store = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    std::fs::write(&input, TEXT).unwrap();
    let (mut s, _) = Session::open(
        load(&input, &LoadOptions::default()).unwrap(),
        Some(store.path()),
    )
    .unwrap();
    s.keep(0).unwrap();
    drop(s);
    std::fs::write(&input, TEXT.replace("a,1", "a,7")).unwrap();
    let (s, info) = Session::open(
        load(&input, &LoadOptions::default()).unwrap(),
        Some(store.path()),
    )
    .unwrap();
    assert_eq!(info, ResumeInfo::InputChanged);
    assert_eq!(s.counts().decided, 0);
}

#[test]
fn export_changes_only_the_decided_cells_and_writes_an_audit() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    std::fs::write(&input, TEXT).unwrap();
    let ds = load(&input, &LoadOptions::default()).unwrap();
    let f = fit(&ds);
    let (mut s, _) = Session::open(ds, None).unwrap();
    s.set_fit("m", f);
    s.accept_suggestion(1).unwrap();
    s.relabel(4, 1).unwrap();
    s.drop_sample(3).unwrap();
    s.keep(0).unwrap();
    let opts = ExportOptions {
        model: "m".into(),
        ..ExportOptions::default()
    };
    let summary = s.export(&opts).unwrap();
    assert_eq!(summary.cleaned, dir.path().join("in.cleaned.csv"));
    assert_eq!(
        (summary.relabelled, summary.dropped, summary.kept),
        (2, 1, 1)
    );
    let cleaned = std::fs::read_to_string(&summary.cleaned).unwrap();
    assert_eq!(
        cleaned,
        // b's label was quoted, and its new one is too (R's write.csv style).
        "id,x,label\r\na,1,p\r\nb,2,\"q\"\r\nc,3,q\r\ne,5,q\r\nf,6,q\r\n"
    );
    let audit = std::fs::read_to_string(&summary.audit).unwrap();
    let lines: Vec<&str> = audit.lines().collect();
    assert_eq!(
        lines[0],
        "row,id,given,new_label_or_action,p_mislabel,model,time,comment"
    );
    assert!(
        lines[1].starts_with("0,a,p,keep,0.100000,m,"),
        "{}",
        lines[1]
    );
    assert!(lines[2].starts_with("1,b,p,q,0.900000,m,"), "{}", lines[2]);
    assert!(lines[3].starts_with("3,d,q,drop,"), "{}", lines[3]);
    assert!(!s.has_unexported());
    assert_eq!(std::fs::read_to_string(&input).unwrap(), TEXT);

    // Never silently over an existing file; replaced when confirmed.
    let again = s.export(&opts).unwrap_err();
    assert_eq!(again, ReviewError::Exists(summary.cleaned.clone()));
    let forced = ExportOptions {
        overwrite: true,
        ..opts.clone()
    };
    assert!(s.export(&forced).is_ok());
    // Never over the input, even when asked.
    let over = ExportOptions {
        out: Some(input.clone()),
        overwrite: true,
        ..opts
    };
    assert!(matches!(
        s.export(&over),
        Err(ReviewError::WouldOverwriteInput(_))
    ));
}

#[test]
fn export_can_keep_dropped_rows_with_a_flag() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    std::fs::write(&input, "x,label\n1,p\n2,q\n").unwrap();
    let (mut s, _) = Session::open(load(&input, &LoadOptions::default()).unwrap(), None).unwrap();
    s.drop_sample(1).unwrap();
    let out = dir.path().join("o.csv");
    let summary = s
        .export(&ExportOptions {
            out: Some(out.clone()),
            keep_dropped_with_flag: true,
            ..ExportOptions::default()
        })
        .unwrap();
    assert_eq!(summary.audit, dir.path().join("o.audit.csv"));
    assert_eq!(
        std::fs::read_to_string(out).unwrap(),
        "x,label,relabel_action\n1,p,\n2,q,drop\n"
    );
}

/// A session on a file in `dir` with a journal in `store`.
fn open_in(input: &Path, store: &Path) -> (Session, ResumeInfo) {
    Session::open(load(input, &LoadOptions::default()).unwrap(), Some(store)).unwrap()
}

/// Five decisions on in.csv, journalled in `store`; returns the input and
/// the journal's path.
fn five_decisions(dir: &Path, store: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let input = dir.join("in.csv");
    std::fs::write(&input, TEXT).unwrap();
    let (mut s, _) = open_in(&input, store);
    s.keep(0).unwrap();
    s.relabel(1, 1).unwrap();
    s.drop_sample(2).unwrap();
    s.keep(3).unwrap();
    s.relabel(4, 1).unwrap();
    let journal = s.journal_path().unwrap().to_path_buf();
    (input, journal)
}

fn insert_line(journal: &Path, at: usize, line: &[u8]) -> Vec<u8> {
    let bytes = std::fs::read(journal).unwrap();
    let mut lines: Vec<Vec<u8>> = bytes
        .split_inclusive(|b| *b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    let mut damaged = line.to_vec();
    damaged.push(b'\n');
    lines.insert(at - 1, damaged);
    let bytes = lines.concat();
    std::fs::write(journal, &bytes).unwrap();
    bytes
}

#[test]
fn a_damaged_line_mid_journal_loses_no_decision_and_is_reported() {
    let store = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (input, journal) = five_decisions(dir.path(), store.path());
    let damaged = insert_line(&journal, 4, b"\0\0garbage\0\0");
    let (s, info) = open_in(&input, store.path());
    assert_eq!(info, ResumeInfo::Resumed { decisions: 5 });
    assert_eq!(s.journal_recovery().skipped, [4]);
    let notes = s.journal_notices();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("(4)") && notes[0].contains(".bak"),
        "{notes:?}"
    );
    assert_eq!(std::fs::read(&journal).unwrap(), damaged, "not cut");
}

#[test]
fn a_damaged_header_still_resumes_the_session() {
    let store = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (input, journal) = five_decisions(dir.path(), store.path());
    let bytes = std::fs::read(&journal).unwrap();
    let first_end = bytes.iter().position(|b| *b == b'\n').unwrap();
    let mut damaged = b"{\"kind\":\"hXXXXX".to_vec();
    damaged.extend_from_slice(&bytes[first_end..]);
    std::fs::write(&journal, &damaged).unwrap();
    let (mut s, info) = open_in(&input, store.path());
    assert_eq!(info, ResumeInfo::Resumed { decisions: 5 });
    assert!(s.journal_recovery().header_damaged);
    s.keep(5).unwrap();
    drop(s);
    assert!(std::fs::read(&journal).unwrap().starts_with(&damaged));
    let (_, info) = open_in(&input, store.path());
    assert_eq!(info, ResumeInfo::Resumed { decisions: 6 });
}

#[test]
fn a_second_session_on_the_same_file_is_read_only_until_the_first_closes() {
    let store = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (input, journal) = five_decisions(dir.path(), store.path());
    let (mut first, _) = open_in(&input, store.path());
    assert_eq!(first.read_only_holder(), None);
    let (mut second, info) = open_in(&input, store.path());
    assert_eq!(info, ResumeInfo::Resumed { decisions: 5 });
    let holder = second.read_only_holder().unwrap().to_string();
    assert!(holder.contains(&format!("pid {}", std::process::id())));
    assert!(second.journal_notices()[0].starts_with("read-only"));
    let before = std::fs::read(&journal).unwrap();
    let e = second.keep(5).unwrap_err();
    assert!(matches!(e, ReviewError::ReadOnly { .. }), "{e}");
    assert_eq!(second.decision(5), None, "refused, not kept in memory");
    assert!(
        second.relabel(1, 1).is_err(),
        "even a decision that changes nothing is refused"
    );
    assert!(second.undo().is_err());
    assert!(
        matches!(second.comment(0, "x"), Err(ReviewError::ReadOnly { .. })),
        "a comment is refused as a decision is"
    );
    assert_eq!(second.comment_of(0), None);
    // Choosing a model and exporting read the session: they still work.
    second
        .set_model_choice("rnda", &ModelOptions::default())
        .unwrap();
    let summary = second.export(&ExportOptions::default()).unwrap();
    assert_eq!(summary.relabelled, 2);
    assert_eq!(std::fs::read(&journal).unwrap(), before, "nothing written");
    // The first one's undo undoes its own step, nobody else's.
    first.keep(5).unwrap();
    assert!(first.undo().unwrap());
    assert_eq!(first.decision(5), None);
    drop(second);
    drop(first);
    let (mut third, info) = open_in(&input, store.path());
    assert_eq!(info, ResumeInfo::Resumed { decisions: 5 });
    third.keep(5).unwrap();
}

#[test]
fn export_from_journal_works_while_a_screen_holds_the_session() {
    let store = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (input, _) = five_decisions(dir.path(), store.path());
    let (_screen, _) = open_in(&input, store.path());
    let mut notes = Vec::new();
    let summary = crate::review::export_from_journal(
        &input,
        &LoadOptions::default(),
        store.path(),
        &ExportOptions::default(),
        &mut |n| notes.push(n.to_string()),
    )
    .unwrap();
    assert_eq!(
        (summary.relabelled, summary.dropped, summary.kept),
        (2, 1, 2)
    );
    assert!(
        notes.iter().any(|n| n.starts_with("read-only")),
        "{notes:?}"
    );
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A refit with the decisions pins a decided sample's posterior at its
/// decision (p_mislabel 1 for a relabel); the audit still says what the
/// curator was shown before deciding, by the model that showed it, after a
/// change of mind, an undo and a reopen of the session.
#[test]
fn the_audit_keeps_what_the_curator_was_shown_before_deciding() {
    let (store, _dir, input) = stored_input();
    let ds = load(&input, &LoadOptions::default()).unwrap();
    let f = fit(&ds);
    let labels = ds.labels.clone();
    let (mut s, _) = Session::open(ds, Some(store.path())).unwrap();
    s.set_fit("first", f);
    s.relabel(1, 1).unwrap();
    // The refit: b pinned at q, c now 0.4 suspect.
    let q = [0.1, 1.0, 0.6, 0.95, 0.7, 0.99];
    let pinned = DMatrix::from_fn(6, 2, |i, c| if c == 1 { q[i] } else { 1.0 - q[i] });
    s.set_fit("refit", Fit::from_posterior(pinned, &labels));
    assert!((s.fit().unwrap().p_mislabel[1] - 1.0).abs() < 1e-12);
    s.keep(1).unwrap();
    s.undo().unwrap();
    s.drop_sample(2).unwrap();
    drop(s);

    let ds = load(&input, &LoadOptions::default()).unwrap();
    let (mut s, _) = Session::open(ds, Some(store.path())).unwrap();
    let f = fit(s.dataset());
    s.set_fit("third", f);
    let summary = s
        .export(&ExportOptions {
            model: "third".into(),
            ..ExportOptions::default()
        })
        .unwrap();
    let audit = std::fs::read_to_string(&summary.audit).unwrap();
    let lines: Vec<&str> = audit.lines().collect();
    assert_eq!(lines.len(), 3, "{audit}");
    assert!(
        lines[1].starts_with("1,b,p,q,0.900000,first,"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].starts_with("2,c,q,drop,0.400000,refit,"),
        "{}",
        lines[2]
    );
}

/// An undo puts back the decision it replaced with that decision's time,
/// and a redo the undone one with its own; a reopened session replays
/// them so.
#[test]
fn undo_and_redo_carry_each_decisions_time() {
    let (store, _dir, input) = stored_input();
    let ds = load(&input, &LoadOptions::default()).unwrap();
    let (mut s, _) = Session::open(ds, Some(store.path())).unwrap();
    s.relabel(1, 1).unwrap();
    s.keep(1).unwrap();
    let journal = s.journal_path().unwrap().to_path_buf();
    drop(s);
    // The two steps, one at a time the clock could not have given twice.
    let text = std::fs::read_to_string(&journal).unwrap();
    let mut steps = 0;
    let lines: Vec<String> = text
        .lines()
        .map(|l| {
            let mut e: serde_json::Value = serde_json::from_str(l).unwrap();
            if e["kind"] == "step" {
                steps += 1;
                e["time"] = format!("2020-01-01T00:00:0{steps}Z").into();
            }
            e.to_string()
        })
        .collect();
    assert_eq!(steps, 2);
    std::fs::write(&journal, lines.join("\n") + "\n").unwrap();

    let ds = load(&input, &LoadOptions::default()).unwrap();
    let (mut s, _) = Session::open(ds, Some(store.path())).unwrap();
    assert_eq!(s.decided_at(1), Some("2020-01-01T00:00:02Z"));
    s.undo().unwrap();
    assert_eq!(s.decision(1), Some(Decision::Relabel(1)));
    assert_eq!(s.decided_at(1), Some("2020-01-01T00:00:01Z"));
    s.undo().unwrap();
    assert_eq!(s.decided_at(1), None);
    s.redo().unwrap();
    s.redo().unwrap();
    assert_eq!(s.decision(1), Some(Decision::Keep));
    assert_eq!(s.decided_at(1), Some("2020-01-01T00:00:02Z"));
    s.undo().unwrap();
    drop(s);
    // Replayed: the undo written last is undone with its time too.
    let ds = load(&input, &LoadOptions::default()).unwrap();
    let (s, _) = Session::open(ds, Some(store.path())).unwrap();
    assert_eq!(s.decision(1), Some(Decision::Relabel(1)));
    assert_eq!(s.decided_at(1), Some("2020-01-01T00:00:01Z"));
}

#[test]
fn the_audit_is_put_in_place_before_the_cleaned_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    std::fs::write(&input, TEXT).unwrap();
    let (mut s, _) = Session::open(load(&input, &LoadOptions::default()).unwrap(), None).unwrap();
    s.keep(0).unwrap();
    // The cleaned file's rename fails (a directory is in the way): the
    // audit is already there, and no temporary file is left.
    std::fs::create_dir(dir.path().join("in.cleaned.csv")).unwrap();
    std::fs::write(dir.path().join("in.cleaned.csv").join("x"), b"x").unwrap();
    let opts = ExportOptions {
        overwrite: true,
        ..ExportOptions::default()
    };
    assert!(s.export(&opts).is_err());
    assert_eq!(
        names(dir.path()),
        ["in.audit.csv", "in.cleaned.csv", "in.csv"]
    );
    assert!(s.has_unexported(), "a failed export is not recorded");
}

#[test]
fn an_export_removes_stale_temporary_files_of_ours_only() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    std::fs::write(&input, TEXT).unwrap();
    let aged = |name: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, b"half").unwrap();
        let f = std::fs::File::options().write(true).open(&p).unwrap();
        f.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(600))
            .unwrap();
    };
    aged(".in.cleaned.csv.relabel-tmp-Ab12Cd");
    aged(".in.audit.csv.relabel-tmp-Zz99Yy");
    aged(".in.csv.swp");
    std::fs::write(dir.path().join(".x.relabel-tmp-fresh1"), b"in progress").unwrap();
    let (mut s, _) = Session::open(load(&input, &LoadOptions::default()).unwrap(), None).unwrap();
    s.keep(0).unwrap();
    s.export(&ExportOptions::default()).unwrap();
    assert_eq!(
        names(dir.path()),
        [
            ".in.csv.swp",
            ".x.relabel-tmp-fresh1",
            "in.audit.csv",
            "in.cleaned.csv",
            "in.csv"
        ]
    );
}

/// The step counter of a journal is data like any other: the largest group
/// number replays (it overflowed `group + 1` and panicked) and the next
/// step still gets a number.
#[test]
fn a_step_numbered_u64_max_replays_without_overflow() {
    let store = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (input, journal) = five_decisions(dir.path(), store.path());
    let mut bytes = std::fs::read(&journal).unwrap();
    bytes.extend_from_slice(
        format!(
            "{{\"kind\":\"step\",\"group\":{},\"time\":\"t\",\"changes\":[{{\"row\":5,\"id\":\"f\",\"before\":null,\"after\":\"keep\"}}]}}\n",
            u64::MAX
        )
        .as_bytes(),
    );
    std::fs::write(&journal, &bytes).unwrap();
    let (mut s, info) = open_in(&input, store.path());
    assert_eq!(info, ResumeInfo::Resumed { decisions: 6 });
    assert!(s.undo().unwrap());
    assert_eq!(s.decision(5), None);
    s.keep(5).unwrap();
}

#[test]
fn a_refit_learns_decisions_as_known_true_classes() {
    let mut s = session();
    let v0 = s.decisions_version();
    s.relabel(1, 1).unwrap(); // b: p -> q
    s.keep(2).unwrap(); // c stays q
    s.drop_sample(3).unwrap();
    assert_ne!(s.decisions_version(), v0);
    let (samples, labels, guide) = s.refit_inputs();
    assert_eq!(samples, vec![0, 1, 2, 4, 5]);
    assert_eq!(
        labels,
        vec![0, 0, 1, 0, 1],
        "given labels, not the decisions"
    );
    assert_eq!(guide.trusted, vec![None, Some(1), Some(1), None, None]);
    let warm = guide.warm.unwrap();
    assert_eq!(warm.nrows(), 5);
    assert!((warm[(1, 1)] - 0.9).abs() < 1e-12, "the current posterior");
    let v1 = s.decisions_version();
    s.undo().unwrap();
    assert_ne!(s.decisions_version(), v1, "undo changes the evidence too");
}

#[test]
fn decided_samples_sink_and_the_expected_count_leaves_them_out() {
    let mut s = session();
    let before = s.counts().expected_wrong;
    // p_mislabel: a .1, b .9, c .2, d .05, e .7, f .01.
    assert!((before - (0.1 + 0.9 + 0.2 + 0.05 + 0.7 + 0.01)).abs() < 1e-9);
    s.relabel(1, 1).unwrap();
    assert!((s.counts().expected_wrong - (before - 0.9)).abs() < 1e-9);
    // A decision leaves the list in place until it is ranked again.
    assert_eq!(s.view()[0], 1);
    let f = s.fit().unwrap().clone();
    s.set_fit("test", f);
    assert_eq!(
        *s.view().last().unwrap(),
        1,
        "decided sinks below undecided"
    );
    assert_eq!(s.view()[0], 4, "e is the most suspicious undecided");
}

#[test]
fn a_refit_that_moves_a_sample_far_reports_it() {
    let n = 100;
    let mut csv = String::from("id,x,label\n");
    for i in 0..n {
        csv.push_str(&format!("s{i},{i},{}\n", ["p", "q"][i % 2]));
    }
    let ds = load_bytes(
        Path::new("m.csv"),
        csv.into_bytes(),
        &LoadOptions::default(),
    )
    .unwrap();
    let labels = ds.labels.clone();
    let p = |i: usize| i as f64 / n as f64;
    let posterior = DMatrix::from_fn(n, 2, |i, c| if c == labels[i] { 1.0 - p(i) } else { p(i) });
    let (mut s, _) = Session::open(ds, None).unwrap();
    s.set_fit("m", Fit::from_posterior(posterior.clone(), &labels));
    assert!(
        s.moved().is_empty(),
        "nothing to compare the first fit with"
    );
    // Sample 0 goes from last to first: a move of 99 ranks; the rest shift by one.
    let mut next = posterior;
    next[(0, labels[0])] = 0.0;
    next[(0, 1 - labels[0])] = 1.0;
    s.set_fit("m", Fit::from_posterior(next, &labels));
    assert_eq!(s.moved(), &[0]);
}

#[test]
fn comments_survive_a_crash_stay_out_of_undo_and_count_as_unexported() {
    let (store, _dir, input) = stored_input();
    let (mut s, _) = open_in(&input, store.path());
    s.keep(0).unwrap();
    assert!(s.comment(1, "  asked the lab,\nno reply  ").unwrap());
    assert_eq!(
        s.comment_of(1),
        Some("asked the lab, no reply"),
        "one line, trimmed"
    );
    assert!(
        !s.comment(1, "asked the lab, no reply").unwrap(),
        "unchanged"
    );
    s.comment(2, "blurred").unwrap();
    s.comment(2, " ").unwrap();
    assert_eq!(s.comment_of(2), None, "empty removes");
    // Undo takes back the last decision, not the comment.
    assert!(s.undo().unwrap());
    assert_eq!(s.decision(0), None);
    assert_eq!(s.comment_of(1), Some("asked the lab, no reply"));
    assert!(s.has_unexported(), "a comment alone is worth exporting");
    drop(s);

    let (mut s, _) = open_in(&input, store.path());
    assert_eq!(s.comment_of(1), Some("asked the lab, no reply"));
    assert_eq!(s.comment_of(2), None);
    assert_eq!(s.comments().len(), 1);
    assert!(s.has_unexported());
    s.export(&ExportOptions::default()).unwrap();
    assert!(!s.has_unexported());
    s.comment(1, "lab says tumour").unwrap();
    assert!(s.has_unexported());
    s.comment(1, "asked the lab, no reply").unwrap();
    assert!(!s.has_unexported(), "back at what the export wrote");
    drop(s);
    let (s, _) = open_in(&input, store.path());
    assert!(
        !s.has_unexported(),
        "replayed: the export wrote this comment"
    );
}

#[test]
fn the_audit_carries_comments_and_commented_undecided_samples() {
    let (store, dir, input) = stored_input();
    let (mut s, _) = open_in(&input, store.path());
    s.set_fit("m", fit(s.dataset()));
    s.relabel(1, 1).unwrap();
    s.comment(1, "label swapped at intake, \"see sheet 2\"")
        .unwrap();
    s.comment(4, "ask Dr Rao").unwrap();
    s.keep(5).unwrap();
    let summary = s.export(&ExportOptions::default()).unwrap();
    assert_eq!((summary.relabelled, summary.commented), (1, 2));
    let audit = std::fs::read_to_string(&summary.audit).unwrap();
    let mut reader = csv::Reader::from_reader(audit.as_bytes());
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(header.last().map(String::as_str), Some("comment"));
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let cell = |r: &csv::StringRecord, name: &str| {
        r[header.iter().position(|h| h == name).unwrap()].to_string()
    };
    let ids: Vec<String> = rows.iter().map(|r| cell(r, "id")).collect();
    assert_eq!(
        ids,
        ["b", "e", "f"],
        "input order; e is there for its comment"
    );
    assert_eq!(cell(&rows[0], "new_label_or_action"), "q");
    assert_eq!(
        cell(&rows[0], "comment"),
        "label swapped at intake, \"see sheet 2\""
    );
    assert_eq!(cell(&rows[1], "new_label_or_action"), "undecided");
    assert_eq!(cell(&rows[1], "comment"), "ask Dr Rao");
    assert_eq!(
        cell(&rows[1], "p_mislabel"),
        "0.700000",
        "what the screen shows"
    );
    assert!(!cell(&rows[1], "time").is_empty());
    assert_eq!(cell(&rows[2], "comment"), "");
    // The cleaned file changes only the decided label.
    let cleaned = std::fs::read_to_string(&summary.cleaned).unwrap();
    assert_eq!(cleaned, TEXT.replace("b,2,\"p\"", "b,2,\"q\""));
    drop(dir);
}

#[test]
fn the_commented_filter_shows_commented_samples_as_they_change() {
    let mut s = session();
    s.comment(3, "check").unwrap();
    s.set_filter(Filter {
        commented: true,
        ..Filter::default()
    });
    assert_eq!(ids(&s), ["d"]);
    s.comment(0, "also").unwrap();
    assert_eq!(ids(&s), ["a", "d"], "by p_mislabel, as the list sorts");
    s.comment(3, "").unwrap();
    assert_eq!(ids(&s), ["a"]);
    assert_eq!(s.filter().describe(&s.dataset().classes), "commented");
}

/// TEXT with the classes renamed: p -> `p`, q -> `q`.
fn session_with_classes(p: &str, q: &str) -> Session {
    let text = TEXT
        .replace(",p\r", &format!(",{p}\r"))
        .replace(",\"p\"\r", &format!(",{p}\r"))
        .replace(",q\r", &format!(",{q}\r"));
    let ds = load_bytes(
        Path::new("mem.csv"),
        text.into_bytes(),
        &LoadOptions::default(),
    )
    .unwrap();
    let f = fit(&ds);
    let (mut s, _) = Session::open(ds, None).unwrap();
    s.set_fit("test", f);
    s
}

/// The key the detail pane shows beside `class` for `sample`.
fn key_for_class(s: &Session, sample: usize, class: usize) -> Option<u8> {
    s.keyed_classes(sample)
        .into_iter()
        .find(|&(c, _)| c == class)
        .and_then(|(_, key)| key)
}

#[test]
fn digit_keys_count_classes_by_posterior_unless_classes_are_digits() {
    // Named classes: 1 is the likeliest, 2 the next (b: q 0.9, p 0.1).
    let s = session_with_classes("p", "q");
    let (p, q) = (
        s.dataset().class_index("p").unwrap(),
        1 - s.dataset().class_index("p").unwrap(),
    );
    assert!(!s.digit_keys_name_classes());
    assert_eq!(s.class_for_key(1, 1), Some(q));
    assert_eq!(s.class_for_key(1, 2), Some(p));
    assert_eq!(s.class_for_key(1, 3), None);
    assert_eq!(key_for_class(&s, 1, p), Some(2));
    // a: p 0.9 is the likeliest there.
    assert_eq!(s.class_for_key(0, 1), Some(p));

    // Classes "1" and "2": a key is the class of its name, whatever the
    // posterior says, so key 1 never relabels to "2".
    let s = session_with_classes("1", "2");
    let (one, two) = (
        s.dataset().class_index("1").unwrap(),
        s.dataset().class_index("2").unwrap(),
    );
    assert!(s.digit_keys_name_classes());
    for sample in 0..6 {
        assert_eq!(s.class_for_key(sample, 1), Some(one));
        assert_eq!(s.class_for_key(sample, 2), Some(two));
        assert_eq!(s.class_for_key(sample, 3), None);
        assert_eq!(key_for_class(&s, sample, two), Some(2));
    }

    // 0/1 labels: key 0 reaches class "0"; a class not named by a digit
    // has no key (the class picker reaches it).
    let s = session_with_classes("0", "other");
    let zero = s.dataset().class_index("0").unwrap();
    assert_eq!(s.class_for_key(1, 0), Some(zero));
    assert_eq!(s.class_for_key(1, 1), None);
    assert_eq!(key_for_class(&s, 1, 1 - zero), None);
}

/// Issue 51: the input changed on disk during a review is named before a
/// journal append and an export, never silently exported from the old
/// bytes; a file touched without a change is still the same input.
#[test]
fn a_changed_input_is_refused_until_the_curator_chooses() {
    let (store, dir, input) = stored_input();
    let (mut s, _) = Session::open(
        load(&input, &LoadOptions::default()).unwrap(),
        Some(store.path()),
    )
    .unwrap();
    s.keep(0).unwrap();
    // The same bytes written again: not a change.
    std::fs::write(&input, TEXT).unwrap();
    s.drop_sample(1).unwrap();
    // A row appended from outside.
    std::fs::write(&input, format!("{TEXT}g,7,p\r\n")).unwrap();
    assert!(s.input_changed());
    let e = s.keep(2).unwrap_err();
    assert!(matches!(e, ReviewError::InputChanged(_)), "{e}");
    assert!(e.to_string().contains("changed on disk"), "{e}");
    assert_eq!(s.decision(2), None, "not shown as made");
    let out = ExportOptions::default();
    assert!(matches!(
        s.export(&out).unwrap_err(),
        ReviewError::InputChanged(_)
    ));
    assert!(!dir.path().join("in.cleaned.csv").exists());
    // Going on with the loaded version: decisions are saved, and the
    // export of the loaded bytes takes a name of its own.
    s.keep_loaded_version();
    s.keep(2).unwrap();
    let summary = s.export(&out).unwrap();
    assert_eq!(summary.cleaned, dir.path().join("in.as-loaded.cleaned.csv"));
    assert_eq!(summary.audit, dir.path().join("in.as-loaded.audit.csv"));
    assert!(!dir.path().join("in.cleaned.csv").exists());
    let cleaned = std::fs::read_to_string(&summary.cleaned).unwrap();
    assert!(!cleaned.contains("g,7,p"), "the loaded bytes: {cleaned}");
}

/// Until the curator sets a threshold it is the fit's own cutoff (as many
/// rows as the fit expects wrong labels); the one the curator set wins over
/// every fit and comes back with the session.
#[test]
fn the_threshold_is_kept_with_the_session() {
    let (store, _dir, input) = stored_input();
    let open = || {
        Session::open(
            load(&input, &LoadOptions::default()).unwrap(),
            Some(store.path()),
        )
        .unwrap()
        .0
    };
    let mut s = open();
    assert_eq!(s.threshold(), 0.5);
    let f = fit(s.dataset());
    // p_mislabel .1 .9 .2 .05 .7 .01: about 2 wrong, b and e.
    s.set_fit("test", f.clone());
    assert_eq!(s.threshold(), f.flag_cutoff());
    assert_eq!((s.threshold(), s.counts().flagged), (0.7, 2));
    s.set_threshold(0.3).unwrap();
    s.set_fit("test", f.clone());
    assert_eq!(s.threshold(), 0.3);
    drop(s);
    let mut s = open();
    assert_eq!(s.threshold(), 0.3);
    s.set_fit("test", f);
    assert_eq!(s.threshold(), 0.3);
}

/// Issue 50: a refit keeps the row being read in its place with the
/// scores it was shown until the cursor moves; a decision on it applies
/// what was on screen; what the refit changed is counted.
#[test]
fn a_refit_never_changes_the_row_being_read() {
    let ds = dataset();
    let (mut s, _) = Session::open(ds, None).unwrap();
    s.set_fit("m", fit(s.dataset()));
    // The view by p_mislabel: b (0.9 for q, given p), e, then the others.
    s.cursor_to(1);
    let reading = s.selected().unwrap();
    let shown_p = s.fit_of(reading).unwrap().p_mislabel[reading];
    let shown_suggestion = s.fit_of(reading).unwrap().suggested[reading];
    // The refit says the opposite of every sample.
    let q = [0.9, 0.1, 0.2, 0.05, 0.3, 0.01];
    let posterior = DMatrix::from_fn(6, 2, |i, c| if c == 1 { q[i] } else { 1.0 - q[i] });
    let refit = Fit::from_posterior(posterior, &s.dataset().labels);
    s.keep_selected_through_next_fit();
    s.set_fit("m", refit);
    assert_eq!(s.cursor(), 1, "same place");
    assert_eq!(s.selected(), Some(reading), "same sample");
    assert_eq!(s.fit_of(reading).unwrap().p_mislabel[reading], shown_p);
    let r = s.reranked().unwrap();
    assert!(r.rose > 0 && r.fell > 0 && r.new_suggestion > 0, "{r:?}");
    // Accepting applies the suggestion that was on screen.
    assert_eq!(s.accept_suggestion(reading).unwrap(), Accepted::Relabelled);
    assert_eq!(
        s.decision(reading),
        Some(Decision::Relabel(shown_suggestion))
    );
    // Moving on: the pin goes and the list is the refit's order.
    s.move_cursor(1);
    assert_eq!(s.pinned(), None);
    assert_ne!(s.fit_of(reading).unwrap().p_mislabel[reading], shown_p);
}

/// Issue 50: the demo and its sample file (the same bytes) keep separate
/// sessions; a file opened fresh starts with no decisions and its earlier
/// session is set aside, not deleted.
#[test]
fn the_demo_and_its_file_do_not_share_a_session_and_fresh_sets_aside() {
    let store = tempfile::tempdir().unwrap();
    let opts = LoadOptions::default();
    let demo = crate::app::load_or_demo(None, &opts).unwrap();
    let (mut s, _) = Session::open(demo, Some(store.path())).unwrap();
    s.drop_sample(0).unwrap();
    drop(s);
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_data/iris_noisy.csv");
    let (mut s, info) = Session::open(load(&file, &opts).unwrap(), Some(store.path())).unwrap();
    assert_eq!(info, ResumeInfo::New);
    assert_eq!(s.counts().decided, 0);
    s.keep(3).unwrap();
    drop(s);
    let demo = crate::app::load_or_demo(None, &opts).unwrap();
    let (s, info) = Session::open(demo, Some(store.path())).unwrap();
    assert_eq!(info, ResumeInfo::Resumed { decisions: 1 });
    assert!(s.decision(0).is_some() && s.decision(3).is_none());
    drop(s);
    let (s, info) = Session::open_fresh(load(&file, &opts).unwrap(), Some(store.path())).unwrap();
    assert_eq!(s.counts().decided, 0);
    let ResumeInfo::Fresh {
        set_aside: Some(kept),
    } = info
    else {
        panic!("{info:?}")
    };
    assert!(std::fs::read_to_string(&kept).unwrap().contains("keep"));
    drop(s);
    let listed = crate::review::sessions::list(store.path()).unwrap();
    assert_eq!(listed.len(), 2, "{listed:?}");
}
