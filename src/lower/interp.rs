//! The reference semantics: one workgroup executed on the CPU, lane by lane.
//!
//! Every operation runs for every thread before the next one starts. That order is one of the
//! executions the hardware may choose only if the program has no races, so the interpreter
//! also *checks* for them: each LDS byte remembers which wave last wrote and read it and in
//! which barrier interval; a read of a byte another wave wrote in the same interval (a missing
//! barrier), a write over another wave's unread data, a read of a byte nobody wrote, a global
//! access outside its buffer and two threads storing different values to one global element
//! between two workgroup barriers (`tl.debug_barrier()` orders global memory) are errors.
//! Direct-to-LDS loads land in LDS only at the next [`Op::WaitDirectLoads`]: a barrier or the
//! kernel's end with such loads still in flight is an error too.
//!
//! ```
//! use linear_layout::lower::{run, Buffer, GlobalOffset, Op, Program, Extent, Uniform, XorMap};
//! // Each of 64 threads copies element tid.
//! let mut p = Program::new("copy", 64, 64);
//! for name in ["in", "out"] {
//!     p.buffers.push(Buffer { name: name.into(), elements: Some(64), element_bits: 32, address: None });
//! }
//! let x = p.value(32);
//! let at = GlobalOffset { coords: vec![XorMap { cols: vec![1, 2, 4, 8, 16, 32], constant: 0 }], strides: vec![Extent::Elements(1)], bounds: vec![None], base: Uniform::default(), when: vec![], index: None, predicate: None, held: None, held_row: None };
//! p.ops.push(Op::GlobalLoad { dst: vec![x], buffer: 0, offset: at.clone(), other: 0 });
//! p.ops.push(Op::GlobalStore { src: vec![x], buffer: 1, offset: at });
//! let input: Vec<u8> = (0..=255).collect();
//! let mut buffers = vec![input.clone(), vec![0; 256]];
//! run(&p, &mut buffers)?;
//! assert_eq!(buffers[1], input);
//! # Ok::<(), linear_layout::lower::LowerError>(())
//! ```

use super::error::LowerError;
use super::ir::{
    BranchCondition, Env, GlobalOffset, Launch, Op, Program, SwapKind, Value, mma, numeric, walk,
};

const NEVER: u32 = u32::MAX;
const MANY: u32 = u32::MAX - 1;

/// Per-byte bookkeeping of the race check.
#[derive(Clone, Copy)]
struct Tag {
    write_interval: u32,
    write_wave: u32,
    read_interval: u32,
    read_wave: u32,
    /// The last write was an atomic add (others may add in the same interval).
    atomic: bool,
}

struct State<'a> {
    p: &'a Program,
    /// `vals[value * threads + tid]`.
    vals: Vec<u64>,
    lds: Vec<u8>,
    tags: Vec<Tag>,
    interval: u32,
    /// Bytes added to every LDS address (an [`Op::LdsWindow`]'s offset).
    lds_shift: u64,
    /// Per thread, whether it runs the ops at hand: every thread, but where threads part ways
    /// ([`BranchCondition::PerThread`]) those that took the branch or stay in the loop. The ops
    /// under such a branch compute what a thread computes alone, so they run in every thread;
    /// only what the branch or loop leaves is each thread's own.
    active: Vec<bool>,
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 }
}

/// Scalar argument `index`'s bits in `launch`, as wide as its type.
fn scalar_bits(p: &Program, launch: &Launch, index: usize) -> Result<u64, LowerError> {
    match (p.scalars.get(index), launch.scalars.get(index)) {
        (Some(s), Some(&x)) => Ok(x & mask(s.bits())),
        _ => err(format!("scalar argument {index} is not given")),
    }
}

fn err<T>(msg: String) -> Result<T, LowerError> {
    Err(LowerError::new(msg))
}

/// A live thread's held offset must be its element offset (without the data index) modulo
/// 2³², and its held row `start + coords[dim]`: the code takes its address, or that
/// dimension's part of it, from the register instead of the formula.
fn check_held(
    offset: &GlobalOffset,
    s: &State,
    env: &Env,
    t: usize,
    first: Option<u64>,
    buffer: &str,
) -> Result<(), LowerError> {
    match (offset.held, first) {
        (Some(h), Some(f)) if s.get(h, t) as u32 != f as u32 => err(format!(
            "thread {t}'s held offset into {buffer} is {} where its coordinates say {f}",
            s.get(h, t) as u32
        )),
        _ => Ok(()),
    }?;
    let (Some(h), Some(_)) = (&offset.held_row, first) else {
        return Ok(());
    };
    let row = h
        .start
        .value_in(env)
        .zip(offset.coords.get(h.dim))
        .map(|(start, c)| (start as u64).wrapping_add(c.eval(t as u64)) as u32);
    match row {
        Some(row) if row == s.get(h.value, t) as u32 => Ok(()),
        _ => err(format!(
            "thread {t}'s held row of dimension {} into {buffer} is {} where its coordinates say {row:?}",
            h.dim,
            s.get(h.value, t) as u32
        )),
    }
}

