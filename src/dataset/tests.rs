#![allow(clippy::unwrap_used)]

use std::path::Path;

use super::*;

#[path = "../../tests/common/files.rs"]
mod files;
use files::write_in;

fn load_str(text: &str, opts: &LoadOptions) -> Result<Dataset, DataError> {
    load_bytes(Path::new("t.csv"), text.as_bytes().to_vec(), opts)
}

fn ok(text: &str) -> Dataset {
    load_str(text, &LoadOptions::default()).unwrap()
}

fn error(text: &str, opts: &LoadOptions) -> String {
    load_str(text, opts).unwrap_err().to_string()
}

/// The default options but string columns one-hot encoded.
fn onehot() -> LoadOptions {
    LoadOptions {
        categorical: CategoricalPolicy::Onehot,
        ..LoadOptions::default()
    }
}

/// The cleaned file, as text, with sample `i` relabelled `to`.
fn relabelled(d: &Dataset, i: usize, to: &str) -> String {
    String::from_utf8(rewrite(d, &[(i, CellEdit::Relabel(to.into()))], None)).unwrap()
}

#[test]
fn label_is_the_named_column_else_a_conventional_name_else_the_last() {
    let d = ok("a,Class,b\n1,x,2\n3,y,4\n");
    assert_eq!(d.label_name, "Class");
    assert_eq!(d.feature_names, ["a", "b"]);
    let d = ok("a,b,outcome\n1,2,x\n3,4,y\n");
    assert_eq!(d.label_name, "outcome");
    let opts = LoadOptions {
        label: Some("a".into()),
        ..LoadOptions::default()
    };
    let d = load_str("a,b,c\nx,2,3\ny,4,5\n", &opts).unwrap();
    assert_eq!(d.classes, ["x", "y"]);
    assert_eq!(d.feature_names, ["b", "c"]);
}

#[test]
fn an_unknown_label_or_id_or_ignore_column_lists_the_columns() {
    for opts in [
        LoadOptions {
            label: Some("nope".into()),
            ..LoadOptions::default()
        },
        LoadOptions {
            id: Some("nope".into()),
            ..LoadOptions::default()
        },
        LoadOptions {
            ignore: vec!["nope".into()],
            ..LoadOptions::default()
        },
    ] {
        let e = error("a,b,label\n1,2,x\n3,4,y\n", &opts);
        assert!(
            e.contains("\"nope\"") && e.contains("the columns are: a, b, label"),
            "{e}"
        );
    }
}

#[test]
fn id_column_is_used_when_unique_and_dropped_when_not() {
    let d = ok("id,a,label\ns1,1,x\ns2,2,y\n");
    assert_eq!(d.ids, ["s1", "s2"]);
    assert_eq!(d.feature_names, ["a"]);
    let d = ok("name,a,label\ns1,1,x\ns1,2,y\n");
    assert_eq!(d.id_name, None);
    assert_eq!(d.ids, ["0", "1"]);
    assert_eq!(d.feature_names, ["a"]);
    let opts = LoadOptions {
        id: Some("name".into()),
        ..LoadOptions::default()
    };
    let e = error("name,a,label\ns1,1,x\ns1,2,y\n", &opts);
    assert!(e.contains("repeated values"), "{e}");
}

#[test]
fn a_repeated_column_name_is_never_guessed_between() {
    let csv = "id,a,a,label\ns1,1,2,x\ns2,3,4,y\n";
    // Both columns are features...
    assert_eq!(ok(csv).feature_names, ["a", "a"]);
    // ...--ignore leaves out both...
    let opts = LoadOptions {
        ignore: vec!["a".into()],
        ..LoadOptions::default()
    };
    let e = error(csv, &opts);
    assert!(e.contains("no feature columns are left"), "{e}");
    let d = load_str("id,a,a,b,label\ns1,1,2,5,x\ns2,3,4,6,y\n", &opts).unwrap();
    assert_eq!(d.feature_names, ["b"]);
    // ...and --label or --id naming it is an error that says which two.
    for opts in [
        LoadOptions {
            label: Some("a".into()),
            ..LoadOptions::default()
        },
        LoadOptions {
            id: Some("a".into()),
            ..LoadOptions::default()
        },
    ] {
        let e = error(csv, &opts);
        assert!(
            e.contains("t.csv:1:3: columns 2 and 3 are both named \"a\""),
            "{e}"
        );
        assert!(e.contains("rename one in the header"), "{e}");
    }
}

#[test]
fn ignored_columns_are_not_features() {
    let opts = LoadOptions {
        ignore: vec!["b".into()],
        ..LoadOptions::default()
    };
    let d = load_str("a,b,label\n1,z,x\n2,w,y\n", &opts).unwrap();
    assert_eq!(d.feature_names, ["a"]);
}

#[test]
fn a_bad_cell_names_line_column_and_the_fixes() {
    // A word among numbers is a typo: levels (onehot) would not take it.
    let e = error("a,b,label\n1,2,x\n3,oops,y\n", &LoadOptions::default());
    assert!(
        e.starts_with(
            "t.csv:3:2: cannot read \"oops\" as a number in column \"b\", whose other cells are numbers"
        ) && e.contains("mark it missing (NA), or use --ignore b"),
        "{e}"
    );
    // A column of words: leave it out, or read its levels.
    let e = error("a,b,label\n1,u,x\n3,v,y\n", &LoadOptions::default());
    assert!(
        e.starts_with("t.csv:2:2: cannot read \"u\" as a number in column \"b\" —")
            && e.contains("--ignore b")
            && e.contains("--categorical onehot"),
        "{e}"
    );
    // A value written as a detection limit is the curator's to replace.
    let e = error("a,b,label\n1,2,x\n3,<0.01,y\n", &LoadOptions::default());
    assert!(e.contains("beyond a detection limit"), "{e}");
    // The typographic minus is a minus.
    let d = ok("a,b,label\n1,\u{2212}2.5,x\n3,4,y\n");
    assert_eq!(d.x[(0, 1)], -2.5);
}

#[test]
fn line_numbers_count_newlines_inside_quoted_fields() {
    let multiline = LoadOptions {
        multiline_cells: true,
        ..LoadOptions::default()
    };
    let e = error("a,b,label\n1,\"2\",\"multi\nline\"\n3,bad,y\n", &multiline);
    assert!(e.starts_with("t.csv:4:2:"), "{e}");
}

#[test]
fn an_unclosed_quote_is_refused_where_it_opens() {
    // Issue 12: the quote before b swallowed the rest of the file.
    let text = "id,f1,f2,label\n1,0.1,1.0,a\n2,0.2,2.0,\"b\n3,0.3,1.5,b\n4,0.4,2.5,a\n";
    let e = error(text, &LoadOptions::default());
    assert!(
        e.starts_with("t.csv:3:4: a quote opens here and is never closed"),
        "{e}"
    );
    assert!(!e.contains('\n'), "{e}");
    // In the header, with no delimiter sniffed before it.
    let e = error("a,\"b\n1,x\n", &LoadOptions::default());
    assert!(e.starts_with("t.csv:1:2: a quote opens"), "{e}");
    let e = error("\"a\n1,x\n", &LoadOptions::default());
    assert!(e.starts_with("t.csv:1:"), "{e}");
}

