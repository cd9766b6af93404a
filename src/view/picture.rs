//! Pictures of a layout: one cell per tensor element, as an SVG document or a self-contained
//! HTML page.

use std::fmt::Write as _;

use super::{Hw, MAX_PICTURE_ELEMENTS, OutDims, Owners, ViewError, in_fields, is_shared};
use crate::limits::LimitExceeded;
use crate::linear::LinearLayout;

/// How to draw a picture ([`svg`], [`html`]).
///
/// ```
/// use linear_layout::view::PictureOptions;
/// let o = PictureOptions::default();
/// assert_eq!((o.bits, o.banks), (16, 32));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PictureOptions {
    /// A title (the layout's text, say); drawn above the grid.
    pub title: String,
    /// Element width in bits, for shared-memory banks (a power of two, 1 ..= 1024).
    pub bits: u32,
    /// Number of 4-byte banks (32 or 64).
    pub banks: u32,
    /// padded_shared's `[interval:+padding]` pairs, in elements: the physical offset of
    /// logical offset `x` is `x + Σ (x / interval) · padding`. Empty for other layouts.
    pub padding: Vec<(u64, u64)>,
}

impl Default for PictureOptions {
    fn default() -> Self {
        PictureOptions {
            title: String::new(),
            bits: 16,
            banks: 32,
            padding: Vec::new(),
        }
    }
}

/// `s` as text of an HTML or SVG document: `&`, `<`, `>` and quotes escaped, control
/// characters but newlines left out.
///
/// ```
/// assert_eq!(linear_layout::view::escape("#ttg.blocked<{…}> & \"x\""), "#ttg.blocked&lt;{…}&gt; &amp; &quot;x&quot;");
/// ```
pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c if c.is_control() && c != '\n' => {}
            c => o.push(c),
        }
    }
    o
}

/// An HSL colour as `#rrggbb`.
fn hsl(h: f64, s: f64, l: f64) -> String {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = (h.rem_euclid(360.0)) / 60.0;
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let to = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    format!("#{:02x}{:02x}{:02x}", to(r), to(g), to(b))
}

/// The colour of warp `w` (of `warps`), lane `t` (of `lanes`): a hue per warp, lighter for
/// low lanes, darker for high ones.
fn warp_colour(w: u64, t: u64, lanes: u64) -> String {
    let hue = (w as f64) * 137.508 + 210.0;
    let frac = if lanes > 1 {
        t as f64 / (lanes - 1) as f64
    } else {
        0.0
    };
    hsl(hue, 0.70, 0.88 - 0.36 * frac)
}

/// The colour of bank `b` (of `banks`).
fn bank_colour(b: u64, banks: u64) -> String {
    let hue = (b as f64) * 360.0 / banks as f64;
    hsl(hue, 0.65, if b.is_multiple_of(2) { 0.78 } else { 0.66 })
}