impl State<'_> {
    #[inline]
    fn get(&self, v: Value, t: usize) -> u64 {
        self.vals[v.0 as usize * self.p.threads as usize + t]
    }

    #[inline]
    fn set(&mut self, v: Value, t: usize, x: u64) {
        let bits = self.p.value_bits(v);
        let n = self.p.threads as usize;
        self.vals[v.0 as usize * n + t] = x & mask(bits);
    }

    fn wave(&self, t: usize) -> u32 {
        t as u32 / self.p.wave_size
    }

    fn lds_range(&self, addr: u64, bytes: u64, what: &str) -> Result<std::ops::Range<usize>, LowerError> {
        let addr = addr.wrapping_add(self.lds_shift);
        if addr.checked_add(bytes).is_none_or(|e| e > self.lds.len() as u64) {
            return err(format!(
                "{what} at LDS byte {addr} (+{bytes}) is outside the {} B of LDS",
                self.lds.len()
            ));
        }
        if bytes > 0 && !addr.is_multiple_of(bytes.min(16)) {
            return err(format!("{what} of {bytes} B at LDS byte {addr} is misaligned"));
        }
        Ok(addr as usize..(addr + bytes) as usize)
    }

    fn lds_write(&mut self, t: usize, addr: u64, data: &[u8]) -> Result<(), LowerError> {
        let r = self.lds_range(addr, data.len() as u64, "write")?;
        let w = self.wave(t);
        for (i, b) in r.zip(data) {
            let tag = &mut self.tags[i];
            // Two waves writing one byte between barriers is a race unless they write the
            // same value (copies of one element held by both).
            if tag.write_interval == self.interval && tag.write_wave != w && self.lds[i] != *b {
                return err(format!(
                    "LDS byte {i}: waves {} and {w} write different values to it between two barriers",
                    tag.write_wave
                ));
            }
            if tag.read_interval == self.interval && tag.read_wave != w {
                return err(format!(
                    "LDS byte {i}: wave {w} overwrites it while another wave reads it (missing barrier)"
                ));
            }
            tag.write_interval = self.interval;
            tag.write_wave = w;
            tag.atomic = false;
            self.lds[i] = *b;
        }
        Ok(())
    }

    /// Thread `t` adds `value` to the 32-bit word at `addr`, atomically: other waves may add to
    /// it between the same barriers, but not read or write it otherwise.
    fn lds_atomic_add(&mut self, t: usize, addr: u64, value: u32) -> Result<(), LowerError> {
        let r = self.lds_range(addr, 4, "atomic add")?;
        let w = self.wave(t);
        let start = r.start;
        let mut word = [0u8; 4];
        for i in r {
            let tag = &mut self.tags[i];
            if tag.write_interval == NEVER {
                return err(format!("LDS byte {i} is added to but nobody wrote it"));
            }
            let other_plain_write = tag.write_interval == self.interval && tag.write_wave != w && !tag.atomic;
            let other_read = tag.read_interval == self.interval && tag.read_wave != w;
            if other_plain_write || other_read {
                return err(format!(
                    "LDS byte {i}: wave {w} adds to it while another wave accesses it (missing barrier)"
                ));
            }
            tag.write_interval = self.interval;
            tag.write_wave = w;
            tag.atomic = true;
            word[i - start] = self.lds[i];
        }
        let sum = u32::from_le_bytes(word).wrapping_add(value);
        self.lds[start..start + 4].copy_from_slice(&sum.to_le_bytes());
        Ok(())
    }

    fn lds_read(&mut self, t: usize, addr: u64, bytes: u64) -> Result<Bytes, LowerError> {
        if bytes > 16 {
            return err("an LDS read of more than 128 bits".to_string());
        }
        let r = self.lds_range(addr, bytes, "read")?;
        let start = r.start;
        let w = self.wave(t);
        let mut out = ([0u8; 16], bytes as usize);
        for i in r {
            let tag = &mut self.tags[i];
            if tag.write_interval == NEVER {
                return err(format!("LDS byte {i} is read but nobody wrote it"));
            }
            if tag.write_interval == self.interval && tag.write_wave != w {
                return err(format!(
                    "LDS byte {i}: wave {w} reads what wave {} wrote without a barrier between",
                    tag.write_wave
                ));
            }
            if tag.read_interval == self.interval && tag.read_wave != w {
                tag.read_wave = MANY;
            } else {
                tag.read_interval = self.interval;
                tag.read_wave = w;
            }
            out.0[i - start] = self.lds[i];
        }
        Ok(out)
    }
}

/// Up to 128 bits of one access, little-endian.
type Bytes = ([u8; 16], usize);

fn to_bytes(s: &State, vals: &[Value], t: usize, bits: u32) -> Result<Bytes, LowerError> {
    let w = (bits / 8) as usize;
    let mut out = [0u8; 16];
    if w * vals.len() > 16 {
        return err("an access moves more than 128 bits".to_string());
    }
    for (i, &v) in vals.iter().enumerate() {
        let x = s.get(v, t).to_le_bytes();
        out[i * w..(i + 1) * w].copy_from_slice(&x[..w]);
    }
    Ok((out, w * vals.len()))
}

fn read_le(bytes: &[u8]) -> u64 {
    let mut x = [0u8; 8];
    x[..bytes.len().min(8)].copy_from_slice(&bytes[..bytes.len().min(8)]);
    u64::from_le_bytes(x)
}

/// Runs `p` on `buffers` (one byte vector per [`Program::buffers`] entry, at least as large as
/// the buffer), checking for races and out-of-bounds accesses (see the module docs).
///
/// ```
/// use linear_layout::lower::{run, Program};
/// let p = Program::new("nothing", 64, 64);
/// assert!(run(&p, &mut []).is_ok());
/// ```
pub fn run(p: &Program, buffers: &mut [Vec<u8>]) -> Result<(), LowerError> {
    run_with(p, buffers, &[])
}

