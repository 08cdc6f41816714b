//! The audit page in a real browser: headless Chromium takes a screenshot
//! of a generated report, and the picture must show the heat map and the
//! histogram in their own colours. String checks (tests/report.rs) cannot
//! tell that the page actually lays out and paints: a stray quote in the
//! CSS or a malformed SVG passes them and shows a blank page.
//!
//! Without a `chromium` on PATH the test says so and passes; `.ci/run`
//! installs it. `RELABEL_KEEP_SCREENSHOT=FILE` copies the picture to FILE
//! for a human to look at.
#![allow(clippy::unwrap_used)]

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};

use common::{hostile_review, succeed};

const WIDTH: usize = 1200;
const HEIGHT: usize = 2000;
/// The histogram's bar colour (`audit_page::charts::BAR`).
const BAR: [u8; 3] = [0xd9, 0x48, 0x0f];

fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser"].map(|name| dir.join(name)))
        .find(|p| p.is_file())
}

/// An RGB picture decoded from a PNG: 8-bit RGB or RGBA, not interlaced
/// (what Chromium writes). Enough of PNG to test with, and no dependency.
struct Picture {
    width: usize,
    height: usize,
    rgb: Vec<[u8; 3]>,
}

fn be32(b: &[u8]) -> usize {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize
}

fn decode_png(bytes: &[u8]) -> Picture {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let (mut at, mut header, mut data) = (8, None, Vec::new());
    while at + 8 <= bytes.len() {
        let len = be32(&bytes[at..]);
        let kind = &bytes[at + 4..at + 8];
        let body = &bytes[at + 8..at + 8 + len];
        match kind {
            b"IHDR" => header = Some((be32(body), be32(&body[4..]), body[8], body[9], body[12])),
            b"IDAT" => data.extend_from_slice(body),
            b"IEND" => break,
            _ => {}
        }
        at += 12 + len;
    }
    let (width, height, depth, colour, interlace) = header.unwrap();
    assert_eq!((depth, interlace), (8, 0), "8-bit, not interlaced");
    let channels = match colour {
        2 => 3,
        6 => 4,
        other => panic!("PNG colour type {other}"),
    };
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&data[..])
        .read_to_end(&mut raw)
        .unwrap();
    let stride = width * channels;
    assert_eq!(raw.len(), height * (stride + 1));
    let mut prev = vec![0u8; stride];
    let mut rgb = Vec::with_capacity(width * height);
    for line in raw.chunks(stride + 1) {
        let cur = unfilter(line[0], &line[1..], &prev, channels);
        rgb.extend(cur.chunks(channels).map(|p| [p[0], p[1], p[2]]));
        prev = cur;
    }
    Picture { width, height, rgb }
}

/// Undoes one scanline's PNG filter (None, Sub, Up, Average, Paeth).
fn unfilter(filter: u8, line: &[u8], prev: &[u8], bpp: usize) -> Vec<u8> {
    let mut out = vec![0u8; line.len()];
    for i in 0..line.len() {
        let a = if i >= bpp { out[i - bpp] } else { 0 };
        let (b, c) = (prev[i], if i >= bpp { prev[i - bpp] } else { 0 });
        let predict = match filter {
            0 => 0,
            1 => a,
            2 => b,
            3 => ((u16::from(a) + u16::from(b)) / 2) as u8,
            4 => {
                let p = i16::from(a) + i16::from(b) - i16::from(c);
                let (pa, pb, pc) = (
                    (p - i16::from(a)).abs(),
                    (p - i16::from(b)).abs(),
                    (p - i16::from(c)).abs(),
                );
                if pa <= pb && pa <= pc {
                    a
                } else if pb <= pc {
                    b
                } else {
                    c
                }
            }
            other => panic!("PNG filter {other}"),
        };
        out[i] = line[i].wrapping_add(predict);
    }
    out
}

/// Pixels within a small distance of `colour` (colour management may move
/// a channel by a step or two).
fn count_near(pic: &Picture, colour: [u8; 3]) -> usize {
    pic.rgb
        .iter()
        .filter(|p| p.iter().zip(colour).all(|(a, b)| a.abs_diff(b) <= 3))
        .count()
}

/// The colours the page gave its flip-table cells.
fn heat_colours(html: &str) -> Vec<[u8; 3]> {
    html.split("<td class=\"heat\" style=\"background:#")
        .skip(1)
        .map(|rest| {
            let hex = |k: usize| u8::from_str_radix(&rest[k..k + 2], 16).unwrap();
            [hex(0), hex(2), hex(4)]
        })
        .collect()
}

fn screenshot(browser: &Path, page: &Path, dir: &Path) -> Picture {
    let shot = dir.join("shot.png");
    let out = std::process::Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            "--force-device-scale-factor=1",
        ])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("--window-size={WIDTH},{HEIGHT}"))
        .arg(page)
        .output()
        .unwrap();
    assert!(
        shot.is_file(),
        "chromium wrote no screenshot ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    if let Some(keep) = std::env::var_os("RELABEL_KEEP_SCREENSHOT") {
        std::fs::copy(&shot, keep).unwrap();
    }
    decode_png(&std::fs::read(&shot).unwrap())
}

#[test]
fn chromium_paints_the_heat_map_and_the_histogram() {
    let Some(browser) = chromium() else {
        println!("chromium is not installed: skipping the browser test (.ci/run installs it)");
        return;
    };
    let r = hostile_review("rnda");
    succeed(&mut r.relabel(&["report", "-q"]));
    let page = r.dir.path().join("iris_noisy.audit.html");
    let html = std::fs::read_to_string(&page).unwrap();
    let pic = screenshot(&browser, &page, r.dir.path());
    assert_eq!((pic.width, pic.height), (WIDTH, HEIGHT));

    let white = count_near(&pic, [255, 255, 255]);
    let inked = pic.rgb.len() - white;
    assert!(
        inked > pic.rgb.len() / 20,
        "the page is nearly blank: {inked} of {} pixels not white",
        pic.rgb.len()
    );
    // Bars are filled rectangles of one colour: hundreds of pixels.
    let bars = count_near(&pic, BAR);
    assert!(bars > 400, "histogram bars: {bars} pixels");
    // Every flip-table cell is 72 x 34 pixels of its colour; the three
    // diagonal cells (the darkest) at least are painted.
    let mut colours = heat_colours(&html);
    assert_eq!(colours.len(), 9);
    colours.sort_by_key(|c| c.iter().map(|&v| u32::from(v)).sum::<u32>());
    for c in &colours[..3] {
        let n = count_near(&pic, *c);
        assert!(
            n > 1000,
            "heat cell #{:02x}{:02x}{:02x}: {n} pixels",
            c[0],
            c[1],
            c[2]
        );
    }
    println!(
        "{} painted the audit page: {inked} pixels inked, {bars} of histogram bars",
        browser.display()
    );
}