/// One drawn cell.
struct Cell {
    fill: String,
    lines: [String; 2],
    tip: String,
    /// Its `data-*` attributes: name (without the prefix) and value.
    data: Vec<(&'static str, String)>,
}

impl Cell {
    /// A blank cell for an element that nothing holds.
    fn unowned(coord: &str, why: &str) -> Cell {
        Cell {
            fill: "#ffffff".into(),
            lines: ["-".into(), String::new()],
            tip: format!("({coord}): {why}"),
            data: vec![("coord", coord.to_string()), ("owners", "0".to_string())],
        }
    }
}

/// The grid's geometry and cells, shared by the SVG and HTML pictures.
struct Picture {
    rows: u64,
    cols: u64,
    row_labels: Vec<String>,
    cells: Vec<Cell>,
    legend: Vec<(String, String)>,
    summary: [String; 2],
    shared: bool,
}

/// Pictures of more cells than this are drawn a row at a time ([`Picture::rows_of_cells`]).
const COMPACT_CELLS: u64 = 1024;

/// Whether a picture of `cells` cells is drawn a row at a time.
fn compact(cells: u64) -> bool {
    cells > COMPACT_CELLS
}

/// The characters of a 10-pixel monospace font a cell holds at their natural spacing: the
/// width of a label's field in a large picture (longer labels get wider fields, squeezed).
const LABEL_CHARS: usize = 7;

/// `label` centred in `width` characters (spaces around it).
fn centred(label: &str, width: usize) -> String {
    let pad = width.saturating_sub(label.chars().count());
    format!("{}{label}{}", " ".repeat(pad / 2), " ".repeat(pad - pad / 2))
}

const CELL_W: u64 = 44;
const LEFT: u64 = 64;
const TOP_PAD: u64 = 72;

fn coord_text(outs: &OutDims, e: u64) -> String {
    let mut v = Vec::new();
    let mut x = e;
    for size in outs.sizes.iter().rev() {
        v.push(x % size);
        x /= size;
    }
    v.reverse();
    v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
}

fn picture(l: &LinearLayout, o: &PictureOptions) -> Result<Picture, ViewError> {
    let outs = OutDims::of(l)?;
    if outs.total > MAX_PICTURE_ELEMENTS {
        return Err(ViewError::Limit(LimitExceeded::new(
            "view::MAX_PICTURE_ELEMENTS",
            "tensor elements of a picture",
            MAX_PICTURE_ELEMENTS,
            outs.total,
        )));
    }
    let compact = compact(outs.total);
    let cols = *outs.sizes.last().unwrap_or(&1);
    let rows = outs.total / cols;
    let lead = &outs.sizes[..outs.sizes.len() - 1];
    let row_labels = (0..rows)
        .map(|r| {
            let mut v = Vec::new();
            let mut x = r;
            for size in lead.iter().rev() {
                v.push(x % size);
                x /= size;
            }
            v.reverse();
            v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")
        })
        .collect();
    let mut cells = Vec::with_capacity(outs.total as usize);
    let mut legend = Vec::new();
    let shared = is_shared(l);
    let summary = if shared {
        if !o.bits.is_power_of_two() || o.bits > 1024 {
            return Err(ViewError::BadOption(format!(
                "element width must be a power of two from 1 to 1024 bits, got {}",
                o.bits
            )));
        }
        if o.banks != 32 && o.banks != 64 {
            return Err(ViewError::BadOption(format!(
                "banks must be 32 or 64, got {}",
                o.banks
            )));
        }
        let [(off_start, offs), (blk_start, blocks)] = in_fields(l, ["offset", "block"])?;
        let inputs = (0..offs * blocks).map(|k| {
            let (off, b) = (k % offs, k / offs);
            (k as u32, (off << off_start) | (b << blk_start))
        });
        let owners = Owners::collect(l, &outs, inputs);
        let banks = o.banks as u64;
        let phys = |x: u64| {
            o.padding.iter().fold(x, |acc, &(i, p)| {
                x.checked_div(i)
                    .map_or(acc, |q| acc.saturating_add(q.saturating_mul(p)))
            })
        };
        for e in 0..outs.total {
            let ks = owners.of(e as usize);
            let coord = coord_text(&outs, e);
            match ks.first() {
                None => cells.push(Cell::unowned(&coord, "not stored")),
                Some(&k) => {
                    let (off, b) = (k as u64 % offs, k as u64 / offs);
                    let p = phys(off);
                    let bank = ((p as u128 * o.bits as u128 / 32) % banks as u128) as u64;
                    let mut tip = format!("({coord}): offset {off}");
                    if p != off {
                        let _ = write!(tip, " (physical {p})");
                    }
                    let _ = write!(tip, ", byte {}, bank {bank}", p as u128 * o.bits as u128 / 8);
                    if blocks > 1 {
                        let _ = write!(tip, ", block {b}");
                    }
                    if ks.len() > 1 {
                        let _ = write!(tip, "; stored {} times", ks.len());
                    }
                    cells.push(Cell {
                        fill: bank_colour(bank, banks),
                        lines: [p.to_string(), format!("b{bank}")],
                        tip,
                        data: vec![
                            ("coord", coord),
                            ("offset", p.to_string()),
                            ("bank", bank.to_string()),
                            ("block", b.to_string()),
                            ("owners", ks.len().to_string()),
                        ],
                    });
                }
            }
        }
        for b in 0..banks {
            legend.push((bank_colour(b, banks), format!("bank {b}")));
        }
        [
            format!(
                "shared layout: {offs} offsets x {blocks} block(s); {}-bit elements, {banks} banks of 4 bytes",
                o.bits
            ),
            "each cell: the element's offset, then its bank (colour: bank)".to_string(),
        ]
    } else {
        let h = Hw::of(l)?;
        let owners = Owners::collect(l, &outs, h.inputs());
        for e in 0..outs.total {
            let ks = owners.of(e as usize);
            let coord = coord_text(&outs, e);
            match ks.first() {
                None => cells.push(Cell::unowned(&coord, "held by no thread")),
                Some(&k) => {
                    let [r, t, w, b] = h.decode(k as u64);
                    let mut tip = format!("({coord}):");
                    for (n, &k2) in ks.iter().enumerate() {
                        if n == 16 {
                            let _ = write!(tip, " … {} more", ks.len() - 16);
                            break;
                        }
                        let [r2, t2, w2, b2] = h.decode(k2 as u64);
                        let _ = write!(
                            tip,
                            "{} warp {w2} lane {t2} reg {r2}",
                            if n > 0 { " |" } else { "" }
                        );
                        if h.blocks() > 1 {
                            let _ = write!(tip, " block {b2}");
                        }
                    }
                    let label = if ks.len() > 1 {
                        format!("{t}:{r}*")
                    } else {
                        format!("{t}:{r}")
                    };
                    cells.push(Cell {
                        // A large picture shades by warp alone: runs of one colour are drawn
                        // as one rectangle.
                        fill: warp_colour(b * h.warps() + w, if compact { 0 } else { t }, h.lanes()),
                        lines: [label, String::new()],
                        tip,
                        data: vec![
                            ("coord", coord),
                            ("warp", w.to_string()),
                            ("lane", t.to_string()),
                            ("reg", r.to_string()),
                            ("block", b.to_string()),
                            ("owners", ks.len().to_string()),
                        ],
                    });
                }
            }
        }
        let colours = (h.warps() * h.blocks()).min(64);
        for c in 0..colours {
            let name = if h.blocks() > 1 {
                format!("block {} warp {}", c / h.warps(), c % h.warps())
            } else {
                format!("warp {c}")
            };
            legend.push((warp_colour(c, 0, h.lanes()), name));
        }
        [
            format!(
                "distributed layout: {} registers x {} lanes x {} warps x {} block(s)",
                h.regs(),
                h.lanes(),
                h.warps(),
                h.blocks()
            ),
            if compact {
                "colour: warp; label: lane:register, * = also held by others".to_string()
            } else {
                "colour: warp (lighter = lower lane); label: lane:register, * = also held by others (hover: all owners)"
                    .to_string()
            },
        ]
    };
    Ok(Picture {
        rows,
        cols,
        row_labels,
        cells,
        legend,
        summary,
        shared,
    })
}

impl Picture {
    fn cell_h(&self) -> u64 {
        if self.shared { 30 } else { 22 }
    }
    fn legend_rows(&self, width: u64) -> u64 {
        let per_row = (width / 110).max(1);
        (self.legend.len() as u64).div_ceil(per_row)
    }
    fn width(&self, title: &str) -> u64 {
        let text = title
            .chars()
            .count()
            .max(self.summary.iter().map(|l| l.chars().count()).max().unwrap_or(0)) as u64;
        (LEFT + self.cols * CELL_W + 16).max(16 + text * 8).max(480)
    }
    fn grid_top(&self, width: u64) -> u64 {
        TOP_PAD + 22 * self.legend_rows(width) + 18
    }