#[test]
fn a_label_or_id_over_several_lines_is_refused_unless_allowed() {
    let text = "id,a,label\ns1,1,\"x\n\ns2,2,y\"\ns3,3,y\ns4,4,x\n";
    let e = error(text, &LoadOptions::default());
    assert!(
        e.starts_with("t.csv:2:3: the label in column \"label\" spans lines 2-4")
            && e.contains("--multiline-cells")
            && !e.contains('\n'),
        "{e}"
    );
    let allowed = LoadOptions {
        multiline_cells: true,
        ..LoadOptions::default()
    };
    let d = load_str(text, &allowed).unwrap();
    assert_eq!(d.classes, ["x\n\ns2,2,y", "y", "x"]);
    let e = error(
        "id,a,label\n\"s\n1\",1,x\ns2,2,y\n",
        &LoadOptions::default(),
    );
    assert!(
        e.starts_with("t.csv:2:1: the id in column \"id\" spans lines 2-3"),
        "{e}"
    );
    // Transposed: the label row and the sample ids in the header.
    let opts = LoadOptions {
        transpose: true,
        ..LoadOptions::default()
    };
    let e = error("gene,s1,s2\ng1,1,2\nlabel,\"a\nb\",c\n", &opts);
    assert!(
        e.starts_with("t.csv:3:2: the label in row \"label\" spans lines 3-4"),
        "{e}"
    );
    let e = error("gene,\"s\n1\",s2\ng1,1,2\nlabel,a,c\n", &opts);
    assert!(e.starts_with("t.csv:1:2: the sample id"), "{e}");
}

#[test]
fn a_row_swallowed_by_a_quote_says_which_lines() {
    let e = error(
        "a,b,label\n1,2\"x\n3,4\",y,z\n5,6,x\n",
        &LoadOptions::default(),
    );
    assert!(
        e.starts_with("t.csv:2: this row has 4 fields")
            && e.contains("a quote opened on line 2 is closed only on line 3"),
        "{e}"
    );
}

#[test]
fn messages_show_cells_on_one_line_and_short() {
    let long = "y".repeat(10_000);
    for text in [
        "a,b,label\n1,\"x\ny\",p\n2,3,q\n".to_string(),
        format!("a,b,label\n1,{long},p\n2,3,q\n"),
        "a,b,label\n1,\u{1b}[2J,p\n2,3,q\n".to_string(),
    ] {
        let e = error(&text, &LoadOptions::default());
        assert!(e.contains("cannot read \""), "{e}");
        assert!(!e.chars().any(char::is_control), "{e}");
        assert!(e.len() < 400, "{} characters: {e}", e.len());
    }
    let opts = LoadOptions {
        label: Some("no\nsuch".into()),
        ..LoadOptions::default()
    };
    let e = error("a,b,label\n1,2,p\n2,3,q\n", &opts);
    assert!(e.contains("\"no\\nsuch\""), "{e}");
}

#[cfg(unix)]
#[test]
fn what_is_not_a_regular_file_is_refused_before_it_is_opened() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.csv");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        // Opening a FIFO with no writer would block this test forever.
        let e = load(&fifo, &LoadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("named pipe (FIFO), not a regular file"), "{e}");
    }
    let e = load(Path::new("/dev/zero"), &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("/dev/zero: this is a device"), "{e}");
    let e = load(dir.path(), &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("a directory, not a regular file"), "{e}");
    // A symlink to a regular file is read through it, gzip included.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, b"a,label\n1,x\n2,y\n").unwrap();
    let target = write_in(dir.path(), "t.csv.gz", gz.finish().unwrap());
    let link = dir.path().join("link.csv");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let d = load(&link, &LoadOptions::default()).unwrap();
    assert!(d.raw.gzip);
    assert_eq!(d.classes, ["x", "y"]);
}

#[test]
fn wrong_field_count_names_the_line() {
    let e = error("a,b,label\n1,2,x\n3,y\n", &LoadOptions::default());
    assert!(
        e.starts_with("t.csv:3:") && e.contains("2 fields but the header has 3"),
        "{e}"
    );
    assert!(
        e.contains("missing or extra delimiter") && !e.contains("title"),
        "{e}"
    );
    // A title line above the header, as spreadsheets export one.
    let e = error(
        "Measurements, 2024\n\na,b,label\n1,2,x\n3,4,y\n",
        &LoadOptions::default(),
    );
    assert!(
        e.starts_with("t.csv:3:") && e.contains("if the lines above line 3 are a title"),
        "{e}"
    );
    let transposed = LoadOptions {
        transpose: true,
        ..LoadOptions::default()
    };
    let e = error(
        "Genes, batch 2\ngene,s1,s2\ng1,1,2\nlabel,x,y\n",
        &transposed,
    );
    assert!(e.contains("if the lines above line 2 are a title"), "{e}");
}

#[test]
fn empty_label_is_an_error() {
    let e = error("a,label\n1,x\n2,\n", &LoadOptions::default());
    assert!(
        e.starts_with("t.csv:3:2:") && e.contains("needs a label"),
        "{e}"
    );
}

#[test]
fn infinite_values_are_errors() {
    let e = error("a,label\n1,x\ninf,y\n", &LoadOptions::default());
    assert!(e.starts_with("t.csv:3:1:") && e.contains("finite"), "{e}");
}

#[test]
fn a_single_class_is_an_error() {
    let e = error("a,label\n1,x\n2,x\n", &LoadOptions::default());
    assert!(e.contains("nothing to tell apart"), "{e}");
}

#[test]
fn missing_values_error_drop_or_mean() {
    let text = "a,b,label\n1,2,x\nNA,4,y\n5,?,x\n7,8,y\n";
    let e = error(text, &LoadOptions::default());
    assert!(
        e.starts_with("t.csv:3:1: missing value in column \"a\""),
        "{e}"
    );
    assert!(
        e.contains("--missing drop") && e.contains("--missing mean"),
        "{e}"
    );

    let d = load_str(
        text,
        &LoadOptions {
            missing: MissingPolicy::Drop,
            ..LoadOptions::default()
        },
    )
    .unwrap();
    assert_eq!(d.rows, [0, 3]);
    assert_eq!(d.dropped.len(), 2);
    assert_eq!(d.x[(1, 0)], 7.0);

    let d = load_str(
        text,
        &LoadOptions {
            missing: MissingPolicy::Mean,
            ..LoadOptions::default()
        },
    )
    .unwrap();
    assert_eq!(d.x[(1, 0)], (1.0 + 5.0 + 7.0) / 3.0);
    assert_eq!(d.x[(2, 1)], (2.0 + 4.0 + 8.0) / 3.0);
}