/// [`run`] with the values of the program's scalar arguments ([`Program::scalars`], in order).
/// A buffer sized at run time holds as many elements as its data.
///
/// ```
/// use linear_layout::lower::{run_with, Program, Scalar};
/// let mut p = Program::new("k", 64, 64);
/// p.scalars.push(Scalar { name: "n".into(), ty: "i32", position: 0 });
/// assert!(run_with(&p, &mut [], &[7]).is_ok());
/// assert!(run_with(&p, &mut [], &[]).is_err());
/// ```
pub fn run_with(p: &Program, buffers: &mut [Vec<u8>], scalars: &[u64]) -> Result<(), LowerError> {
    run_launch(p, buffers, &Launch::single(scalars.to_vec()))
}

/// [`run`] as workgroup `launch.workgroup` of a grid of `launch.grid` workgroups, with the
/// scalar arguments `launch.scalars` (other workgroups do not run: what they would store is not
/// in the buffers).
///
/// ```
/// use linear_layout::lower::{run_launch, Launch, Program};
/// let p = Program::new("k", 64, 64);
/// let l = Launch { scalars: vec![], workgroup: [5, 0, 0], grid: [4, 1, 1] };
/// assert!(run_launch(&p, &mut [], &l).is_err()); // workgroup 5 of 4
/// ```
pub fn run_launch(p: &Program, buffers: &mut [Vec<u8>], launch: &Launch) -> Result<(), LowerError> {
    let scalars = launch.scalars.as_slice();
    if launch.workgroup.iter().zip(&launch.grid).any(|(w, g)| w >= g) {
        return err(format!(
            "workgroup {:?} lies outside the grid {:?}",
            launch.workgroup, launch.grid
        ));
    }
    let arguments: Vec<usize> = (0..p.buffers.len())
        .filter(|&b| p.buffers[b].is_argument())
        .collect();
    if buffers.len() != arguments.len() {
        return err(format!(
            "the program takes {} buffers, {} given",
            arguments.len(),
            buffers.len()
        ));
    }
    if scalars.len() != p.scalars.len() {
        return err(format!(
            "the program takes {} scalar arguments, {} given",
            p.scalars.len(),
            scalars.len()
        ));
    }
    // Elements of each argument buffer: as declared, or as many as its data holds; a buffer at
    // a loaded address is placed where its address is bound.
    let mut views = vec![None; p.buffers.len()];
    for (memory, (&i, data)) in arguments.iter().zip(buffers.iter()).enumerate() {
        let b = &p.buffers[i];
        let held = data.len() as u64 * 8 / u64::from(b.element_bits.max(1));
        let limit = match b.elements {
            Some(n) if held < n => {
                return err(format!(
                    "buffer {} needs {} bytes, {} given",
                    b.name,
                    b.bytes().unwrap_or(0),
                    data.len()
                ));
            }
            Some(n) => n,
            None => held,
        };
        views[i] = Some(View {
            memory,
            byte: 0,
            limit,
        });
    }
    p.validate()?;
    let threads = p.threads as usize;
    if p.lds_bytes > 1 << 24 {
        return err("the program's LDS is larger than 16 MiB".to_string());
    }
    let cells = p.values.len().checked_mul(threads).filter(|&c| c <= 1 << 28);
    let Some(cells) = cells else {
        return err("the program has too many values to interpret".to_string());
    };
    let untagged = Tag {
        write_interval: NEVER,
        write_wave: NEVER,
        read_interval: NEVER,
        read_wave: NEVER,
        atomic: false,
    };
    let mut s = State {
        p,
        vals: vec![0; cells],
        lds: vec![0; p.lds_bytes as usize],
        tags: vec![untagged; p.lds_bytes as usize],
        interval: 0,
        lds_shift: 0,
        active: vec![true; p.threads as usize],
    };
    let mut r = Run {
        env: Env {
            launch,
            carried: Vec::new(),
            derived: &p.derived,
        },
        views,
        stored: vec![Vec::new(); p.buffers.len()],
        in_flight: Vec::new(),
        loop_operations: 0,
    };
    exec(p, &mut s, &mut r, buffers, &p.ops)?;
    if !r.in_flight.is_empty() {
        return err("the kernel ends with direct-to-LDS loads never waited for".to_string());
    }
    Ok(())
}

/// Where a buffer's elements lie: in the given buffer `memory`, from byte `byte`, `limit` of
/// them.
#[derive(Clone, Copy)]
struct View {
    memory: usize,
    byte: usize,
    limit: u64,
}

/// Where the interpreter places argument buffer `k` (counting the buffers that are arguments):
/// a pointer a kernel loads from memory (a table of buffers) is this address plus a byte
/// offset. A kernel running on hardware reads the device's addresses instead.
///
/// ```
/// use linear_layout::lower::interpreted_address;
/// assert_eq!(interpreted_address(1) - interpreted_address(0), 1 << 40);
/// ```
pub fn interpreted_address(k: usize) -> u64 {
    (k as u64 + 1) << ADDRESS_BITS
}

/// Bytes an argument buffer may span at its interpreted address.
const ADDRESS_BITS: u32 = 40;

/// The argument buffer and byte offset an [`interpreted_address`] plus an offset names.
fn interpreted_place(address: u64) -> (usize, usize) {
    (
        (address >> ADDRESS_BITS).wrapping_sub(1) as usize,
        (address & ((1 << ADDRESS_BITS) - 1)) as usize,
    )
}

impl Run<'_> {
    /// Buffer `b`'s place, once its address is bound.
    fn view(&self, b: usize, name: &str) -> Result<View, LowerError> {
        self.views
            .get(b)
            .copied()
            .flatten()
            .ok_or_else(|| LowerError::new(format!("buffer {name} is accessed before its address is bound")))
    }
}