    /// Each cell its own `<g class="cell">`: its `data-*` attributes, a `<title>` tooltip,
    /// its rectangle and its label.
    fn cells_one_by_one(&self, s: &mut String, top: u64, ch: u64) {
        for (i, cell) in self.cells.iter().enumerate() {
            let (r, c) = (i as u64 / self.cols, i as u64 % self.cols);
            let (x, y) = (LEFT + c * CELL_W, top + r * ch);
            s.push_str("<g class=\"cell\"");
            for (name, value) in &cell.data {
                let _ = write!(s, " data-{name}=\"{}\"", escape(value));
            }
            let _ = write!(
                s,
                "><title>{}</title><rect x=\"{x}\" y=\"{y}\" width=\"{CELL_W}\" height=\"{ch}\" fill=\"{}\"/>",
                escape(&cell.tip),
                cell.fill
            );
            if cell.lines[1].is_empty() {
                let _ = write!(
                    s,
                    "<text x=\"{}\" y=\"{}\">{}</text>",
                    x + CELL_W / 2,
                    y + ch / 2 + 4,
                    escape(&cell.lines[0])
                );
            } else {
                let _ = write!(
                    s,
                    "<text x=\"{}\" y=\"{}\">{}</text><text x=\"{}\" y=\"{}\">{}</text>",
                    x + CELL_W / 2,
                    y + 13,
                    escape(&cell.lines[0]),
                    x + CELL_W / 2,
                    y + 25,
                    escape(&cell.lines[1])
                );
            }
            s.push_str("</g>\n");
        }
    }

