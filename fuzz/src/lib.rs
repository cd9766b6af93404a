//! The bodies of the fuzz targets: one `fn(&[u8])` per target, run by the cargo-fuzz binaries
//! of `fuzz/fuzz_targets/` and replayed on stable Rust by `tests/fuzz_regressions.rs` (every
//! saved finding and every seed). A body panics only when the crate does (a panic, or an
//! arithmetic overflow in a build with debug assertions, as the fuzzers and the tests build it)
//! or when one of the laws checked here breaks:
//!
//! * `batch_line`: one answer per non-blank line, in order, each a JSON object with a boolean
//!   `ok` (and a string `error` when false), the request's `id` echoed;
//! * `encoding_text`: what parses prints back to text that parses to the same value;
//! * `ttgir_passes`: every op a pass handles is reported, decided or undecided;
//! * `layout_passes`: a rewriting layout pass either refuses (an error) or prints a module
//!   that the crate's reader reads back, and running it again on that module succeeds;
//! * `show`, `convert_cost`: nothing beyond returning;
//! * `compile`: `lower::compile` answers (a kernel or an error) in both layout modes, and the
//!   cost mode's kernel never costs more than Triton's layouts' under the model;
//! * `lower`: a kernel that is generated passes [`Program::validate`](linear_layout::lower::Program::validate),
//!   has LLVM IR, and run by the interpreter computes `out = in` and (a conversion) every
//!   destination register as the destination layout places it.
//!
//! Layouts are decoded from the bytes by [`layout`], in one of two forms chosen by the first
//! byte: packed bases (cheap for the fuzzer to mutate bit by bit), or Triton's attribute text
//! and a shape (so that the fixtures' encodings seed it). [`encode_layout`] and
//! [`encode_text_layout`] write those forms, for the seeds.

use linear_layout::batch;
use linear_layout::encodings::{AliasDef, Encoding, TensorType, parse_aliases};
use linear_layout::heuristics::convert;
use linear_layout::heuristics::passes::{self, Pass, PassOptions, Report};
use linear_layout::heuristics::propagation::{LayoutPass, LayoutPassOptions, run_layout_pass};
use linear_layout::linear::LinearLayout;
use linear_layout::lower::{self, Dtype, Kernel};
use linear_layout::target::{LdsOp, TARGETS, Target};
use linear_layout::ttgir::Module;
use linear_layout::view::{self, PictureOptions};
use serde_json::Value;

/// The body of a target: runs one input.
pub type Body = fn(&[u8]);

/// Every target: its name (the binary, the seed and regression directories) and its body.
pub const TARGETS_BY_NAME: &[(&str, Body)] = &[
    ("batch_line", batch_line),
    ("encoding_text", encoding_text),
    ("ttgir_passes", ttgir_passes),
    ("layout_passes", layout_passes),
    ("show", show),
    ("convert_cost", convert_cost),
    ("lower", lower),
    ("compile", compile),
];

// ---------------------------------------------------------------------------------------------
// Bytes → values
// ---------------------------------------------------------------------------------------------

/// A reader of fuzz input: every read succeeds, giving zeros past the end.
pub struct Bytes<'a>(&'a [u8]);

impl<'a> Bytes<'a> {
    /// A reader over `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Bytes(data)
    }

    /// The next byte (0 past the end).
    pub fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }

    /// The next `n` bytes (fewer at the end).
    fn take(&mut self, n: usize) -> &'a [u8] {
        let (head, rest) = self.0.split_at(n.min(self.0.len()));
        self.0 = rest;
        head
    }

    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }

    fn i64(&mut self) -> i64 {
        let mut b = [0u8; 8];
        for x in &mut b {
            *x = self.byte();
        }
        i64::from_le_bytes(b)
    }
}

/// A size from one byte: `2^code` below 64, else `code - 64` (0, 1, and non-powers of two).
fn size_of_code(code: u8) -> i64 {
    if code < 64 {
        (1u64 << code) as i64
    } else {
        i64::from(code) - 64
    }
}