/// The state of one execution besides values and LDS.
struct Run<'a> {
    env: Env<'a>,
    /// Where each buffer's elements lie (`None`: a loaded address not bound yet).
    views: Vec<Option<View>>,
    /// Global stores since the last workgroup barrier: element -> value stored and the thread
    /// that stored it, to catch two threads storing different values.
    stored: Vec<Vec<Option<(u64, usize)>>>,
    /// Direct-to-LDS loads not yet waited for: (thread, LDS address, bytes).
    in_flight: Vec<(usize, u64, Vec<u8>)>,
    /// Operations the loops ran so far.
    loop_operations: u64,
}

/// Operations the loops of one execution may run in the interpreter (all loops together, each
/// iteration counting the operations of its body): the bound on an execution's work.
const MAX_LOOP_OPERATIONS: u64 = 1 << 22;

/// The index of loop slot `k` in the environment, which grows to hold it.
fn slot(r: &mut Run, k: u32) -> Result<usize, LowerError> {
    let k = k as usize;
    if k >= 1 << 16 {
        return err(format!("loop slot {k} is out of range"));
    }
    if r.env.carried.len() <= k {
        r.env.carried.resize(k + 1, 0);
    }
    Ok(k)
}

fn missing() -> LowerError {
    LowerError::new("a loop or a branch reads a uniform the launch does not have")
}

/// Whether a branch's test holds: its uniforms compared, or the bit every thread holds (an
/// error where threads disagree: the emitted code would read the first lane's). A test each
/// thread makes for itself holds as any active thread's does.
fn branch_holds(cond: &BranchCondition, s: &State, r: &Run, threads: usize) -> Result<bool, LowerError> {
    match cond {
        BranchCondition::Uniform(c) => c.value_in(&r.env).ok_or_else(missing),
        BranchCondition::PerThread(v) => Ok((0..threads).any(|t| s.active[t] && s.get(*v, t) & 1 == 1)),
        BranchCondition::Value(v) => {
            let first = s.get(*v, 0) & 1;
            if (1..threads).any(|t| s.get(*v, t) & 1 != first) {
                return err("a branch's test differs between threads".to_string());
            }
            Ok(first == 1)
        }
    }
}