    /// A row at a time, for large pictures (a tenth of the bytes): one `<g class="row">` per
    /// row whose `data-*` attributes list the row's cells' values in order (`-` where a cell
    /// has none; `data-block` and `data-owners` only where some cell is not in block 0 or has
    /// other owners), the runs of cells of one colour as one rectangle each, and each line of
    /// labels as one text of fixed-width fields (one per cell, labels centred, no spaces in
    /// a label) stretched over the row; white grid lines separate the cells. No tooltips.
    fn rows_of_cells(&self, s: &mut String, top: u64, ch: u64) {
        // Each attribute with its usual value: a row where every cell has it leaves it out.
        let names: &[(&str, &str)] = if self.shared {
            &[("offset", ""), ("bank", ""), ("block", "0"), ("owners", "1")]
        } else {
            &[
                ("warp", ""),
                ("lane", ""),
                ("reg", ""),
                ("block", "0"),
                ("owners", "1"),
            ]
        };
        let field = self
            .cells
            .iter()
            .flat_map(|c| c.lines.iter().map(|l| l.chars().count()))
            .max()
            .unwrap_or(0)
            .max(LABEL_CHARS - 1)
            + 1;
        let width = self.cols * CELL_W;
        let lines: &[u64] = if self.shared { &[13, 25] } else { &[ch / 2 + 4] };
        for (r, row) in self.cells.chunks(self.cols.max(1) as usize).enumerate() {
            let y = top + r as u64 * ch;
            let _ = write!(s, "<g class=\"row\" data-row=\"{r}\"");
            for &(name, usual) in names {
                let values: Vec<&str> = row
                    .iter()
                    .map(|c| {
                        c.data
                            .iter()
                            .find(|(n, _)| *n == name)
                            .map_or("-", |(_, v)| v.as_str())
                    })
                    .collect();
                if values.iter().any(|v| *v != usual) {
                    let _ = write!(s, " data-{name}=\"{}\"", values.join(" "));
                }
            }
            s.push('>');
            let mut start = 0;
            while start < row.len() {
                let fill = &row[start].fill;
                let end = start + row[start..].iter().take_while(|c| c.fill == *fill).count();
                let _ = write!(
                    s,
                    "<rect x=\"{}\" y=\"{y}\" width=\"{}\" height=\"{ch}\" fill=\"{fill}\"/>",
                    LEFT + start as u64 * CELL_W,
                    (end - start) as u64 * CELL_W
                );
                start = end;
            }
            for (line, dy) in lines.iter().enumerate() {
                let text: String = row.iter().map(|c| centred(&c.lines[line], field)).collect();
                let _ = write!(
                    s,
                    "<text x=\"{LEFT}\" y=\"{}\" textLength=\"{width}\" lengthAdjust=\"spacing\" xml:space=\"preserve\">{}</text>",
                    y + dy,
                    escape(&text)
                );
            }
            s.push_str("</g>\n");
        }
        // The grid: one path of white lines between the cells.
        let bottom = top + self.rows * ch;
        let mut d = String::new();
        for c in 1..self.cols {
            let _ = write!(d, "M{} {top}V{bottom}", LEFT + c * CELL_W);
        }
        for r in 1..self.rows {
            let _ = write!(d, "M{LEFT} {}h{width}", top + r * ch);
        }
        let _ = writeln!(
            s,
            "<path d=\"{d}\" stroke=\"#fff\" stroke-width=\"1\" fill=\"none\"/>"
        );
    }