/// The byte [`size_of_code`] reads back as `size` (sizes it cannot express become 0).
fn code_of_size(size: u64) -> u8 {
    if size.is_power_of_two() {
        size.trailing_zeros() as u8
    } else if size < 192 {
        size as u8 + 64
    } else {
        64
    }
}

/// A basis component of an out-dim of `size` elements. Codes below 255 stay inside the
/// out-dim: `2^code` (0..64), `code - 64` (64..128), `2^(code - 128) | next byte` (128..255);
/// 255 is followed by a raw little-endian `i64`, which may be negative or out of range.
fn component(b: &mut Bytes, size: i64) -> i64 {
    let mask = size.saturating_sub(1).max(0);
    match b.byte() {
        code @ 0..=63 => (1i64 << code) & mask,
        code @ 64..=127 => i64::from(code - 64) & mask,
        code @ 128..=254 => ((1i64 << ((code - 128) % 64)) | i64::from(b.byte())) & mask,
        255 => b.i64(),
    }
}

fn push_component(out: &mut Vec<u8>, v: u64) {
    if v == 0 {
        out.push(64);
    } else if v.is_power_of_two() {
        out.push(v.trailing_zeros() as u8);
    } else if v < 64 {
        out.push(v as u8 + 64);
    } else {
        out.push(255);
        out.extend_from_slice(&v.to_le_bytes());
    }
}

const DISTRIBUTED_IN: [&str; 4] = ["register", "lane", "warp", "block"];
const SHARED_IN: [&str; 2] = ["offset", "block"];
/// Names of the free-form layouts: the hardware names, tensor names, an empty one and one too
/// long to be kept inline.
const NAMES: [&str; 10] = [
    "register",
    "lane",
    "warp",
    "block",
    "offset",
    "dim0",
    "dim1",
    "x",
    "",
    "a-dimension-name-longer-than-inline",
];

/// Header bits of the packed form.
const TEXT_FORM: u8 = 0x80;
const STANDARD_NAMES: u8 = 0x01;
const SHARED: u8 = 0x02;
const SURJECTIVE: u8 = 0x04;

/// Decodes a layout. Packed form (header bit 7 clear): out-dims (count, then per dim a name
/// unless the names are standard, and a size code), in-dims (count unless standard, then per
/// dim a name unless standard, a basis count and the components). Text form (bit 7 set):
/// rank, size codes, a 16-bit length and that many bytes of attribute text.
pub fn layout(b: &mut Bytes) -> Result<LinearLayout, String> {
    layout_over(b, None)
}

/// [`layout`], with the out-dims given rather than read (for the packed form).
fn layout_over(b: &mut Bytes, outs: Option<&[(String, i64)]>) -> Result<LinearLayout, String> {
    let header = b.byte();
    if header & TEXT_FORM != 0 {
        let rank = usize::from(b.byte() % 6);
        let shape: Vec<u64> = (0..rank).map(|_| size_of_code(b.byte()) as u64).collect();
        let len = usize::from(b.u16());
        let text = String::from_utf8_lossy(b.take(len));
        let e: Encoding = text.parse().map_err(|e| format!("{e}"))?;
        return e.to_linear_layout(&shape).map_err(|e| e.to_string());
    }
    let standard = header & STANDARD_NAMES != 0;
    let outs: Vec<(String, i64)> = match outs {
        Some(o) => o.to_vec(),
        None => {
            let n = usize::from(b.byte() % 5);
            (0..n)
                .map(|i| {
                    let name = if standard {
                        format!("dim{i}")
                    } else {
                        NAMES[usize::from(b.byte()) % NAMES.len()].to_string()
                    };
                    (name, size_of_code(b.byte()))
                })
                .collect()
        }
    };
    let names: Vec<&str> = if standard && header & SHARED != 0 {
        SHARED_IN.to_vec()
    } else if standard {
        DISTRIBUTED_IN.to_vec()
    } else {
        let n = b.byte() % 6;
        (0..n)
            .map(|_| NAMES[usize::from(b.byte()) % NAMES.len()])
            .collect()
    };
    let mut ins: Vec<(&str, Vec<Vec<i64>>)> = Vec::new();
    for name in names {
        let count = b.byte() % 65;
        let bases = (0..count)
            .map(|_| outs.iter().map(|(_, s)| component(b, *s)).collect())
            .collect();
        ins.push((name, bases));
    }
    LinearLayout::from_bases(
        ins,
        outs.iter().map(|(n, s)| (n.as_str(), *s)),
        header & SURJECTIVE != 0,
    )
    .map_err(|e| e.to_string())
}