#[test]
fn a_word_in_a_numeric_column_is_an_error_even_with_onehot() {
    let opts = onehot();
    let e = load_str("a,b,label\n1,2,x\n3,oops,y\n5,6,x\n", &opts)
        .unwrap_err()
        .to_string();
    assert!(e.contains(":3:2") && e.contains("oops"), "{e}");
    assert!(e.contains("--ignore b"), "{e}");
}

/// A column's texts are kept from its first string on, the cells before it
/// read again: the levels are the same as when every text was kept.
#[test]
fn a_string_column_whose_first_cells_are_missing_keeps_every_level() {
    let opts = onehot();
    let d = load_str("v,n,label\n?,1,d\n ? ,2,r\ny,3,d\nn,4,r\n", &opts).unwrap();
    assert_eq!(d.categorical[0].levels, ["?", "y", "n"]);
    assert_eq!(d.categorical[0].codes, [0, 0, 1, 2]);
    assert_eq!(d.feature_names, ["v=?", "v=y", "v=n", "n"]);
}

#[test]
fn onehot_turns_levels_into_columns_and_keeps_the_levels() {
    let opts = onehot();
    let d = load_str("v1,v2,n,label\ny,n,1,d\nn,?,2,r\ny,y,3,d\n", &opts).unwrap();
    assert_eq!(
        d.feature_names,
        ["v1=y", "v1=n", "v2=n", "v2=?", "v2=y", "n"]
    );
    assert_eq!(
        d.x.row(1).iter().copied().collect::<Vec<_>>(),
        [0.0, 1.0, 0.0, 1.0, 0.0, 2.0]
    );
    assert_eq!(d.categorical[1].levels, ["n", "?", "y"]);
    assert_eq!(d.categorical[1].codes, [0, 1, 2]);
    let (levels, names) = d.source_matrix();
    assert_eq!(names, ["v1", "v2", "n"]);
    assert_eq!(
        levels.row(1).iter().copied().collect::<Vec<_>>(),
        [1.0, 1.0, 2.0]
    );
}

#[test]
fn delimiters_are_sniffed_and_can_be_forced() {
    assert_eq!(ok("a;b;label\n1;2;x\n3;4;y\n").feature_names, ["a", "b"]);
    assert_eq!(
        ok("a\tb\tlabel\n1\t2\tx\n3\t4\ty\n").feature_names,
        ["a", "b"]
    );
    let opts = LoadOptions {
        delimiter: Some(b'|'),
        ..LoadOptions::default()
    };
    assert_eq!(
        load_str("a|label\n1|x\n2|y\n", &opts)
            .unwrap()
            .feature_names,
        ["a"]
    );
}

#[test]
fn bom_crlf_and_quotes_are_read() {
    let d = ok("\u{feff}id,a,label\r\n\"s,1\",1,\"x y\"\r\n s2 ,2,z\r\n");
    assert_eq!(d.ids, ["s,1", "s2"]);
    assert_eq!(d.classes, ["x y", "z"]);
}

#[test]
fn transposed_sheets_take_samples_from_the_header() {
    let text = "gene,s1,s2,s3\ng1,1,2,3\nlabel,t,n,t\ng2,4,5,6\n";
    let opts = LoadOptions {
        transpose: true,
        ..LoadOptions::default()
    };
    let d = load_str(text, &opts).unwrap();
    assert_eq!(d.ids, ["s1", "s2", "s3"]);
    assert_eq!(d.feature_names, ["g1", "g2"]);
    assert_eq!(d.classes, ["t", "n"]);
    assert_eq!(d.x[(1, 1)], 5.0);
    assert_eq!(d.rows, [0, 1, 2]);
    let e = error("gene,s1,s2\ng1,1,oops\nlabel,t,n\n", &opts);
    assert!(e.starts_with("t.csv:2:3:"), "{e}");
    let e = error("gene,s1,s2\ng1,1,2\n", &opts);
    assert!(e.contains("--label ROW"), "{e}");
}

#[test]
fn rewrite_without_edits_is_the_input_byte_for_byte() {
    let text = "id,a,label\r\n\"q,1\",1,x\r\n\r\nq2,2,\"y\"\r\nq3,3,x";
    let d = ok(text);
    assert_eq!(rewrite(&d, &[], None), text.as_bytes());
}

#[test]
fn rewrite_changes_only_the_label_cells_and_drops_rows() {
    let text = "id,a,label\r\n\"q,1\",1,x\r\nq2,2,\"y\"\r\nq3,3,x\r\n";
    let d = ok(text);
    let out = rewrite(
        &d,
        &[
            (0, CellEdit::Relabel("y".into())),
            (1, CellEdit::Drop),
            (2, CellEdit::Relabel("a,b".into())),
        ],
        None,
    );
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "id,a,label\r\n\"q,1\",1,y\r\nq3,3,\"a,b\"\r\n"
    );
}

#[test]
fn rewrite_can_keep_dropped_rows_with_a_flag_column() {
    let d = ok("a,label\n1,x\n2,y\n");
    let out = rewrite(&d, &[(1, CellEdit::Drop)], Some("relabel_action"));
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "a,label,relabel_action\n1,x,\n2,y,drop\n"
    );
}

#[test]
fn rewrite_of_a_transposed_sheet_edits_the_label_row_and_removes_columns() {
    let text = "gene,s1,s2,s3\ng1,1,2,3\nlabel,t,n,t\n";
    let opts = LoadOptions {
        transpose: true,
        ..LoadOptions::default()
    };
    let d = load_str(text, &opts).unwrap();
    let out = rewrite(
        &d,
        &[(0, CellEdit::Relabel("n".into())), (1, CellEdit::Drop)],
        None,
    );
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "gene,s1,s3\ng1,1,3\nlabel,n,t\n"
    );
    let out = rewrite(&d, &[(1, CellEdit::Drop)], Some("flag"));
    assert_eq!(
        String::from_utf8(out).unwrap(),
        format!("{text}flag,,drop,\n")
    );
}

#[test]
fn rewrite_keeps_rows_dropped_for_missing_values() {
    let text = "a,label\n1,x\nNA,y\n3,y\n";
    let d = load_str(
        text,
        &LoadOptions {
            missing: MissingPolicy::Drop,
            ..LoadOptions::default()
        },
    )
    .unwrap();
    let out = rewrite(&d, &[(1, CellEdit::Relabel("x".into()))], None);
    assert_eq!(String::from_utf8(out).unwrap(), "a,label\n1,x\nNA,y\n3,x\n");
}