    fn svg(&self, title: &str, standalone: bool) -> String {
        let w = self.width(title);
        let ch = self.cell_h();
        let top = self.grid_top(w);
        let h = top + self.rows * ch + 16;
        let mut s = String::with_capacity(self.cells.len() * 260 + 4096);
        if standalone {
            s.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        }
        let _ = writeln!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"monospace\" id=\"layout\">"
        );
        let _ = writeln!(
            s,
            "<style>.cell text{{font-size:10px;text-anchor:middle;fill:#111}} .cell rect{{stroke:#fff;stroke-width:1}} .row text{{font-size:10px;fill:#111;white-space:pre}} .ax{{font-size:9px;fill:#555}} .lg{{font-size:11px;fill:#222}}</style>"
        );
        let _ = writeln!(
            s,
            "<rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>"
        );
        let _ = writeln!(
            s,
            "<text x=\"8\" y=\"20\" font-size=\"13\" font-weight=\"bold\" id=\"title\">{}</text>",
            escape(title)
        );
        for (i, line) in self.summary.iter().enumerate() {
            let _ = writeln!(
                s,
                "<text x=\"8\" y=\"{}\" font-size=\"11\" class=\"summary\">{}</text>",
                38 + 15 * i,
                escape(line)
            );
        }
        // Legend.
        let per_row = (w / 110).max(1);
        s.push_str("<g id=\"legend\">\n");
        for (i, (fill, name)) in self.legend.iter().enumerate() {
            let (lx, ly) = (
                8 + (i as u64 % per_row) * 110,
                TOP_PAD + (i as u64 / per_row) * 22,
            );
            let _ = writeln!(
                s,
                "<rect x=\"{lx}\" y=\"{ly}\" width=\"16\" height=\"14\" fill=\"{fill}\" stroke=\"#666\" stroke-width=\"0.5\"/><text class=\"lg\" x=\"{}\" y=\"{}\">{}</text>",
                lx + 20,
                ly + 11,
                escape(name)
            );
        }
        s.push_str("</g>\n");
        // Axes.
        s.push_str("<g id=\"axes\">\n");
        for c in 0..self.cols {
            let _ = writeln!(
                s,
                "<text class=\"ax\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{c}</text>",
                LEFT + c * CELL_W + CELL_W / 2,
                top - 4
            );
        }
        for (r, label) in self.row_labels.iter().enumerate() {
            let _ = writeln!(
                s,
                "<text class=\"ax\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
                LEFT - 4,
                top + r as u64 * ch + ch / 2 + 3,
                escape(label)
            );
        }
        s.push_str("</g>\n<g id=\"cells\">\n");
        if compact(self.cells.len() as u64) {
            self.rows_of_cells(&mut s, top, ch);
        } else {
            self.cells_one_by_one(&mut s, top, ch);
        }
        s.push_str("</g>\n</svg>\n");
        s
    }
}

/// A picture of the layout as a standalone SVG document: one cell per tensor element (rows =
/// all dims but the last, columns = the last), each a `<g class="cell">` with its coordinates
/// and owner in `data-*` attributes and a `<title>` tooltip.
///
/// A distributed layout's cells are coloured by warp and shaded by lane (lighter = lower
/// lane) and labelled `lane:register` (`*` when other threads hold the element too); a shared
/// layout's cells show the element's offset and 4-byte bank
/// (`offset · bits / 32 mod banks`), coloured by bank. No scripts, no external resources.
///
/// A picture of more than 1,024 elements stays small (a 64×64 MFMA layout in about 84 KB,
/// not 1 MB): it is drawn a row at a time, each `<g class="row">` listing its cells' owners
/// in `data-*` attributes and its labels in one line of fixed-width fields, without tooltips,
/// and a distributed layout's cells are coloured by warp alone.
///
/// ```
/// use linear_layout::linear::LinearLayout;
/// use linear_layout::view::{svg, PictureOptions};
/// let l = LinearLayout::from_bases([("register", vec![vec![0, 1]]), ("lane", vec![vec![0, 2], vec![1, 0]])], [("dim0", 2), ("dim1", 4)], false)?;
/// let doc = svg(&l, &PictureOptions::default())?;
/// assert!(doc.starts_with("<?xml"));
/// assert_eq!(doc.matches("<g class=\"cell\"").count(), 8);
/// assert!(doc.contains(">3:1</text>")); // element (1, 3): lane 3, register 1
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn svg(l: &LinearLayout, o: &PictureOptions) -> Result<String, ViewError> {
    Ok(picture(l, o)?.svg(&o.title, true))
}