/// The packed form of a layout whose in-dims are the standard distributed or shared ones (a
/// subset, in order) and whose out-dims are `dim0, dim1, …`; `None` for any other.
pub fn encode_layout(l: &LinearLayout) -> Option<Vec<u8>> {
    let shared = l.has_in_dim("offset");
    let ins: &[&str] = if shared { &SHARED_IN } else { &DISTRIBUTED_IN };
    let present: Vec<&str> = l.in_dim_names().map(|n| n.as_str()).collect();
    let mut expected = ins.iter().filter(|n| present.contains(n));
    if !present.iter().all(|n| expected.next() == Some(n)) {
        return None;
    }
    if !l
        .out_dim_names()
        .enumerate()
        .all(|(i, n)| n.as_str() == format!("dim{i}"))
    {
        return None;
    }
    let mut out = vec![STANDARD_NAMES | if shared { SHARED } else { 0 }];
    out.push(l.num_out_dims() as u8);
    out.extend(l.out_dims().map(|(_, s)| code_of_size(s)));
    for name in ins {
        let bases = l.bases(name).unwrap_or_default();
        out.push(bases.len() as u8);
        for basis in bases {
            for v in basis {
                push_component(&mut out, v);
            }
        }
    }
    Some(out)
}

/// The text form: attribute text applied to `shape`.
pub fn encode_text_layout(text: &str, shape: &[u64]) -> Vec<u8> {
    let mut out = vec![TEXT_FORM, shape.len() as u8];
    out.extend(shape.iter().map(|&s| code_of_size(s)));
    let len = text.len().min(usize::from(u16::MAX));
    out.extend_from_slice(&(len as u16).to_le_bytes());
    out.extend_from_slice(&text.as_bytes()[..len]);
    out
}

/// Picture options: a code byte (element width, banks), padding pairs and a short title.
fn picture_options(b: &mut Bytes) -> PictureOptions {
    let code = b.byte();
    let bits = match code % 4 {
        0 => 16,
        1 => 32,
        2 => 8,
        _ => u32::from(b.byte()) << (b.byte() % 32),
    };
    let banks = [32, 64, 16, 0][usize::from(code / 4 % 4)];
    let padding = (0..code / 16 % 3)
        .map(|_| (size_of_code(b.byte()) as u64, size_of_code(b.byte()) as u64))
        .collect();
    let title_len = usize::from(b.byte() % 16);
    let title = String::from_utf8_lossy(b.take(title_len)).into_owned();
    PictureOptions {
        title,
        bits,
        banks,
        padding,
    }
}

/// The options byte of [`picture_options`] for the defaults (16-bit elements, 32 banks, no
/// padding, no title).
pub const DEFAULT_PICTURE: [u8; 2] = [0, 0];

const ELEMENT_BITS: [u32; 11] = [8, 16, 32, 64, 4, 1, 128, 256, 0, 3, 24];

// ---------------------------------------------------------------------------------------------
// The targets
// ---------------------------------------------------------------------------------------------