/// Executes `ops` (a program's, a loop body's or a branch's).
fn exec(
    p: &Program,
    s: &mut State,
    r: &mut Run,
    buffers: &mut [Vec<u8>],
    ops: &[Op],
) -> Result<(), LowerError> {
    let threads = p.threads as usize;
    let wave = p.wave_size as usize;
    for op in ops {
        match op {
            Op::GlobalLoad {
                dst, buffer, offset, ..
            }
            | Op::GlobalStore {
                src: dst,
                buffer,
                offset,
            } => {
                let other = match op {
                    Op::GlobalLoad { other, .. } => *other,
                    _ => 0,
                };
                let b = p
                    .buffers
                    .get(*buffer)
                    .ok_or_else(|| LowerError::new("no such buffer"))?;
                let view = r.view(*buffer, &b.name)?;
                let bits = b.element_bits;
                let store = matches!(op, Op::GlobalStore { .. });
                let firsts = offset.eval_all_in(threads, &r.env);
                // The buffer instructions read the offset as two unsigned parts: the uniform
                // part the access computes (`soffset`: the base less a held row's part, unless
                // a term of it subtracts or the offset is held whole in a register) and the
                // rest per thread.
                let rest = offset.uniform_rest();
                let soffset =
                    (offset.held.is_none() && !rest.subtracts()).then(|| rest.value_in(&r.env).unwrap_or(0));
                for (t, first) in firsts.into_iter().enumerate() {
                    let live = offset.predicate.is_none_or(|p| s.get(p, t) & 1 == 1);
                    check_held(offset, s, &r.env, t, first.filter(|_| live), &b.name)?;
                    let index = offset
                        .index
                        .map_or(0, |i| s.get(i, t) as u32 as i32 as i64 as u64);
                    let first = first.filter(|_| live).map(|f| f.wrapping_add(index));
                    let Some(first) = first else {
                        if !store {
                            dst.iter().for_each(|&v| s.set(v, t, other));
                        }
                        continue;
                    };
                    if let Some(base) = soffset {
                        let per_thread = (first as i64).wrapping_sub(base);
                        if base < 0 || per_thread < 0 {
                            return err(format!(
                                "thread {t}'s offset into {} splits into a uniform {base} and a per-thread {per_thread}: the buffer instructions read both unsigned",
                                b.name
                            ));
                        }
                    }
                    let n = dst.len() as u64;
                    if first.checked_add(n).is_none_or(|e| e > view.limit) {
                        return err(format!(
                            "thread {t} accesses elements {first}..{} of {} ({} elements)",
                            first + n,
                            b.name,
                            view.limit
                        ));
                    }
                    let at = view.byte + (first * u64::from(bits) / 8) as usize;
                    let len = (n * u64::from(bits) / 8) as usize;
                    if store {
                        let (data, _) = to_bytes(s, dst, t, bits)?;
                        let w = (bits / 8) as usize;
                        let seen = &mut r.stored[*buffer];
                        if seen.is_empty() {
                            seen.resize(view.limit as usize, None);
                        }
                        for i in 0..dst.len() {
                            let v = read_le(&data[i * w..(i + 1) * w]);
                            let prev = seen[(first + i as u64) as usize].replace((v, t));
                            if prev.is_some_and(|(x, other)| x != v && other != t) {
                                return err(format!(
                                    "two threads store different values to element {} of {}",
                                    first + i as u64,
                                    b.name
                                ));
                            }
                        }
                        buffers[view.memory][at..at + len].copy_from_slice(&data[..len]);
                    } else {
                        let w = (bits / 8) as usize;
                        for (i, &v) in dst.iter().enumerate() {
                            let x = read_le(&buffers[view.memory][at + i * w..at + (i + 1) * w]);
                            s.set(v, t, x);
                        }
                    }
                }
            }
            Op::GlobalAtomic {
                dst,
                src,
                cmp,
                buffer,
                offset,
                kind,
                ty,
                neighbour,
                ..
            } => {
                let b = p
                    .buffers
                    .get(*buffer)
                    .ok_or_else(|| LowerError::new("no such buffer"))?;
                let view = r.view(*buffer, &b.name)?;
                let (bits, w) = (b.element_bits, (b.element_bits / 8) as usize);
                let firsts = offset.eval_all_in(threads, &r.env);
                // The elements each thread updates: (operand, old value's destination, live);
                // a pair's two, or one.
                let mut elements = vec![(*src, *dst, offset.predicate)];
                if let Some(n) = neighbour {
                    elements.push((n.src, n.dst, n.predicate));
                }
                for (t, first) in firsts.into_iter().enumerate() {
                    let live = offset.predicate.is_none_or(|p| s.get(p, t) & 1 == 1);
                    check_held(offset, s, &r.env, t, first.filter(|_| live), &b.name)?;
                    let index = offset
                        .index
                        .map_or(0, |i| s.get(i, t) as u32 as i32 as i64 as u64);
                    for (k, &(value, old_to, predicate)) in elements.iter().enumerate() {
                        let live = predicate.is_none_or(|p| s.get(p, t) & 1 == 1);
                        let Some(at) = first
                            .filter(|_| live)
                            .map(|f| f.wrapping_add(index).wrapping_add(k as u64))
                        else {
                            if let Some(d) = old_to {
                                s.set(d, t, 0);
                            }
                            continue;
                        };
                        if at >= view.limit {
                            return err(format!(
                                "thread {t}'s atomic reaches element {at} of {} ({} elements)",
                                b.name, view.limit
                            ));
                        }
                        let range = view.byte + at as usize * w..view.byte + (at as usize + 1) * w;
                        let old = read_le(&buffers[view.memory][range.clone()]);
                        let c = cmp.map_or(0, |c| s.get(c, t));
                        let new = kind
                            .apply(ty, bits, old, s.get(value, t), c)
                            .ok_or_else(|| LowerError::new(format!("an atomic {kind:?} of {ty}")))?;
                        buffers[view.memory][range].copy_from_slice(&new.to_le_bytes()[..w]);
                        if let Some(d) = old_to {
                            s.set(d, t, old);
                        }
                    }
                }
            }
            Op::LdsWrite { src, address } => {
                let bits = p.value_bits(src[0]);
                for (t, a) in address.eval_all(threads).into_iter().enumerate() {
                    let (data, len) = to_bytes(s, src, t, bits)?;
                    s.lds_write(t, a, &data[..len])?;
                }
            }
            Op::LdsRead { dst, address } => {
                let bits = p.value_bits(dst[0]);
                let w = (bits / 8) as usize;
                let bytes = (dst.len() * w) as u64;
                for (t, a) in address.eval_all(threads).into_iter().enumerate() {
                    let (data, _) = s.lds_read(t, a, bytes)?;
                    for (i, &v) in dst.iter().enumerate() {
                        s.set(v, t, read_le(&data[i * w..(i + 1) * w]));
                    }
                }
            }
            Op::LdsReadIndexed { dst, address, region } => {
                let w = u64::from(p.value_bits(*dst) / 8);
                for t in 0..threads {
                    let a = s.get(*address, t);
                    if a < region.0 || a + w > region.1 {
                        return err(format!(
                            "thread {t} reads LDS byte {a}, outside the {}..{} its gather reaches",
                            region.0, region.1
                        ));
                    }
                    let (data, _) = s.lds_read(t, a, w)?;
                    s.set(*dst, t, read_le(&data[..w as usize]));
                }
            }
            Op::LdsAtomicAdd { src, address, region } => {
                for t in 0..threads {
                    let a = s.get(*address, t);
                    if a < region.0 || a + 4 > region.1 {
                        return err(format!(
                            "thread {t} adds to LDS byte {a}, outside the {}..{} its counts reach",
                            region.0, region.1
                        ));
                    }
                    s.lds_atomic_add(t, a, s.get(*src, t) as u32)?;
                }
            }
            Op::LdsReadTransposed { dst, address } => {
                let e = dst.len();
                let bits = p.value_bits(dst[0]);
                if e == 0 || e * bits as usize != 64 || wave < 16 {
                    return err("a transposing read moves 64 bits per lane in 16-lane groups".to_string());
                }
                let addresses = address.eval_all(threads);
                for t in 0..threads {
                    let group = t - t % 16;
                    let l = t % 16;
                    for (j, &v) in dst.iter().enumerate() {
                        let f = j * 16 + l;
                        let (src_lane, elem) = (f / e, f % e);
                        let a = addresses[group + src_lane] + (elem as u64 * u64::from(bits) / 8);
                        let (data, len) = s.lds_read(t, a, u64::from(bits / 8))?;
                        s.set(v, t, read_le(&data[..len]));
                    }
                }
            }
            Op::GlobalLoadToLds {
                buffer,
                offset,
                elements,
                address,
            } => {
                let b = p
                    .buffers
                    .get(*buffer)
                    .ok_or_else(|| LowerError::new("no such buffer"))?;
                let view = r.view(*buffer, &b.name)?;
                let n = u64::from(*elements);
                let len = (n * u64::from(b.element_bits) / 8) as usize;
                let addresses = address.eval_all(threads);
                for (t, first) in offset.eval_all_in(threads, &r.env).into_iter().enumerate() {
                    let data = match first {
                        None => vec![0; len],
                        Some(first) => {
                            if first.checked_add(n).is_none_or(|e| e > view.limit) {
                                return err(format!(
                                    "thread {t} loads elements {first}..{} of {} ({} elements) into LDS",
                                    first + n,
                                    b.name,
                                    view.limit
                                ));
                            }
                            let at = view.byte + (first * u64::from(b.element_bits) / 8) as usize;
                            buffers[view.memory][at..at + len].to_vec()
                        }
                    };
                    r.in_flight.push((t, addresses[t], data));
                }
            }
            Op::ReadUniform { slot: k, src } => {
                let x = s.get(*src, 0);
                if (1..threads).any(|t| s.get(*src, t) != x) {
                    return err(format!("the threads disagree on the value read into slot {k}"));
                }
                let k = slot(r, *k)?;
                r.env.carried[k] = i64::from(x as u32 as i32);
            }
            Op::BindBuffer { buffer } => {
                let b = p
                    .buffers
                    .get(*buffer)
                    .ok_or_else(|| LowerError::new("no such buffer"))?;
                let address = b
                    .address
                    .ok_or_else(|| LowerError::new(format!("buffer {} has no address to bind", b.name)))?;
                let a = s.get(address, 0);
                if (1..threads).any(|t| s.get(address, t) != a) {
                    return err(format!(
                        "the threads disagree on the address of buffer {}",
                        b.name
                    ));
                }
                // An address the interpreter gave an argument buffer, plus a byte offset.
                let (k, byte) = interpreted_place(a);
                let Some((memory, data)) = buffers.iter().enumerate().nth(k) else {
                    return err(format!(
                        "buffer {}'s address {a:#x} lies in no argument buffer",
                        b.name
                    ));
                };
                let width = (b.element_bits / 8).max(1) as usize;
                if byte > data.len() || !byte.is_multiple_of(width) {
                    return err(format!(
                        "buffer {}'s address {a:#x} lies outside its argument buffer or between elements",
                        b.name
                    ));
                }
                let held = ((data.len() - byte) / width) as u64;
                let limit = b.elements.map_or(held, |n| n.min(held));
                r.views[*buffer] = Some(View { memory, byte, limit });
            }
            Op::WaitDirectLoads => {
                for (t, a, data) in std::mem::take(&mut r.in_flight) {
                    s.lds_write(t, a, &data)?;
                }
            }
            Op::Barrier | Op::WorkgroupBarrier => {
                if !r.in_flight.is_empty() {
                    return err(
                        "a barrier passes while direct-to-LDS loads are in flight (no wait before it)"
                            .to_string(),
                    );
                }
                if matches!(op, Op::WorkgroupBarrier) {
                    r.stored.iter_mut().for_each(Vec::clear);
                }
                s.interval += 1
            }
            Op::Bpermute { dst, src, lane } => {
                let sent: Vec<u64> = (0..threads).map(|t| s.get(*src, t)).collect();
                for (t, l) in lane.eval_all(threads).into_iter().enumerate() {
                    let from = t - t % wave + (l % wave as u64) as usize;
                    s.set(*dst, t, sent[from]);
                }
            }
            Op::Dpp { dst, src, ctrl } => {
                let sent: Vec<u64> = (0..threads).map(|t| s.get(*src, t)).collect();
                for t in 0..threads {
                    let lane = (t % wave) as u32;
                    let read = ctrl
                        .source_lane(lane)
                        .filter(|&from| (from as usize) < wave)
                        .map_or(0, |from| sent[t - t % wave + from as usize]);
                    s.set(*dst, t, read);
                }
            }
            Op::PermlaneX16 { dst, src, lanes } => {
                if wave < 32 {
                    return err("v_permlanex16 needs 32 lanes".to_string());
                }
                let sent: Vec<u64> = (0..threads).map(|t| s.get(*src, t)).collect();
                for t in 0..threads {
                    let other_row = (t ^ 16) & !15;
                    s.set(*dst, t, sent[other_row + usize::from(lanes[t & 15] & 15)]);
                }
            }
            Op::PermlaneSwap { kind, dst, src } => {
                let half = 1usize << kind.lane_bit();
                let a: Vec<u64> = (0..threads).map(|t| s.get(src[0], t)).collect();
                let b: Vec<u64> = (0..threads).map(|t| s.get(src[1], t)).collect();
                if *kind == SwapKind::Rows32 && wave < 64 {
                    return err("v_permlane32_swap needs wave64".to_string());
                }
                for t in 0..threads {
                    let upper = t & half != 0;
                    // Upper lanes of the first operand take the second operand's lower lanes;
                    // lower lanes of the second take the first operand's upper lanes.
                    let new_a = if upper { b[t - half] } else { a[t] };
                    let new_b = if upper { b[t] } else { a[t + half] };
                    s.set(dst[0], t, new_a);
                    s.set(dst[1], t, new_b);
                }
            }
            Op::SelectOnThreadBit { dst, bit, one, zero } => {
                for t in 0..threads {
                    let x = if (t as u64).checked_shr(*bit).unwrap_or(0) & 1 == 1 {
                        s.get(*one, t)
                    } else {
                        s.get(*zero, t)
                    };
                    s.set(*dst, t, x);
                }
            }
            Op::Pack { dst, parts } => {
                let w = parts.first().map(|&v| p.value_bits(v)).unwrap_or(0);
                if w as usize * parts.len() != p.value_bits(*dst) as usize {
                    return err("a pack's parts must fill its result".to_string());
                }
                for t in 0..threads {
                    let x = parts
                        .iter()
                        .rev()
                        .fold(0u64, |a, &v| (a << (w % 64)) | s.get(v, t));
                    s.set(*dst, t, x);
                }
            }
            Op::Mma {
                instruction: i,
                dst,
                a,
                b,
                c,
            } => {
                for w in 0..threads / wave {
                    let lanes = w * wave..(w + 1) * wave;
                    let read = |vals: &[Value], ty: &str| -> Result<Vec<Vec<f64>>, LowerError> {
                        lanes
                            .clone()
                            .map(|t| {
                                vals.iter()
                                    .map(|&v| {
                                        numeric::decode(ty, s.get(v, t)).ok_or_else(|| {
                                            LowerError::new(format!("no numbers of type {ty}"))
                                        })
                                    })
                                    .collect()
                            })
                            .collect()
                    };
                    let (va, vb) = (read(a, i.ab)?, read(b, i.ab)?);
                    let vc = if c.is_empty() {
                        vec![vec![0.0; dst.len()]; wave]
                    } else {
                        read(c, i.acc)?
                    };
                    let d = mma::execute(i, &va, &vb, &vc);
                    for (t, regs) in lanes.zip(d) {
                        for (&v, x) in dst.iter().zip(regs) {
                            let bits = numeric::encode(i.acc, x)
                                .ok_or_else(|| LowerError::new(format!("{x} is no {}", i.acc)))?;
                            s.set(v, t, bits);
                        }
                    }
                }
            }
            Op::InlineAsm { asm, .. } => {
                return Err(LowerError::new(format!(
                    "inline assembly (`{}`) is not interpreted: it runs on the hardware (or an emulator of its ISA)",
                    asm.lines().next().unwrap_or("").trim()
                )));
            }
            Op::Convert { dst, src, from, to } => {
                for (&d, &v) in dst.iter().zip(src) {
                    for t in 0..threads {
                        let x = s.get(v, t);
                        let y = numeric::convert(from, to, x).ok_or_else(|| {
                            LowerError::new(format!("{x:#x} of {from} does not convert to {to}"))
                        })?;
                        s.set(d, t, y);
                    }
                }
            }
            Op::Arith { op, ty, dst, src } => {
                let bits = p.value_bits(*dst);
                for t in 0..threads {
                    let args: Vec<u64> = src.iter().map(|&v| s.get(v, t)).collect();
                    let y = op
                        .eval(ty, bits, &args)
                        .ok_or_else(|| LowerError::new(format!("{op:?} of {ty} {args:?} is not defined")))?;
                    s.set(*dst, t, y);
                }
            }
            Op::Unpack { dst, src } => {
                let w = dst.first().map(|&v| p.value_bits(v)).unwrap_or(0);
                if w as usize * dst.len() != p.value_bits(*src) as usize {
                    return err("an unpack's parts must fill its operand".to_string());
                }
                for t in 0..threads {
                    let x = s.get(*src, t);
                    for (i, &v) in dst.iter().enumerate() {
                        s.set(v, t, x >> ((i as u32 * w) % 64));
                    }
                }
            }
            Op::Compare { pred, ty, dst, a, b } => {
                let bits = p.value_bits(*a);
                for t in 0..threads {
                    let (x, y) = (s.get(*a, t), s.get(*b, t));
                    let holds = if ty.starts_with('i') {
                        pred.holds_int(x, y, bits)
                    } else {
                        let decode = |v| {
                            numeric::decode(ty, v).ok_or_else(|| {
                                LowerError::new(format!("no comparison of numbers of type {ty}"))
                            })
                        };
                        pred.holds_float(decode(x)?, decode(y)?)
                    };
                    s.set(*dst, t, u64::from(holds));
                }
            }
            Op::Select { dst, cond, a, b } => {
                for t in 0..threads {
                    let x = if s.get(*cond, t) & 1 == 1 {
                        s.get(*a, t)
                    } else {
                        s.get(*b, t)
                    };
                    s.set(*dst, t, x);
                }
            }
            Op::ThreadMap { dst, map } => {
                for (t, x) in map.eval_all(threads).into_iter().enumerate() {
                    s.set(*dst, t, x);
                }
            }
            Op::UniformValue { dst, value } => {
                let x = value.value_in(&r.env).ok_or_else(|| {
                    LowerError::new(
                        "a uniform is undefined (an input the launch does not have, a division by zero)",
                    )
                })?;
                // Uniforms are 32-bit scalars, sign-extended into wider registers.
                for t in 0..threads {
                    s.set(*dst, t, x as i32 as i64 as u64);
                }
            }
            Op::BufferAddress { dst, buffer } => {
                let address = interpreted_address(*buffer);
                for t in 0..threads {
                    s.set(*dst, t, address);
                }
            }
            Op::Argument { dst, index } => {
                let x = scalar_bits(p, r.env.launch, *index)?;
                for t in 0..threads {
                    s.set(*dst, t, x);
                }
            }
            Op::Constant { dst, bits } => {
                for t in 0..threads {
                    s.set(*dst, t, *bits);
                }
            }
            Op::Loop {
                counter,
                start,
                end,
                step,
                uniforms,
                values,
                body,
            } => {
                let c = slot(r, *counter)?;
                r.env.carried[c] = start.value_in(&r.env).ok_or_else(missing)?;
                for u in uniforms {
                    let k = slot(r, u.slot)?;
                    r.env.carried[k] = u.init.value_in(&r.env).ok_or_else(missing)?;
                }
                for v in values {
                    for t in 0..threads {
                        let x = s.get(v.init, t);
                        s.set(v.phi, t, x);
                    }
                }
                let step = step.value_in(&r.env).ok_or_else(missing)? as i32;
                if step <= 0 {
                    return err(format!("a loop steps by {step}; steps are positive"));
                }
                let body_ops = walk(body).count().max(1) as u64;
                while (r.env.carried[c] as i32) < (end.value_in(&r.env).ok_or_else(missing)? as i32) {
                    r.loop_operations += body_ops;
                    if r.loop_operations > MAX_LOOP_OPERATIONS {
                        return err(format!(
                            "the loops run more than {MAX_LOOP_OPERATIONS} operations"
                        ));
                    }
                    exec(p, s, r, buffers, body)?;
                    let next: Vec<i64> = uniforms
                        .iter()
                        .map(|u| u.next.value_in(&r.env).ok_or_else(missing))
                        .collect::<Result<_, _>>()?;
                    let moved: Vec<Vec<u64>> = values
                        .iter()
                        .map(|v| (0..threads).map(|t| s.get(v.next, t)).collect())
                        .collect();
                    for (u, x) in uniforms.iter().zip(next) {
                        r.env.carried[u.slot as usize] = x;
                    }
                    for (v, xs) in values.iter().zip(moved) {
                        for (t, x) in xs.into_iter().enumerate() {
                            s.set(v.phi, t, x);
                        }
                    }
                    r.env.carried[c] = i64::from((r.env.carried[c] as i32).wrapping_add(step));
                }
            }
            // Its ops are masked by its predicate themselves: run in place, they do what
            // the branch around them does.
            Op::Predicated { ops, .. } => exec(p, s, r, buffers, ops)?,
            Op::LdsWindow { offset, ops } => {
                let shift = offset
                    .value_in(&r.env)
                    .ok_or_else(|| LowerError::new("an LDS window's offset is undefined"))?;
                let outer = s.lds_shift;
                s.lds_shift = outer.wrapping_add(shift as i32 as i64 as u64);
                let result = exec(p, s, r, buffers, ops);
                s.lds_shift = outer;
                result?;
            }
            Op::While {
                uniforms,
                values,
                before,
                cond,
                results,
                after,
            } => {
                for u in uniforms {
                    let k = slot(r, u.slot)?;
                    r.env.carried[k] = u.init.value_in(&r.env).ok_or_else(missing)?;
                }
                for v in values {
                    for t in 0..threads {
                        let x = s.get(v.init, t);
                        s.set(v.phi, t, x);
                    }
                }
                // The test counts as an operation: an empty loop that never ends is bounded too.
                let iteration = (walk(before).count() + walk(after).count() + 1) as u64;
                let outer = s.active.clone();
                loop {
                    r.loop_operations += iteration;
                    if r.loop_operations > MAX_LOOP_OPERATIONS {
                        return err(format!(
                            "the loops run more than {MAX_LOOP_OPERATIONS} operations"
                        ));
                    }
                    exec(p, s, r, buffers, before)?;
                    if let BranchCondition::PerThread(c) = cond {
                        // A thread whose test fails leaves: its results are what this first
                        // part left it; the others go on.
                        for t in 0..threads {
                            if s.active[t] && s.get(*c, t) & 1 == 0 {
                                s.active[t] = false;
                                for [dst, src] in results {
                                    let x = s.get(*src, t);
                                    s.set(*dst, t, x);
                                }
                            }
                        }
                    }
                    let holds = branch_holds(cond, s, r, threads)?;
                    if !holds {
                        break;
                    }
                    exec(p, s, r, buffers, after)?;
                    let next: Vec<i64> = uniforms
                        .iter()
                        .map(|u| u.next.value_in(&r.env).ok_or_else(missing))
                        .collect::<Result<_, _>>()?;
                    let moved: Vec<Vec<u64>> = values
                        .iter()
                        .map(|v| (0..threads).map(|t| s.get(v.next, t)).collect())
                        .collect();
                    for (u, x) in uniforms.iter().zip(next) {
                        r.env.carried[u.slot as usize] = x;
                    }
                    for (v, xs) in values.iter().zip(moved) {
                        for (t, x) in xs.into_iter().enumerate() {
                            if s.active[t] {
                                s.set(v.phi, t, x);
                            }
                        }
                    }
                }
                if !matches!(cond, BranchCondition::PerThread(_)) {
                    for [dst, src] in results {
                        for t in 0..threads {
                            let x = s.get(*src, t);
                            s.set(*dst, t, x);
                        }
                    }
                }
                s.active = outer;
            }
            Op::If {
                cond,
                then,
                otherwise,
                results,
            } => {
                if let BranchCondition::PerThread(c) = cond {
                    // Each thread takes its own arm: both run, each in the threads that took
                    // it, and each thread's results come from its arm.
                    let outer = s.active.clone();
                    let took: Vec<bool> = (0..threads).map(|t| s.get(*c, t) & 1 == 1).collect();
                    for (arm, side) in [(then, true), (otherwise, false)] {
                        s.active = (0..threads).map(|t| outer[t] && took[t] == side).collect();
                        if s.active.iter().any(|&a| a) {
                            exec(p, s, r, buffers, arm)?;
                        }
                    }
                    s.active = outer;
                    for [dst, a, b] in results {
                        for (t, &took) in took.iter().enumerate() {
                            let x = s.get(if took { *a } else { *b }, t);
                            s.set(*dst, t, x);
                        }
                    }
                    continue;
                }
                let holds = branch_holds(cond, s, r, threads)?;
                exec(p, s, r, buffers, if holds { then } else { otherwise })?;
                for [dst, a, b] in results {
                    let from = if holds { *a } else { *b };
                    for t in 0..threads {
                        let x = s.get(from, t);
                        s.set(*dst, t, x);
                    }
                }
            }
        }
    }
    Ok(())
}