/// The picture of a shared layout over its `offset` and `block` in-dims alone, without the XML
/// declaration (to put inline in a page): the LDS bank map of one repetition of a
/// conversion's round trip, whose LDS layout has other in-dims (its `reps`).
///
/// ```
/// use linear_layout::linear::LinearLayout;
/// use linear_layout::view::{lds_picture, PictureOptions};
/// let lds = LinearLayout::from_bases([("offset", vec![vec![1], vec![2]]), ("reps", vec![vec![0]])], [("dim0", 4)], false)?;
/// let picture = lds_picture(&lds, &PictureOptions { bits: 32, ..PictureOptions::default() })?;
/// assert!(picture.trim_start().starts_with("<svg") && picture.contains("data-offset=\"3\" data-bank=\"3\""));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn lds_picture(l: &LinearLayout, o: &PictureOptions) -> Result<String, ViewError> {
    let ins: Vec<&str> = l
        .in_dim_names()
        .map(|n| n.as_str())
        .filter(|n| *n == "offset" || *n == "block")
        .collect();
    let outs: Vec<&str> = l.out_dim_names().map(|n| n.as_str()).collect();
    let one = l
        .sublayout(&ins, &outs)
        .map_err(|e| ViewError::BadOption(e.to_string()))?;
    inline_svg(&one, o)
}

/// The picture of [`svg`] without the XML declaration, to put inline in an HTML page.
///
/// ```
/// use linear_layout::linear::LinearLayout;
/// use linear_layout::view::{inline_svg, PictureOptions};
/// let l = LinearLayout::identity_1d(4, "lane", "dim0")?;
/// assert!(inline_svg(&l, &PictureOptions::default())?.starts_with("<svg"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn inline_svg(l: &LinearLayout, o: &PictureOptions) -> Result<String, ViewError> {
    Ok(picture(l, o)?.svg(&o.title, false))
}

/// The same picture as [`svg`], in a self-contained HTML page (inline SVG and CSS, no
/// scripts, no network), under the title and the layout's summary.
///
/// ```
/// use linear_layout::linear::LinearLayout;
/// use linear_layout::view::{html, PictureOptions};
/// let s = LinearLayout::from_bases([("offset", vec![vec![1], vec![2]])], [("dim0", 4)], false)?;
/// let o = PictureOptions { title: "a 4-element array".into(), bits: 32, ..PictureOptions::default() };
/// let page = html(&s, &o)?;
/// assert!(page.starts_with("<!DOCTYPE html>"));
/// assert!(page.contains("data-offset=\"3\" data-bank=\"3\""));
/// assert!(!page.contains("<script"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn html(l: &LinearLayout, o: &PictureOptions) -> Result<String, ViewError> {
    let p = picture(l, o)?;
    let title = if o.title.is_empty() {
        "layout"
    } else {
        o.title.as_str()
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>body{{margin:12px;font-family:sans-serif;background:#fff}} svg{{display:block}} .cell:hover rect{{stroke:#000 !important;stroke-width:2px !important}}</style>\n</head>\n<body>",
        escape(title)
    );
    s.push_str(&p.svg(&o.title, false));
    s.push_str("</body>\n</html>\n");
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_are_hex() {
        for w in 0..8 {
            let c = warp_colour(w, 3, 64);
            assert_eq!(c.len(), 7);
            assert!(c.starts_with('#'));
        }
        assert_eq!(hsl(0.0, 1.0, 0.5), "#ff0000");
    }
}