/// The batch protocol: the input is a stream of request lines.
pub fn batch_line(data: &[u8]) {
    let mut out = Vec::new();
    batch::run(data, &mut out).expect("writing to a Vec cannot fail");
    let requests: Vec<String> = data
        .split(|&c| c == b'\n')
        .map(|l| String::from_utf8_lossy(l).into_owned())
        .filter(|l| !l.trim().is_empty())
        .collect();
    let text = String::from_utf8(out).expect("answers are UTF-8");
    let answers: Vec<&str> = text.split_terminator('\n').collect();
    assert_eq!(answers.len(), requests.len(), "one answer per request line");
    for (request, answer) in requests.iter().zip(answers) {
        let a: Value = serde_json::from_str(answer).expect("an answer is JSON");
        let ok = a["ok"].as_bool().expect("an answer has a boolean 'ok'");
        if !ok {
            assert!(a["error"].is_string(), "a failure has an error message: {answer}");
        }
        let id = serde_json::from_str::<Value>(request)
            .ok()
            .and_then(|r| r.get("id").cloned());
        assert_eq!(a.get("id"), id.as_ref(), "the id is echoed: {answer}");
    }
}

/// Parses, prints and re-parses; the second parse must give the same value.
fn assert_round_trip<T>(value: &T)
where
    T: std::str::FromStr + std::fmt::Display + PartialEq + std::fmt::Debug,
    T::Err: std::fmt::Display,
{
    let printed = value.to_string();
    match printed.parse::<T>() {
        Ok(again) => assert_eq!(&again, value, "printed as {printed}"),
        Err(e) => panic!("{printed} does not parse back: {e}"),
    }
}

/// Shapes an encoding of `rank` dimensions is converted at.
fn shapes(rank: usize) -> [Vec<u64>; 3] {
    [
        vec![1; rank],
        vec![64; rank],
        (0..rank as u32).map(|i| 1u64 << (2 * i + 3)).collect(),
    ]
}

/// Triton's attribute text: an encoding, a tensor type, an alias line, a file's aliases.
pub fn encoding_text(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(e) = text.parse::<Encoding>() {
        assert_round_trip(&e);
        for shape in shapes(e.rank().unwrap_or(2).min(6)) {
            let _ = e.to_linear_layout(&shape);
        }
    }
    if let Ok(t) = text.parse::<TensorType>() {
        assert_round_trip(&t);
        let _ = t.to_linear_layout();
    }
    if let Ok(d) = text.parse::<AliasDef>() {
        assert_round_trip(&d);
    }
    if let Ok(aliases) = parse_aliases(&text) {
        for e in aliases.values() {
            assert_round_trip(&**e);
        }
    }
}

/// The archs the passes run for, and the option sets.
const ARCHS: [&str; 3] = ["gfx942", "gfx950", "gfx1201"];
const PASSES: [(Pass, u32, u32); 5] = [
    (Pass::Coalesce, 1, 0),
    (Pass::CoalesceCleanup, 1, 0),
    (Pass::AccelerateMatmul, 1, 0),
    (Pass::AccelerateMatmul, 2, 16),
    (Pass::CoalesceAsyncCopy, 1, 0),
];

/// The ops each pass must report, decided or not.
fn handled(pass: Pass) -> &'static [&'static str] {
    match pass {
        Pass::Coalesce | Pass::CoalesceCleanup => &[
            "tt.load",
            "tt.store",
            "tt.atomic_rmw",
            "tt.atomic_cas",
            "ttg.async_copy_global_to_local",
        ],
        Pass::AccelerateMatmul => &["tt.dot", "tt.dot_scaled"],
        Pass::CoalesceAsyncCopy => &["ttg.async_copy_global_to_local"],
    }
}

fn reported(r: &Report) -> usize {
    r.mem.as_ref().map_or(0, Vec::len)
        + r.dots.as_ref().map_or(0, Vec::len)
        + r.copies.as_ref().map_or(0, Vec::len)
        + r.undecided.len()
}