#[test]
fn gzip_files_load() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(b"a,label\n1,x\n2,y\n").unwrap();
    let path = write_in(dir.path(), "t.csv.gz", enc.finish().unwrap());
    let d = load(&path, &LoadOptions::default()).unwrap();
    assert!(d.raw.gzip);
    assert_eq!(d.raw.bytes, b"a,label\n1,x\n2,y\n");
    let e = load(&dir.path().join("none.csv"), &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("cannot read the file"), "{e}");
}

#[test]
fn a_test_table_is_read_with_the_training_schema() {
    let opts = onehot();
    let d = load_str("id,a,c,label\ns1,1,u,x\ns2,2,v,y\n", &opts).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let test = write_in(dir.path(), "test.csv", "c,a,id\nv,5,t1\nw,6,t2\n");
    let TestTable { x, labels, ids } = d.load_compatible(&test).unwrap();
    assert_eq!(labels, None);
    assert_eq!(ids, ["t1", "t2"]);
    assert_eq!(
        x.row(0).iter().copied().collect::<Vec<_>>(),
        [5.0, 0.0, 1.0]
    );
    assert_eq!(
        x.row(1).iter().copied().collect::<Vec<_>>(),
        [6.0, 0.0, 0.0]
    );
    std::fs::write(&test, "c,id\nv,t1\n").unwrap();
    let e = d.load_compatible(&test).unwrap_err().to_string();
    assert!(e.contains("no column \"a\""), "{e}");
}

#[test]
fn log2_transforms_training_and_test_tables_and_refuses_non_positive_values() {
    let opts = LoadOptions {
        log2: true,
        ..LoadOptions::default()
    };
    let d = load_str("a,b,label\n8,1,x\n2,4,y\n", &opts).unwrap();
    assert_eq!(d.x[(0, 0)], 3.0);
    assert_eq!(d.x[(1, 1)], 2.0);
    // The export rewrites the raw file: the original text is kept.
    assert!(String::from_utf8_lossy(&d.raw.bytes).contains("8,1,x"));
    let dir = tempfile::tempdir().unwrap();
    let test = write_in(dir.path(), "test.csv", "a,b\n16,2\n");
    let t = d.load_compatible(&test).unwrap();
    assert_eq!(t.x.row(0).iter().copied().collect::<Vec<_>>(), [4.0, 1.0]);
    std::fs::write(&test, "a,b\n0,2\n").unwrap();
    let e = d.load_compatible(&test).unwrap_err().to_string();
    assert!(e.contains("test.csv:2:1") && e.contains("positive"), "{e}");
    let e = error("a,b,label\n8,1,x\n2,-4,y\n", &opts);
    assert!(e.contains("t.csv:3:2") && e.contains("--log2"), "{e}");
}

#[test]
fn a_wide_table_that_looks_raw_is_read_logged_by_the_command_lines_rule() {
    let (wide, narrow) = super::log_scale::raw_tables();
    let rule = |log_rule| LoadOptions {
        log_rule,
        ..LoadOptions::default()
    };
    let logged = load_str(&wide, &rule(LogRule::WhenRaw)).unwrap();
    assert!(
        matches!(logged.log_scale, LogScale::Chosen(_)),
        "{:?}",
        logged.log_scale
    );
    assert_eq!(logged.x[(0, 0)], 2.0, "4 read as 2");
    let never = load_str(&wide, &rule(LogRule::Never)).unwrap();
    assert_eq!((never.log_scale, never.x[(0, 0)]), (LogScale::AsRead, 4.0));
    let advised = load_str(&wide, &rule(LogRule::Advise)).unwrap();
    assert!(matches!(advised.log_scale, LogScale::Advised(_)));
    // The scale is what the models see, not what a sample is: a review
    // begun on one scale resumes on the other.
    assert_eq!(
        crate::review::journal::session_key(&logged),
        crate::review::journal::session_key(&never)
    );
    // A test table is read as the training table was.
    let dir = tempfile::tempdir().unwrap();
    let header: Vec<String> = (0..12).map(|g| format!("g{g}")).collect();
    let row = |v: &str| [v; 12].join(",");
    let test = write_in(
        dir.path(),
        "test.csv",
        format!("{}\n{}\n", header.join(","), row("16")),
    );
    let t = logged.load_compatible(&test).unwrap();
    assert!(t.x.iter().all(|&v| v == 4.0), "{}", t.x);
    std::fs::write(
        &test,
        format!("{}\n0,{}\n", header.join(","), &row("1")[2..]),
    )
    .unwrap();
    let e = logged.load_compatible(&test).unwrap_err().to_string();
    assert!(e.contains("test.csv:2:1") && e.contains("--no-log2"), "{e}");
    // More rows than features: held-out fits can tell the scales apart,
    // so the curator is advised and the values are read as they are.
    let narrow = load_str(&narrow, &rule(LogRule::WhenRaw)).unwrap();
    let shape = RawShape::Skewed {
        skewed: 2,
        numeric: 3,
    };
    assert_eq!(
        (narrow.log_scale, narrow.x[(3, 0)]),
        (LogScale::Advised(shape), 8.0)
    );
    // Symmetric columns stay as read, without a word.
    let symmetric = "a,b,c,d,e,label\n1,5,2,3,4,x\n2,6,3,4,5,y\n3,7,4,5,6,x\n";
    let d = load_str(symmetric, &rule(LogRule::WhenRaw)).unwrap();
    assert_eq!(d.log_scale, LogScale::AsRead);
}

#[test]
fn values_too_large_to_square_are_refused_naming_the_column() {
    let e = error("a,b,label\n1,1e308,x\n2,3,y\n", &LoadOptions::default());
    assert!(
        e.starts_with("t.csv:2:2: column \"b\" has \"1e308\", too large") && e.contains("rescale"),
        "{e}"
    );
    assert!(load_str("a,b,label\n1,-1e150,x\n2,3,y\n", &LoadOptions::default()).is_ok());
    // --log2 brings them down.
    let opts = LoadOptions {
        log2: true,
        ..LoadOptions::default()
    };
    let d = load_str("a,b,label\n1,1e308,x\n2,3,y\n", &opts).unwrap();
    assert!(d.x.iter().all(|v| v.is_finite()));
}

#[test]
fn a_string_column_with_too_many_levels_is_refused_naming_it() {
    let onehot = onehot();
    // An identifier beside the id column: one level per row.
    let mut text = String::from("id,a,code,label\n");
    for i in 0..60 {
        text.push_str(&format!("s{i},{i},c{i},{}\n", ["x", "y"][i % 2]));
    }
    let e = error(&text, &onehot);
    assert!(
        e.starts_with("t.csv:1:3: column \"code\" has 60 different strings among 60 samples")
            && e.contains("--ignore code"),
        "{e}"
    );
    // Over the absolute cap, however many rows.
    let mut text = String::from("a,code,label\n");
    for i in 0..1000 {
        text.push_str(&format!("{i},c{},{}\n", i % 101, ["x", "y"][i % 2]));
    }
    let e = error(&text, &onehot);
    assert!(e.contains("has 101 different strings among 1000"), "{e}");
    // A handful of levels in a small table, or 100 levels seen twice each, are categories.
    assert!(load_str("a,c,label\n1,u,x\n2,v,y\n3,w,x\n", &onehot).is_ok());
    let mut text = String::from("a,code,label\n");
    for i in 0..200 {
        text.push_str(&format!("{i},c{},{}\n", i % 100, ["x", "y"][i % 2]));
    }
    assert_eq!(load_str(&text, &onehot).unwrap().n_features(), 101);
}

