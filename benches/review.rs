//! The review screen on a million rows (issue 11: a key press reaches the
//! screen within 50 ms): what one key costs the UI thread, from the key to
//! the drawn frame, with a fit in place; and what taking in a new fit costs
//! (re-ranking a million rows, once per fit).

use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers};
use nalgebra::DMatrix;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use relabel::dataset::{LoadOptions, load_bytes};
use relabel::models::{Fit, ModelOptions};
use relabel::review::Session;
use relabel::rng::Rng;
use relabel::tui::App;
use relabel::tui::keys::KeyMap;

const ROWS: usize = 1_000_000;
const K: usize = 5;

fn table() -> Vec<u8> {
    let mut rng = Rng::new(1);
    let mut text = String::from("id,f1,f2,f3,f4,label\n");
    for i in 0..ROWS {
        let class = rng.below(K);
        text.push_str(&format!(
            "s{i},{:.3},{:.3},{:.3},{:.3},c{class}\n",
            class as f64 + rng.normal(),
            rng.normal(),
            rng.normal(),
            rng.normal()
        ));
    }
    text.into_bytes()
}

fn fit(given: &[usize]) -> Fit {
    let mut rng = Rng::new(2);
    let mut posterior = DMatrix::from_fn(given.len(), K, |_, _| rng.uniform());
    for mut row in posterior.row_iter_mut() {
        let s = row.sum();
        row /= s;
    }
    Fit::from_posterior(posterior, given)
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent {
        code,
        modifiers: KeyModifiers::NONE,
        kind: KeyEventKind::Press,
        state: KeyEventState::NONE,
    }
}

fn bench(c: &mut Criterion) {
    let ds = load_bytes(Path::new("million.csv"), table(), &LoadOptions::default())
        .expect("the generated table loads");
    let labels = ds.labels.clone();
    let (mut session, resume) = Session::open(ds, None).expect("no journal");
    let fitted = fit(&labels);
    session.set_fit("bench", fitted.clone());
    let mut app = App::with_keys(
        session,
        &resume,
        "rnda",
        ModelOptions::default(),
        KeyMap::load(None).expect("default keys"),
    );
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).expect("test backend");
    let mut group = c.benchmark_group("review_1M");
    group.sample_size(20);
    group.bench_function("key_to_frame/down", |b| {
        b.iter(|| {
            app.handle_key(&key(KeyCode::Char('j')));
            terminal
                .draw(|f| f.render_widget(&app, f.area()))
                .expect("draw");
        })
    });
    group.bench_function("key_to_frame/keep_then_undo", |b| {
        b.iter(|| {
            app.handle_key(&key(KeyCode::Char(' ')));
            app.handle_key(&key(KeyCode::Char('u')));
            terminal
                .draw(|f| f.render_widget(&app, f.area()))
                .expect("draw");
        })
    });
    group.bench_function("ranking", |b| b.iter(|| fitted.ranking()));
    group.bench_function("take_in_a_fit", |b| {
        b.iter(|| app.session.set_fit("bench", fitted.clone()))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