/// TTGIR text: every module read, then every pass on every arch, and the module lowered
/// (`lower::ttgir_kernel`) for every arch: a kernel it produces validates and emits LLVM IR.
pub fn ttgir_passes(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(modules) = Module::parse_all(&text) else {
        return;
    };
    for m in &modules {
        for arch in ARCHS {
            for (pass, kpack, nonkdim) in PASSES {
                let opts = PassOptions {
                    kpack,
                    nonkdim,
                    ..PassOptions::new(pass, arch)
                };
                let Ok(report) = passes::run(m, &opts) else {
                    continue;
                };
                let _ = (report.to_json(), report.to_text());
                let seen = m
                    .ops
                    .iter()
                    .filter(|o| handled(pass).contains(&o.name.as_str()))
                    .count();
                assert_eq!(reported(&report), seen, "{pass:?} on {arch}: an op is missing");
            }
            if let Ok(t) = Target::by_name(arch)
                && let Ok(k) = lower::ttgir_kernel(m, t)
            {
                k.program.validate().expect("a lowered kernel validates");
                k.llvm_ir().expect("a lowered kernel emits");
                // Running it may fail (its buffers are too small for its accesses), never panic.
                let mut buffers = vec![vec![0u8; 1 << 16]; k.program.buffers.len()];
                let launch = lower::Launch {
                    scalars: vec![16; k.program.scalars.len()],
                    workgroup: [1, 0, 0],
                    grid: [2, 1, 1],
                };
                let _ = lower::run_launch(&k.program, &mut buffers, &launch);
            }
        }
    }
}

/// Past this many bits of tensor elements or hardware positions, and up to the views' limit
/// ([`view::MAX_VIEW_ELEMENTS`]), `show` draws no views: there they take the paths of smaller
/// layouts at up to 16 times the cost, which would only slow the fuzzer down. Layouts past the
/// limit are drawn (and must be refused at once).
const SHOW_BITS: u32 = 16;

/// The text views, the bases and both pictures of a layout.
pub fn show(data: &[u8]) {
    let mut b = Bytes::new(data);
    let options = picture_options(&mut b);
    let Ok(l) = layout(&mut b) else { return };
    let _ = view::pasteable_bases(&l);
    let bits = l.total_in_bits().max(l.total_out_bits());
    if bits > SHOW_BITS && bits <= view::MAX_VIEW_ELEMENTS.trailing_zeros() {
        return;
    }
    let _ = view::tensor_view(&l);
    let _ = view::hardware_view(&l);
    let _ = view::svg(&l, &options);
    let _ = view::html(&l, &options);
}

/// A conversion's cost, classification and bank conflicts on a target.
pub fn convert_cost(data: &[u8]) {
    let mut b = Bytes::new(data);
    let target: &Target = &TARGETS[usize::from(b.byte()) % TARGETS.len()];
    let bits = ELEMENT_BITS[usize::from(b.byte()) % ELEMENT_BITS.len()];
    let Ok(src) = layout(&mut b) else { return };
    let dst = if b.byte().is_multiple_of(2) {
        layout(&mut b)
    } else {
        let outs: Vec<(String, i64)> = src.out_dims().map(|(n, s)| (n.to_string(), s as i64)).collect();
        layout_over(&mut b, Some(&outs))
    };
    let Ok(dst) = dst else { return };
    let _ = convert::classify(&src, &dst);
    let _ = convert::convert_cost(&src, &dst, bits, target);
    if let Ok(shared) = layout(&mut b) {
        for op in [LdsOp::Read, LdsOp::Write] {
            let _ = convert::lds_bank_conflicts(&src, &shared, bits, target, op);
        }
        let _ = convert::triton_bank_conflicts(&src, &shared, bits);
        let _ = convert::simulate_bank_conflicts(&src, &shared, bits, target, LdsOp::Read);
    }
}

/// Tensors of more elements than this are not lowered by the `lower` target: the interpreter
/// runs every kernel the target generates, and larger tensors would only slow the fuzzer down
/// (the lowering's own bound, 2^24 elements, lies far above).
pub const LOWER_MAX_ELEMENTS: u64 = 1 << 12;

/// Kernels whose layouts have more hardware positions (registers × threads) than this are
/// generated, validated and emitted by the `lower` target but not run in the interpreter, for
/// the same reason.
pub const LOWER_MAX_RUN_POSITIONS: u64 = 1 << 16;