/// A samples-as-rows table read in `chunks` chunks of records, through the
/// policies, as (matrix, names, classes, labels, ids, kept, dropped), or the
/// error's text.
fn rows_in_chunks(text: &str, opts: &LoadOptions, chunks: usize) -> String {
    let path = Path::new("t.csv");
    let read = || -> Result<String, DataError> {
        let (records, delimiter) = read::table_records(path, text.as_bytes(), None)?;
        let grid = grid::samples_as_rows_in(
            path,
            text.as_bytes(),
            &records,
            delimiter,
            opts,
            chunks,
            None,
        )?;
        let b = build::build(path, grid, opts)?;
        Ok(format!(
            "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
            b.x.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            b.x.shape(),
            b.feature_names,
            b.classes,
            b.labels,
            b.ids,
            b.kept,
            b.dropped
        ))
    };
    read().unwrap_or_else(|e| format!("error: {e}"))
}

#[test]
fn chunks_read_in_parallel_give_the_table_read_in_one() {
    // Quoted cells with line breaks (ids, a label with --multiline-cells),
    // quoted numbers, CRLF, blank lines, missing values and a string column:
    // every chunk boundary falls somewhere among them.
    let text = "id,a,b,colour,label\r\n\
        \"r\n1\",1.5,\"2\",red,p\r\n\
        r2,-0.25,NA,blue,\"q\nq\"\r\n\
        \r\n\
        \"r,3\",3e2,4,red,p\n\
        r4,\"5\",?,\"gr\"\"een\",q\n\
        \"r5\n\n\",7,8,blue,\"p\"\n\
        r6, 9 ,10,red,r\n\
        r7,11,12.125,blue,q\n";
    let n = read::scan(text.as_bytes()).records.len() - 1;
    for missing in [MissingPolicy::Drop, MissingPolicy::Mean] {
        let opts = LoadOptions {
            missing,
            categorical: CategoricalPolicy::Onehot,
            multiline_cells: true,
            ..LoadOptions::default()
        };
        let whole = rows_in_chunks(text, &opts, 1);
        assert!(!whole.starts_with("error"), "{whole}");
        for chunks in 2..=n + 1 {
            assert_eq!(
                rows_in_chunks(text, &opts, chunks),
                whole,
                "{chunks} chunks"
            );
        }
    }
    // The labels' order of first appearance spans the chunks.
    let opts = LoadOptions::default();
    let text = "x,label\n1,b\n2,b\n3,a\n4,c\n5,a\n6,b\n";
    for chunks in 1..=6 {
        let got = rows_in_chunks(text, &opts, chunks);
        assert!(
            got.contains("[\"b\", \"a\", \"c\"] [0, 0, 1, 2, 1, 0]"),
            "{got}"
        );
    }
}

#[test]
fn the_earliest_bad_cell_is_named_whichever_chunk_finds_it() {
    let default = LoadOptions::default();
    let mean = LoadOptions {
        missing: MissingPolicy::Mean,
        ..LoadOptions::default()
    };
    // (table, options, what the message names)
    let cases = [
        // A bad cell in each half, the later one in an earlier column.
        (
            "a,b,label\n1,2,p\n3,x,q\n4,5,p\n6,7,q\ny,8,p\n9,10,q\n",
            &default,
            "t.csv:3:2: cannot read \"x\"",
        ),
        // Both in the same column.
        (
            "a,b,label\n1,2,p\n3,4,q\nx,5,p\n6,7,q\ny,8,p\n9,10,q\n",
            &default,
            "t.csv:4:1: cannot read \"x\"",
        ),
        // A row of the wrong width in each half.
        (
            "a,b,label\n1,2,p\n3,4,q\n5,p\n6,7,q\n8,9,10,p\n9,10,q\n",
            &default,
            "t.csv:4: this row has 2 fields",
        ),
        // A wrong width late, a bad number early: the width is found first.
        (
            "a,b,label\n1,2,p\ninf,4,q\n5,6,p\n6,7,q\n8,9,10,p\n9,10,q\n",
            &default,
            "t.csv:6: this row has 4 fields",
        ),
        // An empty label in each half.
        (
            "a,b,label\n1,2,p\n3,4,q\n5,6,\n6,7,q\n8,9, \n9,10,q\n",
            &default,
            "t.csv:4:3: the label in column \"label\" is empty",
        ),
        // Missing values: the first column that has one is named, at its
        // first (in the later chunk here).
        (
            "a,b,label\n1,2,p\n3,NA,q\n5,6,p\n6,7,q\n,9,p\n9,10,q\n",
            &default,
            "t.csv:6:1: missing value in column \"a\"",
        ),
        // Infinite values, after a missing one that --missing mean fills.
        (
            "a,b,label\n1,NA,p\n3,4,q\n5,6,p\n6,-inf,q\ninf,9,p\n9,10,q\n",
            &mean,
            "t.csv:5:2: \"-inf\" is not a finite number",
        ),
    ];
    for (text, opts, want) in cases {
        let whole = rows_in_chunks(text, opts, 1);
        assert!(whole.starts_with(&format!("error: {want}")), "{whole}");
        for chunks in 2..=7 {
            assert_eq!(rows_in_chunks(text, opts, chunks), whole, "{chunks} chunks");
        }
    }
}

#[test]
fn a_table_only_scored_lets_its_bytes_go_and_reads_the_same() {
    let text = "id,a,b,label\ns1,1,2,p\ns2,3,NA,q\ns3,5,6,q\n";
    let opts = LoadOptions {
        missing: MissingPolicy::Drop,
        ..LoadOptions::default()
    };
    let kept = load_str(text, &opts).unwrap();
    let scored = load_str(
        text,
        &LoadOptions {
            drop_raw: true,
            ..opts
        },
    )
    .unwrap();
    assert!(scored.raw.bytes.is_empty() && scored.raw.records.is_empty());
    assert_eq!(kept.raw.bytes, text.as_bytes());
    assert_eq!(
        (
            &scored.x,
            &scored.ids,
            &scored.rows,
            &scored.labels,
            &scored.dropped
        ),
        (&kept.x, &kept.ids, &kept.rows, &kept.labels, &kept.dropped)
    );
}

#[test]
fn progress_is_reported_up_to_every_record_read() {
    let mut text = String::from("a,b,label\n");
    for i in 0..40_000 {
        text.push_str(&format!("{i},{},{}\n", i % 7, ["p", "q"][i % 2]));
    }
    let dir = tempfile::tempdir().unwrap();
    let path = write_in(dir.path(), "t.csv", &text);
    let seen = std::sync::Mutex::new(Vec::new());
    let ds = load_with_progress(&path, &LoadOptions::default(), &|f| {
        seen.lock().unwrap().push(f)
    })
    .unwrap();
    assert_eq!(ds.n_samples(), 40_000);
    let mut seen = seen.into_inner().unwrap();
    seen.sort_by(f64::total_cmp);
    assert!(seen.len() >= 2, "{seen:?}");
    assert!(seen.iter().all(|f| (0.0..=1.0).contains(f)), "{seen:?}");
    assert_eq!(seen.last(), Some(&1.0));
}

#[test]
fn decimal_commas_are_read_where_fields_are_not_separated_by_commas() {
    // A semicolon table as a German or French spreadsheet exports it.
    let opts = LoadOptions {
        missing: MissingPolicy::Mean,
        ..LoadOptions::default()
    };
    let d = load_str(
        "id;a;b;label\ns1;1,5;2;x\ns2;-0,25;NA;y\ns3;3;1e3;x\n",
        &opts,
    )
    .unwrap();
    assert_eq!(d.feature_names, ["a", "b"]);
    assert_eq!(
        d.x.column(0).iter().copied().collect::<Vec<_>>(),
        [1.5, -0.25, 3.0]
    );
    assert_eq!(
        d.x.column(1).iter().copied().collect::<Vec<_>>(),
        [2.0, 501.0, 1000.0]
    );
    // Genes x samples, tab-separated.
    let opts = LoadOptions {
        transpose: true,
        ..LoadOptions::default()
    };
    let d = load_str(
        "gene\ts1\ts2\ts3\ng1\t0,5\t1\t2,25\nlabel\tx\ty\tx\n",
        &opts,
    )
    .unwrap();
    assert_eq!(
        d.x.column(0).iter().copied().collect::<Vec<_>>(),
        [0.5, 1.0, 2.25]
    );
    // The export rewrites the raw file: the cells keep their commas.
    assert!(String::from_utf8_lossy(&d.raw.bytes).contains("0,5\t1\t2,25"));
}

#[test]
fn a_comma_is_not_read_as_a_decimal_mark_where_it_could_mean_something_else() {
    // Comma-separated: "1,500" may be fifteen hundred.
    let e = error(
        "a,b,label\n\"1,5\",1,x\n\"2,5\",2,y\n",
        &LoadOptions::default(),
    );
    assert!(
        e.starts_with("t.csv:2:1") && e.contains("separated by semicolons"),
        "{e}"
    );
    // A point beside commas: two conventions, or thousands separators.
    let e = error("a;b;label\n1.5;1;x\n2,5;2;y\n", &LoadOptions::default());
    assert!(
        e.starts_with("t.csv:3:1: cannot read \"2,5\"") && e.contains("one way"),
        "{e}"
    );
    let e = error(
        "a;b;label\n1.234,5;1;x\n2.000,5;2;y\n",
        &LoadOptions::default(),
    );
    assert!(e.contains("thousands separators"), "{e}");
    // Levels that happen to hold commas stay levels.
    let opts = onehot();
    let d = load_str("a;b;label\nlow,high;1;x\nhigh,low;2;y\n", &opts).unwrap();
    assert_eq!(d.n_features(), 3);
}

#[test]
fn a_test_table_is_read_in_its_own_decimal_convention() {
    let d = ok("a;b;label\n1,5;1;x\n2,5;2;y\n");
    let dir = tempfile::tempdir().unwrap();
    let test = dir.path().join("test.csv");
    std::fs::write(&test, "a;b\n0,75;3\n").unwrap();
    let t = d.load_compatible(&test).unwrap();
    assert_eq!(t.x.row(0).iter().copied().collect::<Vec<_>>(), [0.75, 3.0]);
    std::fs::write(&test, "a,b\n0.75,3\n").unwrap();
    let t = d.load_compatible(&test).unwrap();
    assert_eq!(t.x.row(0).iter().copied().collect::<Vec<_>>(), [0.75, 3.0]);
}

#[test]
fn a_guessed_label_column_of_unique_values_is_refused_naming_the_others() {
    let mut table = String::from("species,a,b\n");
    for i in 0..40 {
        table.push_str(&format!("{},{i},{}.5\n", ["x", "y"][i % 2], i * 3));
    }
    let e = error(&table, &LoadOptions::default());
    assert!(
        e.starts_with("t.csv:1:3: column \"b\", the last (none is named")
            && e.contains("holds measurements (40 different numbers among 40 samples")
            && e.contains("--label COL: perhaps species, the only other column of words"),
        "{e}"
    );
    // Without a column of words, every other column is named.
    let numbers = table
        .replace("species", "s")
        .replace("x,", "1,")
        .replace("y,", "2,");
    let e = error(&numbers, &LoadOptions::default());
    assert!(e.contains("--label COL (the others: s, a)"), "{e}");
    // Named by the user, measurements are refused all the same (a fit
    // would flag nearly every sample), naming the column of words.
    let opts = LoadOptions {
        label: Some("b".into()),
        ..LoadOptions::default()
    };
    let e = error(&table, &opts);
    assert!(
        e.contains("column \"b\", given as --label, holds measurements")
            && e.contains("perhaps species"),
        "{e}"
    );
    // A column of integer codes with as many values is no class either.
    let codes = table.replace(".5\n", "\n");
    let e = error(&codes, &opts);
    assert!(
        e.contains("given as --label, has 40 different values among 40 samples, too many"),
        "{e}"
    );
    let opts = LoadOptions {
        label: Some("species".into()),
        ..LoadOptions::default()
    };
    assert_eq!(load_str(&table, &opts).unwrap().classes, ["x", "y"]);
    // Twenty classes are classes however few the samples.
    let mut small = String::from("a,label\n");
    for i in 0..20 {
        small.push_str(&format!("{i},c{i}\n"));
    }
    assert!(load_str(&small, &LoadOptions::default()).is_ok());
}