/// How the destination of a conversion is read: a layout of its own, one over the source's
/// out-dims, or the source with some of its register, lane and warp bases exchanged.
fn destination(b: &mut Bytes, src: &LinearLayout) -> Result<LinearLayout, String> {
    match b.byte() % 3 {
        0 => layout(b),
        1 => {
            let outs: Vec<(String, i64)> = src.out_dims().map(|(n, s)| (n.to_string(), s as i64)).collect();
            layout_over(b, Some(&outs))
        }
        _ => {
            let names: Vec<String> = src.in_dim_names().map(|n| n.to_string()).collect();
            let mut groups: Vec<Vec<Vec<u64>>> =
                names.iter().map(|n| src.bases(n).unwrap_or_default()).collect();
            let slots: Vec<(usize, usize)> = groups
                .iter()
                .enumerate()
                .flat_map(|(g, v)| (0..v.len()).map(move |i| (g, i)))
                .collect();
            if !slots.is_empty() {
                for _ in 0..b.byte() % 8 {
                    let (x, y) = (
                        usize::from(b.byte()) % slots.len(),
                        usize::from(b.byte()) % slots.len(),
                    );
                    let (a, c) = (slots[x], slots[y]);
                    let t = std::mem::take(&mut groups[a.0][a.1]);
                    groups[a.0][a.1] = std::mem::replace(&mut groups[c.0][c.1], t);
                }
            }
            let ins = names.iter().zip(groups).map(|(n, g)| {
                let g: Vec<Vec<i64>> = g
                    .into_iter()
                    .map(|v| v.into_iter().map(|x| x as i64).collect())
                    .collect();
                (n.as_str(), g)
            });
            LinearLayout::from_bases(ins, src.out_dims().map(|(n, s)| (n.to_string(), s as i64)), false)
                .map_err(|e| e.to_string())
        }
    }
}

/// The tensor's shape: per out-dim of `l` a 16-bit code, with its top bit clear a size that
/// rounds up to the out-dim's (`size - code % (size / 2)`), set any size (`code & 0x7fff`).
fn lower_shape(b: &mut Bytes, l: &LinearLayout) -> Vec<u64> {
    l.out_dims()
        .map(|(_, size)| {
            let code = b.u16();
            if code & 0x8000 != 0 {
                u64::from(code & 0x7fff)
            } else {
                size - u64::from(code) % (size / 2).max(1)
            }
        })
        .collect()
}

/// The 16-bit code [`lower_shape`] reads back as `shape` for an out-dim of `size` elements.
pub fn shape_code(shape: u64, size: u64) -> u16 {
    if shape <= size && shape * 2 > size {
        (size - shape) as u16
    } else {
        0x8000 | shape.min(0x7fff) as u16
    }
}

/// A layout pair, a shape, a dtype and a target: the copy kernel of the source and the
/// conversion kernel, each (when generated) validated, emitted and run (see the module docs).
pub fn lower(data: &[u8]) {
    let mut b = Bytes::new(data);
    let target: &'static Target = &TARGETS[usize::from(b.byte()) % TARGETS.len()];
    let dtype = Dtype::ALL[usize::from(b.byte()) % Dtype::ALL.len()];
    let Ok(src) = layout(&mut b) else { return };
    let Ok(dst) = destination(&mut b, &src) else {
        return;
    };
    if src.total_out_size() > LOWER_MAX_ELEMENTS || dst.total_out_size() > LOWER_MAX_ELEMENTS {
        return;
    }
    let shape = lower_shape(&mut b, &src);
    let seed = u64::from(b.u16()) | 1;
    if let Ok(k) = lower::copy_kernel(&src, &shape, dtype, target) {
        check_kernel(&k, &src, &shape, dtype, seed);
    }
    if let Ok(k) = lower::convert_kernel(&src, &dst, &shape, dtype, target) {
        check_kernel(&k, &dst, &shape, dtype, seed);
    }
}