#[test]
fn a_windows_1252_file_keeps_its_accents_and_is_rewritten_in_its_encoding() {
    // Excel's "CSV" on French Windows: "thé" and "thè" are two classes.
    let raw = b"id;a;esp\xe8ce\ns1;1;th\xe9\ns2;2;th\xe8\ns3;3;th\xe9\n".to_vec();
    let d = load_bytes(Path::new("t.csv"), raw.clone(), &LoadOptions::default()).unwrap();
    assert_eq!(d.raw.encoding, TextEncoding::Windows1252);
    assert_eq!(d.label_name, "espèce");
    assert_eq!(d.classes, ["thé", "thè"]);
    assert_eq!(rewrite(&d, &[], None), raw);
    // Sessions are keyed by the file as it is on disk.
    assert_eq!(d.content_hash(), content_hash(&raw));
    let out = rewrite(&d, &[(1, CellEdit::Relabel("thé".into()))], None);
    assert_eq!(
        out,
        b"id;a;esp\xe8ce\ns1;1;th\xe9\ns2;2;th\xe9\ns3;3;th\xe9\n"
    );
}

#[test]
fn columns_of_one_value_are_left_out_and_named() {
    let opts = LoadOptions {
        categorical: CategoricalPolicy::Onehot,
        missing: MissingPolicy::Drop,
        ..LoadOptions::default()
    };
    // "k" is 5 in every kept sample (the row where it is 9 is dropped), "s"
    // one level: neither tells classes apart.
    let table = "a,k,s,b,label\n1,5,u,2,x\n2,5,u,3,y\n3,9,u,NA,x\n4,5,u,1,y\n";
    let d = load_str(table, &opts).unwrap();
    assert_eq!(d.feature_names, ["a", "b"]);
    assert_eq!(d.constant, ["k", "s"]);
    assert_eq!(
        d.x.column(1).iter().copied().collect::<Vec<_>>(),
        [2.0, 3.0, 1.0]
    );
    // A test table needs only the columns the model reads.
    let dir = tempfile::tempdir().unwrap();
    let test = write_in(dir.path(), "test.csv", "a,b\n7,8\n");
    assert_eq!(d.load_compatible(&test).unwrap().x.ncols(), 2);
    let e = error("a,b,label\n1,2,x\n1,2,y\n", &LoadOptions::default());
    assert!(
        e.starts_with("t.csv:1: every feature column holds one value in every sample (a, b)"),
        "{e}"
    );
}

#[test]
fn a_delimiter_ending_every_line_is_no_label_and_no_feature() {
    // As spreadsheets write it: the last field of every line is empty and
    // unnamed, and "species" is the last column the curator sees.
    let table = "sample,h,w,species,\r\nS1,30,4,cat,\r\nS2,50,20,dog,\r\nS3,31,5,cat,\r\n";
    let d = load_str(table, &LoadOptions::default()).unwrap();
    assert_eq!(d.label_name, "species");
    assert_eq!(d.classes, ["cat", "dog"]);
    assert_eq!(d.feature_names, ["h", "w"]);
    assert_eq!(d.empty, [""]);
    assert_eq!(d.ids, ["S1", "S2", "S3"]);
    // The cleaned file keeps the line as it was, but for the label.
    assert_eq!(
        relabelled(&d, 1, "cat"),
        "sample,h,w,species,\r\nS1,30,4,cat,\r\nS2,50,20,cat,\r\nS3,31,5,cat,\r\n"
    );
}

#[test]
fn a_string_column_with_a_word_per_sample_names_the_samples() {
    let table = |head: &str, n: usize| {
        let mut t = format!("{head}patient,age,label\n");
        for i in 0..n {
            let id = if head.is_empty() {
                String::new()
            } else {
                format!("{i}A,")
            };
            t.push_str(&format!("{id}P{i:03},{},{}\n", 30 + i, ["x", "y"][i % 2]));
        }
        t
    };
    // Under either categorical policy: as a feature it could only be refused.
    for categorical in [CategoricalPolicy::Error, CategoricalPolicy::Onehot] {
        let opts = LoadOptions {
            categorical,
            ..LoadOptions::default()
        };
        let d = load_str(&table("", 30), &opts).unwrap();
        assert_eq!(d.id_name.as_deref(), Some("patient"));
        assert!(d.ids_by_words);
        assert_eq!((d.ids[0].as_str(), d.ids[29].as_str()), ("P000", "P029"));
        assert_eq!(d.feature_names, ["age"]);
    }
    // With an id column it stays a feature, refused as before.
    let e = error(&table("id,", 30), &LoadOptions::default());
    assert!(e.contains("\"patient\""), "{e}");
    // Twenty samples with twenty words are twenty levels, as any column.
    let onehot = onehot();
    let d = load_str(&table("", 20), &onehot).unwrap();
    assert!(!d.ids_by_words && d.id_name.is_none());
}

#[test]
fn rows_without_a_label_are_refused_or_left_out_by_missing_drop() {
    let table = "id,a,label\ns1,1,x\ns2,2,\ns3,3,y\ns4,4, \ns5,5,x\n";
    let e = error(table, &LoadOptions::default());
    assert!(
        e.starts_with("t.csv:3:3: the label in column \"label\" is empty")
            && e.contains("--missing drop"),
        "{e}"
    );
    let drop = LoadOptions {
        missing: MissingPolicy::Drop,
        ..LoadOptions::default()
    };
    let d = load_str(table, &drop).unwrap();
    assert_eq!(d.ids, ["s1", "s3", "s5"]);
    assert_eq!(d.classes, ["x", "y"]);
    assert_eq!(
        d.dropped,
        [(1, UNLABELLED.to_string()), (3, UNLABELLED.to_string())]
    );
    // The cleaned file keeps them as they were.
    assert_eq!(
        relabelled(&d, 2, "y"),
        "id,a,label\ns1,1,x\ns2,2,\ns3,3,y\ns4,4, \ns5,5,y\n"
    );
}

#[test]
fn a_file_without_a_header_is_refused_not_read_one_sample_short() {
    // As UCI's wine.data: the class first, no header.
    let opts = LoadOptions {
        label: Some("1".into()),
        ..LoadOptions::default()
    };
    let e = error("1,14.23,1065\n1,13.2,1050\n2,12.4,520\n", &opts);
    assert!(
        e.starts_with(
            "t.csv:1: the first line, read as the header, holds only numbers (1, 14.23, 1065)"
        ),
        "{e}"
    );
    // Wavelengths for names are a header: the label column has a word.
    let d = load_str(
        "400,401.5,label\n1,2,a\n2,1,b\n1,3,a\n",
        &LoadOptions::default(),
    )
    .unwrap();
    assert_eq!(d.feature_names, ["400", "401.5"]);
    assert_eq!(d.n_samples(), 3);
}

#[test]
fn a_column_without_any_value_is_left_out_not_a_missing_value() {
    let table = "a,notes,b,label\n1,,2,x\n2,NA,3,y\n3,,1,x\n";
    let d = load_str(table, &LoadOptions::default()).unwrap();
    assert_eq!(d.feature_names, ["a", "b"]);
    assert_eq!(d.empty, ["notes"]);
    // One value is enough to keep it: then its empty cells are missing.
    let e = error(
        "a,notes,b,label\n1,,2,x\n2,7,3,y\n",
        &LoadOptions::default(),
    );
    assert!(e.contains("notes"), "{e}");
    let e = error("a,b,label\n,,x\n?,,y\n", &LoadOptions::default());
    assert!(
        e.starts_with("t.csv:1: no feature column holds a value in any sample"),
        "{e}"
    );
}

#[test]
fn columns_named_like_ids_are_recognised_by_their_last_word() {
    use super::grid::named_like_an_id;
    for id in [
        "patient_id",
        "Sample ID",
        "sample-id",
        "SampleID",
        "sampleId",
        "x.id",
        "SAMPLE_ID",
    ] {
        assert!(named_like_an_id(id), "{id}");
    }
    for not in ["id", "LIPID", "acid", "Paid", "valid", "_id", "width", "ID"] {
        assert!(!named_like_an_id(not), "{not}");
    }
}

#[test]
fn a_wrong_delimiter_is_named_not_taken_for_missing_features() {
    let opts = LoadOptions {
        delimiter: Some(b';'),
        ..LoadOptions::default()
    };
    let e = error("a,b,label\n1,2,x\n3,4,y\n", &opts);
    assert!(
        e.starts_with("t.csv:1: with --delimiter ';' the header is a single column, but ',' splits it into 3 columns")
            && e.contains("leave out --delimiter"),
        "{e}"
    );
    // The delimiter given, and right: read as ever.
    assert!(load_str("a;b;label\n1;2;x\n3;4;y\n", &opts).is_ok());
}

#[test]
fn detection_calls_are_left_out_with_a_note_never_levels() {
    let mut table = String::from("p1,p1_call,p2,p2_call,label\n");
    for i in 0..8 {
        let call = ["P", "A", "M", "P"][i % 4];
        table.push_str(&format!(
            "{},{call},{},P,{}\n",
            100 + i * 7,
            50 + i * 3,
            ["x", "y"][i % 2]
        ));
    }
    for categorical in [CategoricalPolicy::Error, CategoricalPolicy::Onehot] {
        let opts = LoadOptions {
            categorical,
            ..LoadOptions::default()
        };
        let d = load_str(&table, &opts).unwrap();
        assert_eq!(d.feature_names, ["p1", "p2"], "{categorical:?}");
        assert!(
            d.reader_notes[0].starts_with("2 columns hold detection calls (A, P, M")
                && d.reader_notes[0].ends_with("left out: p1_call, p2_call"),
            "{:?}",
            d.reader_notes
        );
    }
    // A column of other words is no column of calls.
    let words = table.replacen(",M,", ",maybe,", 1);
    let e = error(&words, &LoadOptions::default());
    assert!(e.contains("cannot read"), "{e}");
}

#[test]
fn top_variance_keeps_the_most_variable_columns_and_says_so() {
    let mut table = String::from("flat,wide,mid,label\n");
    for i in 0..6 {
        table.push_str(&format!(
            "{},{},{},{}\n",
            10 + i % 2,
            i * 10,
            i,
            ["x", "y"][i % 2]
        ));
    }
    let opts = LoadOptions {
        top_variance: Some(2),
        ..LoadOptions::default()
    };
    let d = load_str(&table, &opts).unwrap();
    assert_eq!(d.feature_names, ["wide", "mid"]);
    assert!(
        d.reader_notes[0]
            .starts_with("--top-variance 2: the 2 most variable of 3 numeric features are read"),
        "{:?}",
        d.reader_notes
    );
    let all = LoadOptions {
        top_variance: Some(9),
        ..LoadOptions::default()
    };
    assert_eq!(load_str(&table, &all).unwrap().n_features(), 3);
}

#[test]
fn ignore_takes_globs_over_columns_and_transposed_rows() {
    let table = "AFFX-1,AFFX-2,g1,g2,label\n1,2,3,4,x\n2,1,4,3,y\n5,6,1,2,x\n";
    let opts = LoadOptions {
        ignore: vec!["AFFX-*".into()],
        ..LoadOptions::default()
    };
    assert_eq!(load_str(table, &opts).unwrap().feature_names, ["g1", "g2"]);
    let none = LoadOptions {
        ignore: vec!["ZZ*".into()],
        ..LoadOptions::default()
    };
    let e = error(table, &none);
    assert!(e.contains("no column matches --ignore \"ZZ*\""), "{e}");
    let sheet = "gene,s1,s2,s3,s4\nAFFX-1,1,2,3,4\ng1,4,3,2,5\ng2,1,1,2,3\nlabel,x,y,x,y\n";
    let transposed = LoadOptions {
        transpose: true,
        ignore: vec!["AFFX-?".into()],
        ..LoadOptions::default()
    };
    assert_eq!(
        load_str(sheet, &transposed).unwrap().feature_names,
        ["g1", "g2"]
    );
}

#[test]
fn a_genes_by_samples_sheet_read_as_rows_is_told_about_transpose() {
    let mut sheet = String::from("gene\tGSM1\tGSM2\tGSM3\n");
    for g in 0..40 {
        sheet.push_str(&format!("g{g}\t{}.5\t{}.25\t{}.75\n", g * 3, g * 5, g * 7));
    }
    let e = error(&sheet, &LoadOptions::default());
    assert!(
        e.contains("column \"GSM3\"") && e.contains("pass --transpose and --label ROW"),
        "{e}"
    );
}

#[test]
fn when_every_sample_misses_a_value_the_emptiest_columns_are_named() {
    // c has no value at all: left out as empty, not named here.
    let table = "a,b,c,label\n1,NA,NA,x\nNA,2,NA,y\n3,NA,NA,x\n";
    let opts = LoadOptions {
        missing: MissingPolicy::Drop,
        ..LoadOptions::default()
    };
    let e = error(table, &opts);
    assert!(
        e.ends_with("--ignore b (2 missing) --ignore a (1 missing)"),
        "{e}"
    );
}

#[test]
fn a_binary_file_is_named_for_what_it_is() {
    let e = load_bytes(
        Path::new("x.RData"),
        b"RDX3\nX\n\x00\x00\x00\x03".to_vec(),
        &LoadOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("this is an R data file") && e.contains("write.csv"),
        "{e}"
    );
    let e = error("a,b,label\n1,\0,x\n", &LoadOptions::default());
    assert!(e.contains("this is a binary file"), "{e}");
}

#[test]
fn sheet_and_label_pattern_are_refused_where_they_do_not_apply() {
    for (opts, said) in [
        (
            LoadOptions {
                sheet: Some("1".into()),
                ..LoadOptions::default()
            },
            "--sheet does not apply",
        ),
        (
            LoadOptions {
                label_pattern: Some("^(.*)".into()),
                ..LoadOptions::default()
            },
            "--label-pattern does not apply",
        ),
    ] {
        let e = error("a,label\n1,x\n2,y\n", &opts);
        assert!(e.contains(said), "{e}");
    }
}