/// The law of a generated kernel (see the module docs); `dst` is the layout it stores through.
fn check_kernel(k: &Kernel, dst: &LinearLayout, shape: &[u64], dtype: Dtype, seed: u64) {
    let p = &k.program;
    if let Err(e) = p.validate() {
        panic!("a generated program is invalid: {e}");
    }
    if let Err(e) = k.llvm_ir() {
        panic!("a generated program has no LLVM IR: {e}");
    }
    let positions = dst.total_in_size().max(u64::from(p.threads));
    if positions > LOWER_MAX_RUN_POSITIONS {
        return;
    }
    let bytes = (dtype.bits() / 8) as usize;
    let elements: u64 = shape.iter().product();
    let mut x = seed;
    let input: Vec<u8> = (0..elements as usize * bytes)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let mut buffers: Vec<Vec<u8>> = p
        .buffers
        .iter()
        .map(|b| vec![0u8; b.bytes().unwrap_or(0) as usize])
        .collect();
    assert!(buffers.len() >= 2, "a kernel has an input and an output");
    buffers[0] = input.clone();
    if let Err(e) = lower::run(p, &mut buffers) {
        panic!("the interpreter refuses a generated {} kernel: {e}", p.name);
    }
    if buffers[1] != input {
        let bad = (0..input.len()).find(|&i| buffers[1][i] != input[i]).unwrap_or(0) / bytes;
        panic!("{}: out != in (first differing element {bad})", p.name);
    }
    if buffers.len() < 3 {
        return;
    }
    let has = |d: &str| dst.has_in_dim(d);
    let regs = if has("register") {
        dst.in_dim_size("register").unwrap_or(1)
    } else {
        1
    };
    let wave = u64::from(p.wave_size);
    for t in 0..u64::from(p.threads) {
        for r in 0..regs {
            let inputs: Vec<(&str, u64)> = [
                ("register", r),
                ("lane", t % wave),
                ("warp", t / wave),
                ("block", 0),
            ]
            .into_iter()
            .filter(|(d, _)| has(d))
            .collect();
            let coords = dst
                .apply(&inputs)
                .expect("the destination applies to its own in-dims");
            let mut off = 0u64;
            let mut inside = true;
            for (&c, &s) in coords.iter().zip(shape) {
                inside &= c < s;
                off = off * s + c;
            }
            let want: &[u8] = if inside {
                &input[off as usize * bytes..(off as usize + 1) * bytes]
            } else {
                &[0u8; 8][..bytes]
            };
            let at = ((t * regs + r) as usize) * bytes;
            assert_eq!(&buffers[2][at..at + bytes], want, "regs[{t}*{regs}+{r}] is wrong");
        }
    }
}

/// The rewriting layout passes on the first module of the text: each refuses or prints a
/// module the reader takes, on which the pass runs again.
pub fn layout_passes(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if Module::parse(&text).is_err() {
        return;
    }
    for name in LayoutPass::names() {
        let Ok(pass) = name.parse::<LayoutPass>() else {
            continue;
        };
        for arch in ["gfx942", "gfx950"] {
            let opts = LayoutPassOptions::new(arch);
            let Ok(out) = run_layout_pass(&text, pass, &opts) else {
                continue;
            };
            if let Err(e) = Module::parse(&out) {
                panic!("{name} printed a module the reader refuses: {e}\n{out}");
            }
            let _ = run_layout_pass(&out, pass, &opts);
        }
    }
}

/// Fuzz target `compile`: a module's text through `lower::compile` for gfx942 and gfx1100 in
/// both layout modes (see the module docs for the law).
pub fn compile(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if Module::parse(&text).is_err() {
        return;
    }
    for arch in ["gfx942", "gfx1100"] {
        let Ok(target) = Target::by_name(arch) else {
            continue;
        };
        let triton = lower::CompileOptions {
            layouts: lower::Layouts::Triton,
            ..lower::CompileOptions::new(4)
        };
        let (Ok(t), Ok(c)) = (
            lower::compile(&text, target, &triton),
            lower::compile(&text, target, &lower::CompileOptions::new(4)),
        ) else {
            continue;
        };
        assert!(
            c.cost.cycles <= t.cost.cycles && c.cost.instructions <= t.cost.instructions,
            "{arch}: the cost mode's {} against Triton's layouts' {}",
            c.cost,
            t.cost
        );
        if let Err(e) = c.kernel.program.validate() {
            panic!("{arch}: a compiled program is invalid: {e}");
        }
    }
}
